package com.acme.billing;

public class Report16 {
    public String title() { return "Report 16"; }
}
