package com.acme.billing;

public class Report21 {
    public String title() { return "Report 21"; }
}
