package com.acme.billing;

public class Report14 {
    public String title() { return "Report 14"; }
}
