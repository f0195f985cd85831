package com.acme.billing;

public class Report8 {
    public String title() { return "Report 8"; }
}
