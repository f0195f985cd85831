/**
 * Records one of an agent's own shell commands in the agent-command history from Node (the hooks'
 * Node path: a large output, a secret candidate, the user's own masking rules): its record into the
 * spool, then a fold, so the command is in its session's capture by the time the agent reads the
 * result. The shell side writes the same records itself (src/hooks/fastPath.sh, `__ac_record`).
 */
import { agentDirOf } from '../../workspace/agentLayout';
import { toPosixRelative } from '../../workspace/relativePaths';
import { writeSpoolRecord } from './commandSpool';
import { foldCommandSpool } from './sessionFold';

/** What a hook knows of a command besides its output. */
export interface AgentCommandFacts {
  /** The agent's id (`codex`, `claude-code`, `copilot-cli`…). */
  agent: string;
  /** Its session id; commands without one are filed under `unknown`. */
  session?: string;
  /** The agent's process, when the hook knows it (its session ends with it). */
  agentPid?: number;
  shell?: string;
  cwd?: string;
  startedMs?: number;
  endedMs?: number;
  /** The command as the agent sent it (masked by the fold before it is written). */
  command: string;
  exitCode?: number;
}

/**
 * Spools and folds one command: `shown` is what the model read (masked), `saved` the offloaded full
 * output's path when there is one. Never throws: the history is a record, and a failure to keep it
 * must not cost the agent its result; the error is returned for the caller's log.
 */
export async function recordAgentCommand(root: string, facts: AgentCommandFacts, shown: { text: string; masked: number; savedAbs?: string }): Promise<Error | undefined> {
  const agentDir = agentDirOf(root);
  try {
    await writeSpoolRecord(agentDir, {
      agent: facts.agent,
      session: facts.session || 'unknown',
      pid: facts.agentPid,
      shell: facts.shell,
      startedMs: facts.startedMs,
      endedMs: facts.endedMs ?? Date.now(),
      exitCode: facts.exitCode,
      cwd: facts.cwd,
      command: facts.command,
      saved: shown.savedAbs ? toPosixRelative(agentDir, shown.savedAbs) : undefined,
      masked: shown.masked,
      enc: 'raw',
      output: shown.text,
    });
    await foldCommandSpool(agentDir);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

