#!/usr/bin/env bash
# Agent Context: the hook entry point agents run (dist/agent-hook.sh <agent> <event>), in shell so
# that a call it has nothing to do with costs a shell start and nothing more: no Node unless there
# is work (a large output, a secret candidate). Never fails the agent's call: exits 0.
#
#   agent-hook.sh claude-code SessionStart   puts the shell capture in front of every Bash command
#                                            (appends to $CLAUDE_ENV_FILE) and prints the briefing
#                                            as additional context (also after a compaction)
#   agent-hook.sh copilot-cli postToolUse    replaces a large `bash` result by our reference, masks
#                                            secrets in a small one (Copilot CLI's JSON on stdin);
#                                            mirrors its plan.md into .agent/plans/ after a create/edit
#   agent-hook.sh gemini AfterTool           the same for Gemini CLI's run_shell_command (its JSON on
#                                            stdin; answers {"decision":"deny","reason":<reference>})
#   agent-hook.sh gemini SessionStart        the briefing as additional context (Gemini CLI's JSON on stdin)
#   agent-hook.sh codex SessionStart         the same for Codex CLI, also after a compaction
#   agent-hook.sh copilot-cli sessionStart   the same for Copilot CLI ({"additionalContext":…})
#
# Other agents and VS Code's own agent may read the same hook files (VS Code runs Claude Code and
# Copilot-format hooks on every tool call): anything that is not the named agent's own shell tool
# is left alone at once.

__ac_dir=${BASH_SOURCE[0]%/*}
__ac_node=${AGENT_CONTEXT_NODE:-node}

# Sets __ac_r to the workspace: AGENT_CONTEXT_ROOT, else the nearest folder above $1 holding .agent/
# (empty: none). No subshell: a process start is the cost that counts here.
__ac_root() {
  local d=${AGENT_CONTEXT_ROOT:-$1}
  __ac_r=
  if [ -n "${AGENT_CONTEXT_ROOT-}" ]; then [ -d "$d/.agent" ] && __ac_r=$d; return; fi
  while [ -n "$d" ]; do
    [ -d "$d/.agent" ] && { __ac_r=$d; return; }
    d=${d%/*}
  done
}

# True when a text may be handed over by the shell: no keyword of the built-in masking rules in it
# (see agent-context-shell.sh), and the user has no masking rules of their own.
__ac_clean() {
  local root=$1 text=$2 re small=2000 fast=1 conf
  [ -f "$root/.gitleaks.toml" ] && return 1
  if [ -f "$root/.agent/config.yaml" ]; then
    conf=$root/.agent/.cache/shell-hook.conf
    [ -f "$conf" ] && [ ! "$root/.agent/config.yaml" -nt "$conf" ] && read -r small fast <"$conf" || return 1
    [ "$fast" = 1 ] || return 1
  fi
  read -r re <"$__ac_dir/secret-keywords.ere" || return 1
  ! [[ ${text,,} =~ $re ]]
}

case "${1-}:${2-}" in
  claude-code:SessionStart)
    # Only Claude Code gives this file; VS Code's agent running the same hook has none.
    [ -n "${CLAUDE_ENV_FILE-}" ] || exit 0
    __ac_q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
    {
      printf 'export AGENT_CONTEXT_AGENT=claude-code AGENT_CONTEXT_NODE=%s' "$(__ac_q "$__ac_node")"
      [ -n "${CLAUDE_PROJECT_DIR-}" ] && printf ' AGENT_CONTEXT_ROOT=%s' "$(__ac_q "$CLAUDE_PROJECT_DIR")"
      printf '\n. %s\n' "$(__ac_q "$__ac_dir/agent-context-shell.sh")"
    } >>"$CLAUDE_ENV_FILE"
    # The briefing as additional context: at startup, resume and /clear, and again right after a
    # compaction (source "compact"), so the plan's current step survives it. Once per session
    # start, so a Node start is fine here.
    __ac_root "${CLAUDE_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" claude-code SessionStart
    ;;
  copilot-cli:sessionStart)
    # Once per session: the briefing as additional context, where a .agent/ folder is found.
    __ac_root "$PWD"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli sessionStart
    ;;
  copilot-cli:postToolUse)
    IFS= read -r -d '' __ac_in
    case $__ac_in in
      *'"toolName":"bash"'*) ;;
      # Plan mode's create/edit of $COPILOT_HOME/session-state/<id>/plan.md: mirrored into
      # .agent/plans/ by Node. Any other file tool call ends here, in the shell.
      *'"toolName":"create"'*|*'"toolName":"edit"'*)
        case $__ac_in in *[/\\]session-state[/\\]*[/\\]plan.md\"*) ;; *) exit 0 ;; esac
        __ac_root "$PWD"
        [ -n "$__ac_r" ] || exit 0
        printf '%s' "$__ac_in" | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli postToolUse
        exit 0
        ;;
      *) exit 0 ;;
    esac
    __ac_root "$PWD"
    [ -n "$__ac_r" ] || exit 0
    case $__ac_in in
      *'"textResultForLlm":"Output too large to read at once'*) ;;
      # JSON escapes a quote and a backslash: undone first, so a keyword with a quote still matches.
      *) __ac_t=${__ac_in//\\\"/\"}; __ac_clean "$__ac_r" "${__ac_t//\\\\/\\}" && exit 0 ;;
    esac
    printf '%s' "$__ac_in" | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli postToolUse
    ;;
  codex:SessionStart)
    # Codex's SessionStart (startup, resume, clear, compact): the briefing, as for Claude Code.
    __ac_root "$PWD"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" codex SessionStart
    ;;
  gemini:SessionStart)
    # Once per session start (startup, resume, /clear): Node is fine here.
    __ac_root "${GEMINI_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" gemini SessionStart
    ;;
  gemini:AfterTool)
    # At most 8 KB read by the shell (bash reads a pipe a byte at a time): a larger input is an
    # output Node must look at, and goes to it whole.
    if LC_ALL=C IFS= read -r -d '' -N 8192 __ac_in; then __ac_whole=0; else __ac_whole=1; fi
    case $__ac_in in *'"tool_name":"run_shell_command"'*) ;; *) [ "$__ac_whole" = 0 ] || exit 0 ;; esac
    __ac_root "$PWD"
    [ -n "$__ac_r" ] || exit 0
    if [ "$__ac_whole" = 1 ]; then
      # The whole input is here: the output (llmContent, JSON-escaped, so never shorter than the
      # output) may be handed over as it is when it is small and holds no secret candidate.
      __ac_re='"llmContent":"(([^"\\]|\\.)*)"'
      if [[ $__ac_in =~ $__ac_re ]]; then
        __ac_t=${BASH_REMATCH[1]}
        __ac_small=2000
        __ac_conf=$__ac_r/.agent/.cache/shell-hook.conf
        [ -f "$__ac_conf" ] && read -r __ac_small _ <"$__ac_conf"
        if [ "${#__ac_t}" -le "$__ac_small" ]; then
          __ac_t=${__ac_t//\\\"/\"}
          __ac_clean "$__ac_r" "${__ac_t//\\\\/\\}" && exit 0
        fi
      fi
    fi
    { printf '%s' "$__ac_in"; [ "$__ac_whole" = 0 ] && cat; } | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" gemini AfterTool
    ;;
esac
exit 0
