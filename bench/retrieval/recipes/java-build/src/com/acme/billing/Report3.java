package com.acme.billing;

public class Report3 {
    public String title() { return "Report 3"; }
}
