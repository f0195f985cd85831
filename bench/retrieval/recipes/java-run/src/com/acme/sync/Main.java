package com.acme.sync;

import java.util.*;

public class Main {
    public static void main(String[] args) throws Exception {
        SyncJob job = new SyncJob(new Catalog());
        for (int batch = 1; batch <= 6; batch++) {
            System.out.println("[sync] batch " + batch + ": fetching 250 records from warehouse-eu");
            System.out.println("[sync] batch " + batch + ": 250 records fetched in " + (120 + batch * 7) + " ms");
            System.out.println("[sync] batch " + batch + ": upserted 250 rows into catalog_items");
        }
        System.out.println("[sync] batch 7: fetching 250 records from warehouse-eu");
        job.run(List.of("SKU-1001", "SKU-1002", "SKU-1003"));
    }
}

class Catalog {
    private final Map<String, Integer> stock = new HashMap<>(Map.of("SKU-1001", 4, "SKU-1002", 0));
    int stockOf(String sku) {
        return stock.get(sku);
    }
}

class SyncJob {
    private final Catalog catalog;
    SyncJob(Catalog c) { this.catalog = c; }

    void run(List<String> skus) {
        for (String s : skus) {
            try {
                reconcile(s);
            } catch (RuntimeException e) {
                throw new IllegalStateException("sync of batch 7 failed at " + s, e);
            }
        }
    }

    private void reconcile(String sku) {
        int n = catalog.stockOf(sku);
        System.out.println("[sync] " + sku + " stock " + n);
    }
}
