package com.acme.billing;

public class Report9 {
    public String title() { return "Report 9"; }
}
