package com.acme.billing;

public class Report22 {
    public String title() { return "Report 22"; }
}
