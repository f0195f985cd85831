package com.acme.billing;

public class Report10 {
    public String title() { return "Report 10"; }
}
