package com.acme.billing;

public class Report23 {
    public String title() { return "Report 23"; }
}
