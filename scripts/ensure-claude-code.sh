#!/usr/bin/env bash
# Installs the Claude Code CLI for the real-client test run (test/realClient/), once, into the same
# cache as code-server: $CACHE/claude-code-<version>, complete only with its .complete marker (an
# interrupted install is redone; the finished folder is moved into place in one rename).
# Prints CLAUDE_BIN=<path> on stdout; progress goes to stderr, npm's output to $CACHE/ensure-deps.log.
set -euo pipefail

# The version these tests were written against (the registry served it; newer ones may behave differently).
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.197}"
CACHE="${AGENT_CONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-context}"
DIR="$CACHE/claude-code-$CLAUDE_CODE_VERSION"
LOG="$CACHE/ensure-deps.log"

log() { echo "[ensure-claude-code] $*" >&2; }
mkdir -p "$CACHE"

if [ ! -f "$DIR/.complete" ]; then
  exec 9>"$CACHE/.claude-code.lock"
  if command -v flock >/dev/null; then
    flock -n 9 || { log "another install is running; waiting for it"; flock 9; }
  fi
fi
if [ ! -f "$DIR/.complete" ]; then
  log "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION (a ~245 MB native binary; output in $LOG)"
  started=$SECONDS
  tmp="$(mktemp -d "$CACHE/claude-code-tmp.XXXXXX")"
  echo "=== $(date -u +%FT%TZ) npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >>"$LOG"
  # A nested npm must not inherit the outer npm's environment (npm test): it names the outer Node
  # and package, and install scripts act on it.
  if ! (
    for v in $(compgen -e); do
      case "$v" in npm_config_*|npm_package_*|npm_lifecycle_*|npm_node_execpath|NODE|INIT_CWD) unset "$v" ;; esac
    done
    npm install -g --prefix "$tmp" --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
  ) >>"$LOG" 2>&1; then
    log "FAILED: npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION. Last lines of $LOG:"
    tail -n 30 "$LOG" >&2
    rm -rf "$tmp"
    exit 1
  fi
  "$tmp/bin/claude" --version >>"$LOG" 2>&1 || { log "the installed claude does not run; see $LOG"; rm -rf "$tmp"; exit 1; }
  touch "$tmp/.complete"
  rm -rf "$DIR"
  mv "$tmp" "$DIR"
  log "Claude Code installed in $((SECONDS - started)) s"
fi

echo "CLAUDE_BIN=$DIR/bin/claude"
