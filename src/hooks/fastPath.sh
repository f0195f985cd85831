# Agent Context: the shell side's one fast path, for bash and zsh (builtins only: a process start is
# the cost that counts on a small command). The build puts this text where a script says
# `# @fast-path` (dist/agent-context-shell.sh, dist/agent-hook.sh; core/hooks/fastPathRules.ts
# shellWithFastPath), with its default size filled in; opencode's in-process plugin has the same rules
# in TypeScript (core/hooks/fastPathRules.ts), and a unit test checks that all three agree.
#
#   __ac_root_of DIR            __ac_r: AGENT_CONTEXT_ROOT, else the nearest folder at or above DIR
#                               holding .agent/ (empty: none)
#   __ac_settings ROOT          __ac_small: the bytes a shell may hand over; __ac_fast: 1 unless the
#                               user has masking rules of their own (then Node always looks);
#                               __ac_okroot: ROOT when Node's masker cleared that very path (below)
#   __ac_below DIR              __ac_b: the part of DIR the keyword check looks at: what is below
#                               __ac_okroot (from its "/" on), else DIR whole
#   __ac_clean TEXT CMD DIR     true when TEXT may reach the model as it is: the fast path is on, TEXT
#                               is at most __ac_small bytes and neither it, nor the command CMD, nor
#                               the part of its folder DIR __ac_below gives holds a keyword of the
#                               masking rules
#   __ac_nokey TEXT...          true when no TEXT holds a keyword of the masking rules (a command and its
#                               folder are written to the spool only then; else Node masks them first).
#                               All in ONE match: the keyword pattern is read and compiled once per call,
#                               the larger part of the hook's own time (no keyword is anchored, so a
#                               keyword in any one TEXT is found in the joined text; one spanning the
#                               join only sends the case to Node)
#   __ac_record ROOT ENC EXIT OUTPUT
#                               writes the command's record into ROOT/.agent/terminals/spool/ (format:
#                               core/terminal/agentCommands/commandSpool.ts) from __ac_agent,
#                               __ac_sid, __ac_apid, __ac_start, __ac_cmd, __ac_cwd; ENC raw (OUTPUT as
#                               printed) or json (OUTPUT, __ac_cmd and __ac_cwd are JSON string bodies)
#   __ac_session                __ac_sid and __ac_apid: the agent's session (AGENT_CONTEXT_SESSION, else
#                               its process: the parent of this shell, with its start time)

__ac_root_of() {
  local d=${AGENT_CONTEXT_ROOT:-$1}
  __ac_r=
  if [ -n "${AGENT_CONTEXT_ROOT-}" ]; then [ -d "$d/.agent" ] && __ac_r=$d; return 0; fi
  while [ -n "$d" ]; do
    if [ -d "$d/.agent" ]; then __ac_r=$d; return 0; fi
    d=${d%/*}
  done
  return 0
}

__ac_settings() {
  __ac_small=@SMALL_DEFAULT@
  __ac_fast=1
  __ac_okroot=
  local conf=$1/.agent/.cache/shell-hook.conf s= f= v=
  # Line 2 is Node's verdict on the workspace's own path, "1 ROOT" when the masker leaves ROOT as it
  # is (also with a value written right after it): a keyword in it ("sk" of ~/Desktop, a user "pat")
  # then costs nothing. It holds for that path only (a moved workspace is checked whole again), and
  # an older conf has no line 2.
  if [ -f "$conf" ]; then
    { read -r s f && IFS= read -r v; } 2>/dev/null <"$conf"
    [ "$v" = "1 $1" ] && __ac_okroot=$1
  fi
  if [ -f "$1/.gitleaks.toml" ]; then
    __ac_fast=0
  elif [ -f "$1/.agent/config.yaml" ]; then
    # What config.yaml means for this path (a threshold, the user's own masking rules) is read by
    # Node, which leaves its answer in line 1 of the conf; stale once config.yaml is newer. Only
    # digits are taken: the values go into arithmetic, which would run a command substitution
    # written in the file (a workspace from an archive keeps its file times).
    if [ -f "$conf" ] && [ ! "$1/.agent/config.yaml" -nt "$conf" ] \
      && [[ $s =~ ^[0-9]{1,9}$ ]] && [[ $f =~ ^[01]$ ]]; then
      __ac_small=$s
      __ac_fast=$f
    else
      __ac_small=@SMALL_DEFAULT@
      __ac_fast=0
    fi
  fi
}

# The one rule of which part of a folder the keyword check sees (core/hooks/fastPathRules.ts
# folderToCheck is its TypeScript twin; test/unit/hooks/fastPath.test.ts runs both).
__ac_below() {
  __ac_b=$1
  [ -n "${__ac_okroot-}" ] || return 0
  case $1 in
    "$__ac_okroot") __ac_b= ;;
    "$__ac_okroot"/*) __ac_b=${1#"$__ac_okroot"} ;;
  esac
}

__ac_clean() {
  [ "$__ac_fast" = 1 ] || return 1
  local n
  if [ -n "${BASH_VERSION-}" ]; then
    local LC_ALL=C
    n=${#1}
  else
    setopt localoptions no_multibyte
    n=${#1}
  fi
  [ "$n" -le "$__ac_small" ] || return 1
  __ac_below "${3-}"
  __ac_nokey "$1" "${2-}" "$__ac_b"
}

# True when no TEXT holds a keyword of the masking rules (ASCII lower case, as the keywords are).
__ac_nokey() {
  local re low IFS=$'\n'
  read -r re <"$__ac_dir/secret-keywords.ere" || return 1
  if [ -n "${BASH_VERSION-}" ]; then
    local LC_ALL=C
    low="${*,,}"
  else
    setopt localoptions no_multibyte
    low="${(L)*}"
  fi
  ! [[ $low =~ $re ]]
}

__ac_session() {
  __ac_apid=$PPID
  if [ -n "${AGENT_CONTEXT_SESSION-}" ]; then
    __ac_sid=$AGENT_CONTEXT_SESSION
    return 0
  fi
  # The agent's process stands for its session: its pid and start time (field 22 of /proc/PID/stat,
  # after the command name in parentheses), so a reused pid is another session.
  local st=
  { read -r st </proc/$PPID/stat; } 2>/dev/null
  if [ -n "$st" ]; then
    local f
    if [ -n "${BASH_VERSION-}" ]; then f=(${st##*) }); __ac_sid=pid-$PPID-${f[19]}; else f=(${=st##*) }); __ac_sid=pid-$PPID-${f[20]}; fi
  else
    __ac_sid=pid-$PPID
  fi
}

# __ac_t: seconds since the epoch with a fraction (EPOCHREALTIME: bash 5, zsh with zsh/datetime; a
# locale may write a decimal comma), else whole seconds (bash 4.2's printf), else empty.
__ac_now() {
  __ac_t=${EPOCHREALTIME-}
  __ac_t=${__ac_t/,/.}
  [ -n "$__ac_t" ] || [ -z "${BASH_VERSION-}" ] || printf -v __ac_t '%(%s)T' -1 2>/dev/null || __ac_t=
}

__ac_record() {
  local dir=$1/.agent/terminals/spool enc=$2 st=$3 out=$4 cmd=${__ac_cmd-} cwd=${__ac_cwd-} nonce=$RANDOM$RANDOM started=${__ac_start-}
  __ac_now
  local ended=$__ac_t
  [ -n "$ended" ] || return 0
  if [ ! -d "$dir" ]; then mkdir -p "$dir" 2>/dev/null || return 0; fi
  if [ "$enc" = raw ]; then
    cmd=${cmd//\\/\\\\}; cmd=${cmd//$'\n'/\\n}; cmd=${cmd//$'\r'/\\r}
    cwd=${cwd//\\/\\\\}; cwd=${cwd//$'\n'/\\n}; cwd=${cwd//$'\r'/\\r}
  fi
  # A fresh name (the shell's pid and the time), written whole by one printf: the fold takes a
  # record only once its end line is there.
  { printf 'agent-context-spool 1 %s\nagent %s\nsession %s\npid %s\nshell %s\nstarted %s\nended %s\nexit %s\ncwd %s\ncommand %s\nsaved \nmasked \nenc %s\n\n%s\nagent-context-end %s\n' \
    "$nonce" "${__ac_agent:-agent}" "${__ac_sid:-unknown}" "${__ac_apid-}" "${__ac_shell-}" "$started" "$ended" "$st" "$cwd" "$cmd" "$enc" "$out" "$nonce" \
    >"$dir/${ended/./}-$$-$RANDOM.rec"; } 2>/dev/null
  return 0
}
