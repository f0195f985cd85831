"""A small migration runner for app.db (sqlite): migrate, showmigrations, rollback <name>."""
import pathlib
import sqlite3
import sys

ROOT = pathlib.Path(__file__).parent
DB = ROOT / "app.db"
MIGRATIONS = ROOT / "migrations"


def conn():
    c = sqlite3.connect(DB)
    c.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT DEFAULT CURRENT_TIMESTAMP)")
    return c


def applied(c):
    return {r[0] for r in c.execute("SELECT name FROM schema_migrations")}


def migrate():
    c = conn()
    done = applied(c)
    pending = [m for m in sorted(MIGRATIONS.glob("*.up.sql")) if m.name[:-7] not in done]
    if not pending:
        print("No migrations to apply.")
        return 0
    print(f"Operations to perform: apply {len(pending)} migration(s)")
    for m in pending:
        name = m.name[:-7]
        print(f"  Applying {name}...", flush=True)
        for stmt in [s.strip() for s in m.read_text().split(";") if s.strip()]:
            print(f"    {stmt.splitlines()[0]}" + (" ..." if "\n" in stmt else ""))
            try:
                c.execute(stmt)
            except sqlite3.Error as e:
                c.rollback()
                print(f"  FAILED {name}: {type(e).__name__}: {e}", file=sys.stderr)
                print(f"Migration {name} was rolled back; {len(applied(c))} migrations remain applied.", file=sys.stderr)
                return 1
        c.execute("INSERT INTO schema_migrations (name) VALUES (?)", (name,))
        c.commit()
        print(f"  Applied {name} OK")
    return 0


def showmigrations():
    c = conn()
    done = applied(c)
    for m in sorted(MIGRATIONS.glob("*.up.sql")):
        name = m.name[:-7]
        print(f" [{'X' if name in done else ' '}] {name}")
    return 0


def rollback(target):
    c = conn()
    done = sorted(applied(c), reverse=True)
    for name in done:
        if name <= target:
            break
        down = MIGRATIONS / f"{name}.down.sql"
        print(f"  Unapplying {name}...")
        for stmt in [s.strip() for s in down.read_text().split(";") if s.strip()]:
            print(f"    {stmt.splitlines()[0]}")
            c.execute(stmt)
        c.execute("DELETE FROM schema_migrations WHERE name = ?", (name,))
        c.commit()
        print(f"  Unapplied {name} OK")
    return 0


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "migrate"
    sys.exit({"migrate": migrate, "showmigrations": showmigrations}.get(cmd, lambda: rollback(sys.argv[2]))())
