package com.acme.billing;

public class Report20 {
    public String title() { return "Report 20"; }
}
