import csv, io, json, logging, sys
logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("etl")

RAW = "id,amount,currency\n" + "\n".join(f"{i},{i*3.5:.2f},{'EUR' if i != 137 else 'XXX'}" for i in range(1, 200))
RATES = {"EUR": 1.0, "USD": 1.08}

def load(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    log.info("loaded %d rows", len(rows))
    return rows

def convert(row):
    try:
        return float(row["amount"]) * RATES[row["currency"]]
    except KeyError as e:
        raise ValueError(f"row {row['id']}: unknown currency {row['currency']!r}") from e

def transform(rows):
    out = []
    for row in rows:
        if int(row["id"]) % 10 == 0:
            log.warning("row %s: amount rounded", row["id"])
        out.append({"id": int(row["id"]), "eur": convert(row)})
        log.debug("row %s ok", row["id"])
    return out

def main():
    rows = load(RAW)
    data = transform(rows)
    json.dump(data, sys.stdout)

if __name__ == "__main__":
    main()
