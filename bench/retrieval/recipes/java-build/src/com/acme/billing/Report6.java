package com.acme.billing;

public class Report6 {
    public String title() { return "Report 6"; }
}
