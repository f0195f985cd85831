package com.acme.billing;

public class Report24 {
    public String title() { return "Report 24"; }
}
