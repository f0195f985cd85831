package com.acme.billing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

public class Exporter {
    public void writeCsv(Invoice invoice, Path out) {
        String row = invoice.customer() + "," + invoice.total();
        Files.writeString(out, row);
    }

    public Path defaultPath() {
        return Paths.get("exports", "invoice.csv");
    }
}
