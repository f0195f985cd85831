package com.acme.billing;

public class Report12 {
    public String title() { return "Report 12"; }
}
