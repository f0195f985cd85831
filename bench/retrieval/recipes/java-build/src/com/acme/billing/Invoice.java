package com.acme.billing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

public class Invoice {
    private final String customerId;
    private final List<LineItem> lines = new ArrayList<>();

    public Invoice(String customerId) {
        this.customerId = customerId;
    }

    public void add(LineItem item) {
        lines.add(item);
    }

    public BigDecimal total() {
        BigDecimal sum = BigDecimal.ZERO;
        for (LineItem l : lines) {
            sum = sum.add(l.amount());
        }
        return sum;
    }

    public int lineCount() {
        return lines.size();
    }

    public String customer() {
        return customerId;
    }
}
