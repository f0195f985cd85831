package com.acme.billing;

public class Report2 {
    public String title() { return "Report 2"; }
}
