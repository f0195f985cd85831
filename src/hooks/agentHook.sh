#!/usr/bin/env bash
# Agent Context: the hook entry point agents run (dist/agent-hook.sh <agent> <event>), in shell so
# that a call it has nothing to do with costs a shell start and nothing more: no Node unless there
# is work (a large output, a secret candidate). Never fails the agent's call: exits 0.
#
#   agent-hook.sh claude-code SessionStart   puts the shell capture in front of every Bash command
#                                            (appends to $CLAUDE_ENV_FILE, with the session id) and
#                                            prints the briefing as additional context (also after a compaction)
#   agent-hook.sh copilot-cli postToolUse    replaces a large `bash` result by our reference, masks
#                                            secrets in a small one (Copilot's JSON on stdin), and records
#                                            the command in the agent-command history; mirrors its plan.md
#                                            into .agent/plans/ after a create/edit. The same runtime runs it
#                                            for GitHub Copilot CLI and for VS Code's Copilot harness (told
#                                            apart by AI_AGENT, which VS Code sets)
#   agent-hook.sh gemini AfterTool           the same for Gemini CLI's run_shell_command (its JSON on
#                                            stdin; answers {"decision":"deny","reason":<reference>})
#   agent-hook.sh gemini SessionStart        the briefing as additional context (Gemini CLI's JSON on stdin)
#   agent-hook.sh codex SessionStart         the same for Codex CLI, also after a compaction
#   agent-hook.sh qwen-code SessionStart     the same for Qwen Code (Claude Code's hook shape)
#   agent-hook.sh qwen-code PostToolUse      records Qwen Code's run_shell_command in the agent-command
#   agent-hook.sh qwen-code PostToolUseFailure  history (its JSON on stdin); prints nothing: Qwen's hooks
#                                            cannot replace the result, and nothing is added to it
#                                            (core/hooks/qwenCodeHook.ts)
#   agent-hook.sh cline PostToolUse          the same for Cline's run_commands (~/.cline/hooks/PostToolUse,
#                                            written by the set-up, runs it; its JSON on stdin, one result
#                                            per command: core/hooks/clineHook.ts)
#   agent-hook.sh copilot-cli sessionStart   the same for Copilot CLI ({"additionalContext":…})
#
# Other agents and VS Code's own agent may read the same hook files (VS Code runs Claude Code and
# Copilot-format hooks on every tool call): anything that is not the named agent's own shell tool
# is left alone at once.

__ac_dir=${BASH_SOURCE[0]%/*}
__ac_node=${AGENT_CONTEXT_NODE:-node}

# @fast-path

# The body of the first JSON string value of "$1" in __ac_in, in __ac_v; false when there is none.
__ac_json() {
  local re='"'$1'"[[:space:]]*:[[:space:]]*"(([^"\\]|\\.)*)"'
  [[ $__ac_in =~ $re ]] || return 1
  __ac_v=${BASH_REMATCH[1]}
}

# A JSON string body with its escapes of a quote and a backslash undone (enough for the keyword
# check: every other escape stays longer than what it stands for, so sizes are never understated).
__ac_unjson() {
  __ac_u=${1//\\\"/\"}
  __ac_u=${__ac_u//\\\\/\\}
}

# The hook's input into __ac_in, at most 8 KB of it, read in blocks (-N: without it bash reads a pipe
# a byte at a time, ~2 us a byte; a larger input is an output Node must look at, and goes to it
# whole); __ac_whole=1 when that is all of it.
__ac_read() {
  if LC_ALL=C IFS= read -r -d '' -N 8192 __ac_in; then __ac_whole=0; else __ac_whole=1; fi
}

# __ac_read, and the hook ends when the whole input does not hold "$1" (another tool's call).
__ac_input() {
  __ac_read
  case $__ac_in in *"$1"*) ;; *) [ "$__ac_whole" = 0 ] || exit 0 ;; esac
}

# The fast path of a shell tool's result: when the input's JSON string field "$1" (what the model
# reads) is small and holds no secret candidate, command and folder included, it is recorded as it
# is (JSON string bodies, decoded by the fold) and the hook ends; else this returns, for Node.
# Needs __ac_r, __ac_agent and __ac_sid.
__ac_handover() {
  __ac_settings "$__ac_r"
  __ac_cmd=
  __ac_json command && __ac_cmd=$__ac_v
  __ac_cwd=
  __ac_json cwd && __ac_cwd=$__ac_v
  if __ac_json "$1" && __ac_unjson "$__ac_v" && __ac_clean "$__ac_u" "$__ac_cmd" "$__ac_cwd"; then
    __ac_apid=
    __ac_start=
    __ac_record "$__ac_r" json '' "$__ac_v"
    exit 0
  fi
}

case "${1-}:${2-}" in
  claude-code:SessionStart)
    # Only Claude Code gives this file; VS Code's agent running the same hook has none.
    [ -n "${CLAUDE_ENV_FILE-}" ] || exit 0
    IFS= read -r -d '' __ac_in
    __ac_q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
    {
      printf 'export AGENT_CONTEXT_AGENT=claude-code AGENT_CONTEXT_NODE=%s' "$(__ac_q "$__ac_node")"
      [ -n "${CLAUDE_PROJECT_DIR-}" ] && printf ' AGENT_CONTEXT_ROOT=%s' "$(__ac_q "$CLAUDE_PROJECT_DIR")"
      # The session the agent-command history files this session's commands under.
      __ac_json session_id && printf ' AGENT_CONTEXT_SESSION=%s' "$(__ac_q "$__ac_v")"
      printf '\n. %s\n' "$(__ac_q "$__ac_dir/agent-context-shell.sh")"
    } >>"$CLAUDE_ENV_FILE"
    # The briefing as additional context: at startup, resume and /clear, and again right after a
    # compaction (source "compact"), so the plan's current step survives it. Once per session
    # start, so a Node start is fine here.
    __ac_root_of "${CLAUDE_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    printf '%s' "$__ac_in" | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" claude-code SessionStart
    ;;
  copilot-cli:sessionStart)
    # Once per session: the briefing as additional context, where a .agent/ folder is found.
    __ac_root_of "$PWD"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli sessionStart
    ;;
  copilot-cli:postToolUse)
    # Every tool call of the runtime comes here (no matcher): the first 8 KB tell which tool it was
    # (toolName comes before the tool's arguments and result).
    __ac_read
    case $__ac_in in
      *'"toolName":"bash"'*) ;;
      # Plan mode's create/edit of $COPILOT_HOME/session-state/<id>/plan.md: mirrored into
      # .agent/plans/ by Node. Any other file tool call ends here, in the shell.
      *'"toolName":"create"'*|*'"toolName":"edit"'*)
        # Its path may lie past the first 8 KB: the rest is read too (one cat, for a large edit only).
        [ "$__ac_whole" = 1 ] || { __ac_in+=$(cat; printf x); __ac_in=${__ac_in%x}; }
        case $__ac_in in *[/\\]session-state[/\\]*[/\\]plan.md\"*) ;; *) exit 0 ;; esac
        __ac_root_of "$PWD"
        [ -n "$__ac_r" ] || exit 0
        printf '%s' "$__ac_in" | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli postToolUse
        exit 0
        ;;
      # Any other tool: the rest of a large input is drained, so the runtime's write of it never fails.
      *) [ "$__ac_whole" = 1 ] || cat >/dev/null; exit 0 ;;
    esac
    __ac_root_of "$PWD"
    [ -n "$__ac_r" ] || exit 0
    # VS Code's agent host runs the same runtime, and marks its processes.
    __ac_agent=copilot-cli
    [ "${AI_AGENT-}" = github_copilot_vscode_agent ] && __ac_agent=vscode-copilot
    __ac_sid=unknown
    __ac_json sessionId && __ac_sid=$__ac_v
    case $__ac_whole$__ac_in in
      0*|*'"textResultForLlm":"Output too large to read at once'*) ;;
      # The whole input is here: handed over as it is, and recorded.
      *) __ac_handover textResultForLlm ;;
    esac
    { printf '%s' "$__ac_in"; [ "$__ac_whole" = 0 ] && cat; } | AGENT_CONTEXT_ROOT=$__ac_r AGENT_CONTEXT_AGENT=$__ac_agent AGENT_CONTEXT_SESSION=$__ac_sid "$__ac_node" "$__ac_dir/agent-hook.js" copilot-cli postToolUse
    ;;
  codex:SessionStart)
    # Codex's SessionStart (startup, resume, clear, compact): the briefing, as for Claude Code.
    __ac_root_of "$PWD"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" codex SessionStart
    ;;
  qwen-code:SessionStart)
    # Once per session start: Node is fine here.
    # QWEN_PROJECT_DIR is the workspace (the hook input's cwd); QWEN_CODE_PROJECT_DIR is Qwen's own
    # state folder ~/.qwen/projects/<slug> (checked in 0.24.4), where no .agent/ is found.
    __ac_root_of "${QWEN_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" qwen-code SessionStart
    ;;
  qwen-code:PostToolUse|qwen-code:PostToolUseFailure)
    # Recorded only: what the model reads stays Qwen's own. A small, clean result is recorded here
    # (its JSON string bodies; the fold takes Qwen's framing apart: core/hooks/agentResults.ts); any
    # other goes to Node, whose stdout goes nowhere.
    __ac_input '"tool_name":"run_shell_command"'
    __ac_root_of "${QWEN_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    __ac_agent=qwen-code
    __ac_sid=unknown
    __ac_json session_id && __ac_sid=$__ac_v
    if [ "$__ac_whole" = 1 ]; then
      __ac_f=llmContent
      [ "$2" = PostToolUseFailure ] && __ac_f=error
      __ac_handover "$__ac_f"
    fi
    { printf '%s' "$__ac_in"; [ "$__ac_whole" = 0 ] && cat; } | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" qwen-code "$2" >/dev/null
    ;;
  cline:PostToolUse)
    # Recorded only, as for Qwen Code. The shell records a call of one small, clean command (the
    # fold takes Cline's "[Command exited with code N]" apart); several commands, a large output or
    # a secret candidate go to Node. Every other tool ends here.
    __ac_input '"name":"run_commands"'
    __ac_root_of "$PWD"
    [ -n "$__ac_r" ] || exit 0
    if [ "$__ac_whole" = 1 ]; then
      __ac_rest=${__ac_in#*\"query\":}
      case $__ac_rest in
        *'"query":'*) ;;
        *)
          __ac_agent=cline
          __ac_sid=unknown
          __ac_json taskId && __ac_sid=$__ac_v
          __ac_settings "$__ac_r"
          __ac_cmd=
          __ac_cwd=
          if [[ $__ac_rest != "$__ac_in" && ( $__ac_in == *'"success":true'* || $__ac_in == *'"result":"[Command exited with code '* ) ]] \
            && __ac_json query && __ac_cmd=$__ac_v && [[ $__ac_cmd != *'... [command truncated: '* ]] \
            && __ac_json result && __ac_unjson "$__ac_v" && __ac_clean "$__ac_u" "$__ac_cmd" "$PWD"; then
            # The folder as a JSON string body (the record's encoding).
            __ac_cwd=${PWD//\\/\\\\}
            __ac_cwd=${__ac_cwd//\"/\\\"}
            __ac_apid=
            __ac_start=
            __ac_record "$__ac_r" json '' "$__ac_v"
            exit 0
          fi
          ;;
      esac
    fi
    { printf '%s' "$__ac_in"; [ "$__ac_whole" = 0 ] && cat; } | AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" cline PostToolUse >/dev/null
    ;;
  gemini:SessionStart)
    # Once per session start (startup, resume, /clear): Node is fine here.
    __ac_root_of "${GEMINI_PROJECT_DIR:-$PWD}"
    [ -n "$__ac_r" ] || exit 0
    AGENT_CONTEXT_ROOT=$__ac_r "$__ac_node" "$__ac_dir/agent-hook.js" gemini SessionStart
    ;;
  gemini:AfterTool)
    __ac_input '"tool_name":"run_shell_command"'
    __ac_root_of "$PWD"
    [ -n "$__ac_r" ] || exit 0
    __ac_agent=gemini
    __ac_sid=unknown
    __ac_json session_id && __ac_sid=$__ac_v
    if [ "$__ac_whole" = 1 ]; then
      # The whole input is here: the output (llmContent) may be handed over as it is.
      __ac_handover llmContent
    fi
    { printf '%s' "$__ac_in"; [ "$__ac_whole" = 0 ] && cat; } | AGENT_CONTEXT_ROOT=$__ac_r AGENT_CONTEXT_SESSION=$__ac_sid "$__ac_node" "$__ac_dir/agent-hook.js" gemini AfterTool
    ;;
esac
exit 0
