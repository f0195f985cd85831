package com.acme.billing;

public class Report7 {
    public String title() { return "Report 7"; }
}
