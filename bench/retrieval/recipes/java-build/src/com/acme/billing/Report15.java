package com.acme.billing;

public class Report15 {
    public String title() { return "Report 15"; }
}
