# Agent Context: offloads the output of an agent's own shell command (dist/agent-context-shell.sh).
#
# Sourced by the shell an agent starts for each command, BEFORE the command runs:
#   - Claude Code: a SessionStart hook appends `. <this file>` to $CLAUDE_ENV_FILE, whose text
#     Claude Code puts in front of every Bash command (same shell process);
#   - Codex, Gemini CLI, opencode: BASH_ENV=<this file> in the environment of their shell tool.
# The command text is never rewritten: what the agent's permission rules were checked against and
# what the user was shown is the user's own command.
#
# How: this shell runs the same `-c` string again in a child shell (the command exactly as given,
# with the same $0 and arguments, marked AGENT_CONTEXT_CAPTURE=1 so that nothing is done twice),
# with its stdout and stderr in a file of a 0700 folder in RAM ($XDG_RUNTIME_DIR or /dev/shm), then
# prints what the model should read and exits with the child's status:
#   - small output without a secret candidate: the output itself (builtins only, no process start);
#   - otherwise Node (agent-hook.js shell-report) masks it, and a large output becomes the same
#     reference agentContext_run gives (every error line with its number, the masked output under
#     .agent/scratch/tool_outputs/).
# Every process start counts here (one costs more than all the rest together on a loaded machine):
# the child shell is the only one on the fast path. So the capture file is named after this shell
# (cap.<pid>) and emptied with a redirection instead of removed with rm; Node removes it when it
# runs, and sweeps the files of shells that are gone, as does one fast-path call in 64.
# Where no RAM-backed folder exists, the output goes through a Node masking pipe instead, and
# nothing unmasked touches a disk.
# It does nothing (the command runs as it would without it) in an interactive shell, a terminal,
# any shell but bash and zsh, a nested shell, a command that puts something in the background,
# and where no .agent/ folder is found.

[ -n "${AGENT_CONTEXT_CAPTURE-}" ] && return 0
case $- in *i*) return 0 ;; esac
if [ -n "${BASH_VERSION-}" ]; then
  __ac_s=${BASH_EXECUTION_STRING-}
  __ac_sh=$BASH
  __ac_0=$0
  __ac_dir=${BASH_SOURCE[0]%/*}
elif [ -n "${ZSH_VERSION-}" ]; then
  __ac_s=${ZSH_EXECUTION_STRING-}
  # No command substitution (a process start): the shell's path from its name.
  case $ZSH_NAME in */*) __ac_sh=$ZSH_NAME ;; *) __ac_sh=${commands[$ZSH_NAME]-} ;; esac
  [ -n "$__ac_sh" ] || __ac_sh=/bin/zsh
  # In a sourced file zsh's $0 is the file's name; the shell's own is kept here.
  __ac_0=${ZSH_ARGZERO:-zsh}
  __ac_dir=${${(%):-%x}%/*}
  setopt nullglob
else
  return 0
fi
[ -n "$__ac_s" ] || return 0
[ -t 1 ] && return 0
# @fast-path

# The workspace: AGENT_CONTEXT_ROOT (set by the agent's configuration), else the nearest folder
# above the working folder holding .agent/.
__ac_root_of "$PWD"
__ac_root=$__ac_r
[ -n "$__ac_root" ] || return 0
# Codex runs the command through a wrapper that ends by exec'ing the shell that runs it: that shell
# sources this file too, with the command alone.
case $__ac_s in *__CODEX_SNAPSHOT_*) return 0 ;; esac
# A command that starts something in the background: its output would outlive the capture. An `&`
# is looked at closely (builtins only, and only then): one in quotes or a comment (`curl
# 'https://…?a=1&b=2'`, `sed 's/x/&/'`) starts nothing, and must not switch masking off. Claude
# Code hands the command to `eval '…'` (its quotes as '\''): that word is read as the code it is.
__ac_bg() {
  local s=$1 n=${#1} i=0 c q= w=1
  while [ "$i" -lt "$n" ]; do
    c=${s:$i:1}
    i=$((i + 1))
    if [ "$q" = "'" ]; then
      [ "$c" = "'" ] && q=
    elif [ "$q" = '"' ]; then
      case $c in '\') i=$((i + 1)) ;; '"') q= ;; esac
    else
      case $c in
        '\') i=$((i + 1)); w=0 ;;
        "'" | '"') q=$c; w=0 ;;
        '&') return 0 ;;
        '#') if [ "$w" = 1 ]; then
            while [ "$i" -lt "$n" ] && [ "${s:$i:1}" != $'\n' ]; do i=$((i + 1)); done
          else w=0; fi ;;
        ' ' | $'\t' | $'\n' | ';' | '|' | '(' | ')' | '<' | '>') w=1 ;;
        *) w=0 ;;
      esac
    fi
  done
  return 1
}
# True when $1 holds an `&` that puts something in the background (not &&, >&, &>, <&, |&).
__ac_lone() {
  local t=${1//&&/}
  t=${t//>&/}
  t=${t//&>/}
  t=${t//<&/}
  t=${t//|&/}
  case $t in *'&'*) __ac_bg "$t" ;; *) return 1 ;; esac
}
# The code of the first `eval '…'` word of $1, in __ac_e.
__ac_evalarg() {
  local s=${1#*eval \'} out=
  [ "$s" = "$1" ] && return 1
  while :; do
    case $s in *"'"*) ;; *) return 1 ;; esac
    out+=${s%%\'*}
    s=${s#*\'}
    case $s in "\\''"*) out+="'"; s=${s#"\\''"} ;; *) break ;; esac
  done
  __ac_e=$out
}
__ac_e=
case $__ac_s in
  *'&'*)
    if __ac_lone "$__ac_s" || { __ac_evalarg "$__ac_s" && __ac_lone "$__ac_e"; }; then
      unset -f __ac_bg __ac_lone __ac_evalarg
      return 0
    fi ;;
esac
# The command as the agent sent it, for the history: Claude Code's `eval '…'` word, else the string.
__ac_cmd=$__ac_s
[ -n "$__ac_e" ] || __ac_evalarg "$__ac_s"
[ -n "$__ac_e" ] && __ac_cmd=$__ac_e
unset -f __ac_bg __ac_lone __ac_evalarg
# Nothing below is done twice: the child and every shell the command starts leave things alone.
export AGENT_CONTEXT_CAPTURE=1
unset BASH_ENV
__ac_node=${AGENT_CONTEXT_NODE:-node}
__ac_hook=$__ac_dir/agent-hook.js
command -v "$__ac_node" >/dev/null 2>&1 && [ -f "$__ac_hook" ] || { unset AGENT_CONTEXT_CAPTURE; return 0; }
[ -n "${ZSH_VERSION-}" ] && zmodload zsh/datetime 2>/dev/null
__ac_now
__ac_start=$__ac_t
# Who ran the command, for the agent-command history.
__ac_agent=${AGENT_CONTEXT_AGENT:-agent}
__ac_shell=$__ac_sh
__ac_cwd=$PWD
__ac_session

# The child shell starts as this one did: a login shell (`bash -lc`, as Codex runs it) reads the
# profile again (its functions: nvm, conda), and the options given on the command line (-e, -u,
# -x, -o pipefail…) hold for the command as they would without the capture.
__ac_args=()
if [ -n "${BASH_VERSION-}" ]; then
  shopt -q login_shell && __ac_args+=(-l)
  __ac_f=${-//[chimsBH]/}
  [ -n "$__ac_f" ] && __ac_args+=("-$__ac_f")
  [[ -o pipefail ]] && __ac_args+=(-o pipefail)
else
  [[ -o login ]] && __ac_args+=(-l)
  [[ -o errexit ]] && __ac_args+=(-e)
  [[ -o nounset ]] && __ac_args+=(-u)
  [[ -o xtrace ]] && __ac_args+=(-x)
  [[ -o pipefail ]] && __ac_args+=(-o pipefail)
fi

# AGENT_CONTEXT_RUNTIME_DIR names the folder instead (`none`: there is none; for tests and for
# machines whose /dev/shm is not memory).
__ac_ram=
__ac_try() { [ -z "$__ac_ram" ] && [ -n "$1" ] && [ "$1" != none ] && [ -d "$1" ] && [ -w "$1" ] && __ac_ram=$1; }
if [ -n "${AGENT_CONTEXT_RUNTIME_DIR-}" ]; then
  __ac_try "$AGENT_CONTEXT_RUNTIME_DIR"
else
  __ac_try "${XDG_RUNTIME_DIR-}"
  __ac_try /dev/shm
fi
# A command that opens the shell's own output by name (`> /dev/stderr`, `tee /dev/stdout`): on a
# capture file that open would truncate it (what was printed before is lost); a pipe it leaves whole.
case $__ac_s in *'/dev/stdout'* | *'/dev/stderr'* | *'/dev/fd/'* | *'/proc/self/fd'*) __ac_ram= ;; esac
if [ -z "$__ac_ram" ]; then
  # No RAM-backed folder: the output streams through the masker into .agent/ (never unmasked on disk).
  # The command's exit status follows its output on the pipe, behind a NUL and a mark of this run
  # (Node takes it off: the model reads the status, as on the file path).
  __ac_end=$RANDOM$RANDOM$$
  {
    "$__ac_sh" "${__ac_args[@]}" -c "$__ac_s" "$__ac_0" "$@" 2>&1
    __ac_x=$?
    printf '\000agent-context-exit-%s %d\n' "$__ac_end" "$__ac_x"
    exit "$__ac_x"
  } | AGENT_CONTEXT_ROOT=$__ac_root AGENT_CONTEXT_EXEC=${__ac_cmd:0:16384} AGENT_CONTEXT_PIPE_END=$__ac_end AGENT_CONTEXT_SESSION=$__ac_sid AGENT_CONTEXT_AGENT_PID=$__ac_apid AGENT_CONTEXT_CWD=$__ac_cwd "$__ac_node" "$__ac_hook" shell-pipe "$__ac_start"
  # The command's status, read before any other command resets it (bash: PIPESTATUS, zsh: pipestatus).
  __ac_st=${PIPESTATUS[0]:-${pipestatus[1]}}
  exit "$__ac_st"
fi

__ac_d=$__ac_ram/agent-context-${UID:-0}
[ -d "$__ac_d" ] || mkdir -m 700 "$__ac_d" 2>/dev/null
# Ours, a real folder (not a link someone else left in a shared /dev/shm), closed to others: else
# leave things alone. The file's own mode does not matter inside it.
if [ -L "$__ac_d" ] || [ ! -O "$__ac_d" ]; then
  unset AGENT_CONTEXT_CAPTURE
  return 0
fi
__ac_cap=$__ac_d/cap.$$
if ! { : >"$__ac_cap"; } 2>/dev/null; then
  unset AGENT_CONTEXT_CAPTURE
  return 0
fi

# The same $0 and arguments, so that the command's own messages read as without the capture
# ("bash: line 1: foo: command not found"). Appended (the file is empty): a write through a name
# the command opened itself lands at the end, not over what came before.
"$__ac_sh" "${__ac_args[@]}" -c "$__ac_s" "$__ac_0" "$@" <&0 >>"$__ac_cap" 2>&1 &
__ac_pid=$!
trap 'kill -TERM "$__ac_pid" 2>/dev/null' TERM INT HUP
wait "$__ac_pid"
__ac_st=$?
# wait returns early when a trapped signal arrives: wait again until the child is gone.
while kill -0 "$__ac_pid" 2>/dev/null; do
  wait "$__ac_pid"
  __ac_st=$?
done
trap - TERM INT HUP

__ac_settings "$__ac_root"
# Empties the capture (a redirection, no process), and in one call of 64 removes the captures of
# shells that are gone (a shell killed with SIGKILL cannot clean up after itself).
__ac_done() {
  : >"$__ac_cap"
  [ $((RANDOM % 64)) = 0 ] || return 0
  local f p dead=()
  for f in "$__ac_d"/cap.*; do
    p=${f##*/cap.}
    [ "$p" = "$$" ] || kill -0 "$p" 2>/dev/null || dead+=("$f")
  done
  [ ${#dead[@]} = 0 ] || rm -f -- "${dead[@]}"
}
# The fast path, builtins only: the output is at most __ac_small bytes, holds no NUL, and no
# keyword of the masking rules (secret-keywords.ere: the keyword scan in front of every built-in
# rule, so an output without any is returned unchanged by the masker too), so it is handed over
# exactly as it is, and recorded in the agent-command history as it is (the fold renders it).
__ac_small_out=
if [ -n "${BASH_VERSION-}" ]; then
  # read stops at a NUL (-d '') or after __ac_small + 1 bytes with status 0; 1 means it reached the end.
  IFS= LC_ALL=C read -r -d '' -n "$((__ac_small + 1))" __ac_out <"$__ac_cap" || __ac_small_out=1
elif zmodload zsh/system 2>/dev/null; then
  setopt no_multibyte
  __ac_out=
  sysread -s "$((__ac_small + 1))" __ac_out <"$__ac_cap"
  [ "${#__ac_out}" -le "$__ac_small" ] && [[ $__ac_out != *$'\0'* ]] && __ac_small_out=1
fi
# The command and its folder go to the spool as they are: only when no masking rule could touch them.
if [ -n "$__ac_small_out" ] && __ac_clean "$__ac_out" "$__ac_cmd" "$__ac_cwd"; then
  printf '%s' "$__ac_out"
  __ac_record "$__ac_root" raw "$__ac_st" "$__ac_out"
  __ac_done
  exit "$__ac_st"
fi
# Node removes the capture once it has it open (and sweeps those of shells that are gone).
# The command as the fast path records it (__ac_cmd: Claude Code's `eval '…'` word, else the `-c`
# string) goes to Node in the environment (cut: an environment string has a size limit).
AGENT_CONTEXT_ROOT=$__ac_root AGENT_CONTEXT_EXEC=${__ac_cmd:0:16384} AGENT_CONTEXT_CAPTURE_FILE=$__ac_cap AGENT_CONTEXT_SESSION=$__ac_sid AGENT_CONTEXT_AGENT_PID=$__ac_apid AGENT_CONTEXT_CWD=$__ac_cwd "$__ac_node" "$__ac_hook" shell-report "$__ac_st" "$__ac_start" <"$__ac_cap"
[ -e "$__ac_cap" ] && : >"$__ac_cap"
exit "$__ac_st"
