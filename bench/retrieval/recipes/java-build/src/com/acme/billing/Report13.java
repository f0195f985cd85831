package com.acme.billing;

public class Report13 {
    public String title() { return "Report 13"; }
}
