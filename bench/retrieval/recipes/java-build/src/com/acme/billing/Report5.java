package com.acme.billing;

public class Report5 {
    public String title() { return "Report 5"; }
}
