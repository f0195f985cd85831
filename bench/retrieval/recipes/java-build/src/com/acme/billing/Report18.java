package com.acme.billing;

public class Report18 {
    public String title() { return "Report 18"; }
}
