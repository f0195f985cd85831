package com.acme.billing;

public class Report25 {
    public String title() { return "Report 25"; }
}
