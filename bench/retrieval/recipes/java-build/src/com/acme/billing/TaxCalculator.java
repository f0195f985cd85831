package com.acme.billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

public class TaxCalculator {
    private static final Map<String, BigDecimal> RATES = Map.of("DE", new BigDecimal("0.19"), "FR", new BigDecimal("0.20"));

    public BigDecimal taxFor(Invoice invoice, String country) {
        BigDecimal rate = RATES.getOrDefault(country, BigDecimal.ZERO);
        return invoice.total().multiply(rate).setScale(2, RoundingMode.HALF_UP);
    }

    public BigDecimal grossTotal(Invoice invoice, String country) {
        int tax = taxFor(invoice, country);
        return invoice.total().add(tax);
    }

    public String summary(Invoice invoice) {
        return invoice.customer() + ": " + invoice.lineCount() + " lines, " + invoice.totl();
    }
}
