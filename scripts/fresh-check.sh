#!/usr/bin/env bash
# A newcomer's path, as a test: clones this repository (its current branch, committed state) into a
# temp folder, points HOME (so ~/.npmrc, ~/.npm and ~/.cache/agent-context) at an empty temp
# folder, and runs the README's two set-up commands exactly as written there, in the README's order:
#   1. the start command, through scripts/start-check.mjs (waits for the URL, checks the views in
#      Chromium, Ctrl-C, no process left); on an empty cache this is also the cold editor install;
#   2. the test command, whose last line is "N passed, M failed, K skipped".
# Reports each command's time and result; exit 0 only if both passed. Takes 20-30 minutes on 2 cores.
#   scripts/fresh-check.sh [--keep]     (--keep: leave the temp folder for inspection)
# Debian packages are outside HOME: they are installed (as root) or named, as on any machine.
set -uo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
keep=0; [ "${1:-}" = "--keep" ] && keep=1
tmp="$(mktemp -d "${TMPDIR:-/tmp}/agent-context-fresh-XXXXXX")"
log="$tmp/fresh-check.log"
cleanup() { if [ $keep = 0 ]; then rm -rf "$tmp"; else echo "kept $tmp"; fi; }
trap cleanup EXIT

branch="$(git -C "$here" rev-parse --abbrev-ref HEAD)"
commit="$(git -C "$here" rev-parse --short HEAD)"
git clone --quiet --branch "$branch" "$here" "$tmp/repo"
mkdir -p "$tmp/home"
# The two commands, as the README's "Set up" block has them (comments cut off).
mapfile -t cmds < <(awk '/^## Set up/{s=1} s&&/^```sh/{b=1;next} b&&/^```/{exit} b' "$tmp/repo/README.md" | sed 's/ *#.*//' | grep -v '^$')
if [ ${#cmds[@]} -ne 2 ]; then
  echo "fresh-check: expected two commands in README.md's Set up block, found ${#cmds[@]}: ${cmds[*]}" >&2
  exit 2
fi
start_cmd="$(printf '%s\n' "${cmds[@]}" | grep 'npm start')"
test_cmd="$(printf '%s\n' "${cmds[@]}" | grep 'npm test')"

# A newcomer's shell: empty HOME, no cache override, nothing npm exported.
clean_env=(env -u AGENT_CONTEXT_CACHE -u XDG_CACHE_HOME -u XDG_CONFIG_HOME -u npm_config_cache HOME="$tmp/home")
for v in $(compgen -e); do case "$v" in npm_*|INIT_CWD|NODE) clean_env+=(-u "$v") ;; esac; done

echo "fresh-check: $branch @ $commit cloned into $tmp/repo, HOME=$tmp/home (empty), log $log"
echo "fresh-check: load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
results=()
run() {
  local name="$1"; shift
  local t=$SECONDS rc=0
  echo "=== $name ($(date -u +%T) UTC)" | tee -a "$log"
  "${clean_env[@]}" "$@" >>"$log" 2>&1 || rc=$?
  results+=("$(printf '%-24s %5d s  exit %d' "$name" $((SECONDS - t)) $rc)")
  return $rc
}

# 1. The start command. The checker (Chromium via playwright-core) runs from this repository's
#    node_modules; the command itself runs in the fresh clone, with the fresh HOME.
run "$start_cmd" node "$here/scripts/start-check.mjs" --repo "$tmp/repo" --command "$start_cmd" --as-is --timeout-min 25
start_rc=$?
grep -E '^  [✔✖] |^start check:' "$log" | sed 's/^/  /'
# 2. The test command, exactly as written, in the clone.
run "$test_cmd" bash -c "cd '$tmp/repo' && $test_cmd"
test_rc=$?
sed -n '/^=== .*npm test/,$p' "$log" | grep -E '^--- .*(ok|FAILED|passed)|dependencies ready|^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' | sed 's/^/  /'

echo
echo "fresh-check summary ($branch @ $commit, load $(cut -d' ' -f1-3 /proc/loadavg)):"
printf '  %s\n' "${results[@]}"
printf '  %s: %s\n' "$start_cmd" "$(grep -E '^start check: ' "$log" | head -n 1)"
printf '  %s: %s\n' "$test_cmd" "$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)"
[ $start_rc = 0 ] && [ $test_rc = 0 ] && { echo "  RESULT: both README commands work from nothing"; exit 0; }
echo "  RESULT: FAILED (log: $log)"; keep=1; exit 1
