package com.acme.billing;

public class Report17 {
    public String title() { return "Report 17"; }
}
