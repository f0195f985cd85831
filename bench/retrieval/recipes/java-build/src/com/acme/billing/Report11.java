package com.acme.billing;

public class Report11 {
    public String title() { return "Report 11"; }
}
