#!/bin/bash
# Re-records the outputs of bench/retrieval/outputs/ from the projects in this folder, on this
# machine's real toolchains (cargo/rustc, go, javac/java, python3 + pytest, node + jest, eslint,
# pip, git, sqlite3). Each project is copied to a temp folder first; outputs are what a terminal
# shows when the command's output is piped (no colour), stdout and stderr merged.
#   bash bench/retrieval/recipes/record.sh            (needs `npx tsc -p .` for the session's format)
# Recorded outputs differ from run to run in times, temp paths, pids and addresses: the questions'
# gold lines were marked on the committed recordings, so re-record only to add outputs, and mark
# the new ones by hand.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$HERE/../outputs}
W=$(mktemp -d /tmp/ac-rec.XXXXXX)
mkdir -p "$OUT"
cp -r "$HERE"/. "$W"/
cd "$W"
run() { local name=$1 dir=$2; shift 2; (cd "$W/$dir" && bash -c "$*" > "$OUT/$name" 2>&1); echo "$name: $(wc -l < "$OUT/$name") lines"; }

run cargo-build-borrow.log rust-build 'cargo build'
run cargo-test-failures.log rust-tests 'RUST_BACKTRACE=1 cargo test'
run cargo-offline-deps.log rust-deps 'CARGO_HOME=$(mktemp -d) cargo build --offline'
run go-build-errors.log go-build 'go build ./...'
run go-test-timeout.log go-tests 'go test -v -timeout 3s ./...'
run javac-errors.log java-build 'javac -Xlint:all -d out $(find src -name "*.java")'
(cd java-run && javac -d out src/com/acme/sync/Main.java)
run java-exception.log java-run 'java -cp out com.acme.sync.Main'
run pytest-failures.log py-tests 'python3 -m pytest -p no:cacheprovider tests'
(cd js-jest && npm install --no-audit --no-fund --silent)
run jest-failures.log js-jest 'npx jest --ci --verbose'
run eslint-report.log eslint-proj "node $REPO/node_modules/eslint/bin/eslint.js src"
run node-unhandled-rejection.log node-crash 'node server.js'
python3 -m venv venv-pip >/dev/null 2>&1
run pip-install-offline.log . "PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_EXTRA_INDEX_URL= ./venv-pip/bin/pip install --index-url http://127.0.0.1:9/simple --retries 2 --timeout 2 'requests==2.32.3' 'flask>=3.0'"

# History: outputs of everyday commands an agent's .agent/ also holds (documentation, listings, passing
# runs, a project's git history). They hold none of the questions' answers, but many of their words.
mkdir -p "$OUT/history"
hist() { local name=$1 dir=$2; shift 2; (cd "$W/$dir" && bash -c "$*" > "$OUT/history/$name" 2>&1); echo "history/$name: $(wc -l < "$OUT/history/$name") lines"; }
hist go-test-stdlib.log . 'go test -v -count=1 strconv sort bytes strings'
hist dpkg-list.log . 'dpkg -l'
hist apt-cache-show.log . 'apt-cache show gcc-12 python3 git make sqlite3 openjdk-17-jdk-headless'
hist git-log-stat-repo.log . "git -C '$REPO' log --stat -200 $(git -C "$REPO" rev-list -1 HEAD)"
hist pytest-collect.log py-tests 'python3 -m pytest -p no:cacheprovider --co -q tests'
hist npm-ci-verbose.log js-jest 'npm ci --verbose --no-audit --no-fund 2>&1 | head -600'
printf '%s\n' '["man -P cat bash", "man -P cat git-rebase", "python3 -m pydoc unittest", "node --help", "cargo --help", "go help build", "go help testflag"]' > "$W/docs-commands.json"

# The interactive session: a git history with fixed dates, six migrations applied, then the commands.
cd "$W/session-proj"
export GIT_AUTHOR_NAME=Dev GIT_AUTHOR_EMAIL=dev@example.com GIT_COMMITTER_NAME=Dev GIT_COMMITTER_EMAIL=dev@example.com
git init -q -b main .
n=0
for f in 0001 0002 0003 0004 0005 0006 0007 0008 0009; do
  n=$((n+1)); export GIT_AUTHOR_DATE="2026-11-2${n}T1${n}:00:00Z" GIT_COMMITTER_DATE="2026-11-2${n}T1${n}:00:00Z"
  git add migrations/${f}_*; git commit -qm "Migration $f: $(ls migrations/${f}_*.up.sql | sed 's/.*[0-9]_//; s/.up.sql//; s/_/ /g')"
done
export GIT_AUTHOR_DATE=2026-11-29T18:00:00Z GIT_COMMITTER_DATE=2026-11-29T18:00:00Z
printf 'app.db\n__pycache__/\n' > .gitignore
git add -A -- . ':!record-session.js' ':!session-commands.json'; git commit -qm "Orders module, migration runner and tests"
python3 - <<'PY'
import sqlite3, pathlib
c = sqlite3.connect('app.db')
c.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT DEFAULT CURRENT_TIMESTAMP)")
for m in sorted(pathlib.Path('migrations').glob('*.up.sql'))[:6]:
    for s in [x for x in m.read_text().split(';') if x.strip()]:
        c.execute(s)
    c.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, '2026-11-28 10:00:00')", (m.name[:-7],))
c.execute("INSERT INTO users (email, created_at) VALUES ('ann@example.us','2026-11-01'),('bo@example.de','2026-11-02')")
c.execute("INSERT INTO orders (user_id, total_cents, status) VALUES (1, 1999, 'new'), (2, 4500, 'shipped'), (1, 250, 'paid')")
c.commit()
PY
mv record-session.js session-commands.json "$W/"
node "$W/record-session.js" "$REPO" "$W/session-proj" "$OUT/session-migrations.txt" "$W/session-commands.json"
# A second terminal: reading documentation (MANWIDTH fixed so the text does not depend on the terminal).
MANWIDTH=100 node "$W/record-session.js" "$REPO" "$W" "$OUT/history/session-docs.txt" "$W/docs-commands.json" 2 "~"
rm -rf "$W"
