package com.acme.billing;

public class Report4 {
    public String title() { return "Report 4"; }
}
