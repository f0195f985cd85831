package com.acme.billing;

public class Report1 {
    public String title() { return "Report 1"; }
}
