package com.acme.billing;

public class Report19 {
    public String title() { return "Report 19"; }
}
