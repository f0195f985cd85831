/*
 * dist/opencode-plugin.mjs: Agent Context's opencode plugin, loaded into opencode's own process by
 * the file `mcp.js --setup opencode` writes (.opencode/plugins/agent-context.js, which only names
 * this file, the Node to use and the dist folder), and into Kilo Code's by `--setup kilo`
 * (.kilo/plugins/agent-context.js, naming the agent too: Kilo is an opencode fork with the same
 * plugin interface). Its `tool.execute.after` sees every bash result
 * before the model does (core/hooks/opencodeHook.ts says why after, not before):
 *   - a small output without a secret candidate is left alone right here, in process: no Node start,
 *     the same test as dist/agent-hook.sh's (core/hooks/fastPathRules.ts), and recorded in the
 *     agent-command history (a spool record, core/terminal/agentCommands/);
 *   - anything else goes to `node agent-hook.js opencode tool.execute.after`, whose answer replaces
 *     the result. Should that fail, the model reads why instead of an output nobody masked.
 * Nothing happens for other tools or where no .agent/ folder is found. No import of
 * @opencode-ai/plugin: the plugin is plain functions over opencode's two hook arguments.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { agentRootOf, cleanForFastPath } from '../core/hooks/fastPathRules';
import { writeSpoolRecord } from '../core/terminal/agentCommands/commandSpool';
import { agentDirOf } from '../core/workspace/agentLayout';

interface AfterInput {
  tool?: string;
  sessionID?: string;
  callID?: string;
  args?: { command?: unknown; workdir?: unknown; [k: string]: unknown };
}
interface AfterOutput {
  output?: unknown;
  metadata?: { truncated?: unknown; outputPath?: unknown; exit?: unknown; [k: string]: unknown };
}

/** Where the plugin finds Node and the hook program, and which agent loads it. */
export interface PluginOptions {
  node: string;
  dist: string;
  /** The agent's id in the command history (default opencode; `kilo` for Kilo Code). */
  agent?: string;
}

/** Runs the hook program on one result; its stdout, parsed (undefined: leave the result). */
function runHook(o: PluginOptions, root: string, payload: object): Promise<{ output?: unknown; saved?: unknown } | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(o.node, [path.join(o.dist, 'agent-hook.js'), 'opencode', 'tool.execute.after'], {
      cwd: root,
      env: { ...process.env, AGENT_CONTEXT_ROOT: root },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const errText: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => errText.push(d));
    child.once('error', reject);
    child.once('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      if (code !== 0) return reject(new Error(`agent-hook.js exited with ${code}: ${Buffer.concat(errText).toString('utf8').slice(-300)}`));
      if (!text.trim()) return resolve(undefined);
      try {
        resolve(JSON.parse(text) as { output?: unknown; saved?: unknown });
      } catch (e) {
        reject(e as Error);
      }
    });
    child.stdin.end(JSON.stringify(payload));
  });
}

/** When each running bash call started (by opencode's callID), from tool.execute.before. */
const started = new Map<string, number>();

/** The plugin: opencode calls it once per session with its context and keeps the hooks it returns. */
export function agentContextPlugin(o: PluginOptions) {
  return async (ctx: { directory?: string }) => ({
    'tool.execute.before': async (input: AfterInput): Promise<void> => {
      if (input.tool === 'bash' && typeof input.callID === 'string') started.set(input.callID, Date.now());
    },
    'tool.execute.after': async (input: AfterInput, output: AfterOutput): Promise<void> => {
      if (input.tool !== 'bash' || typeof output.output !== 'string') return;
      const startedMs = typeof input.callID === 'string' ? started.get(input.callID) : undefined;
      if (typeof input.callID === 'string') started.delete(input.callID);
      const base = ctx.directory ?? process.cwd();
      const cwd = typeof input.args?.workdir === 'string' ? path.resolve(base, input.args.workdir) : base;
      const root = agentRootOf(cwd) ?? agentRootOf(base);
      if (!root) return;
      const session = typeof input.sessionID === 'string' ? input.sessionID : undefined;
      try {
        const ere = path.join(o.dist, 'secret-keywords.ere');
        const command = typeof input.args?.command === 'string' ? input.args.command : '';
        // The command and its folder go to the spool as they are: only when no masking rule could touch them.
        if (output.metadata?.truncated !== true && cleanForFastPath(root, output.output, ere, command, cwd)) {
          // Handed over as it is, and recorded here, in process (no Node start).
          const exit = output.metadata?.exit;
          await writeSpoolRecord(agentDirOf(root), { agent: o.agent ?? 'opencode', session: session ?? 'unknown', pid: process.pid, startedMs, endedMs: Date.now(), exitCode: typeof exit === 'number' ? exit : undefined, cwd, command, enc: 'raw', output: output.output }).catch(() => undefined);
          return;
        }
        const r = await runHook(o, root, { agent: o.agent, tool: input.tool, sessionID: session, startedMs, args: input.args, output: { output: output.output, metadata: output.metadata }, cwd: root });
        if (!r || typeof r.output !== 'string') return;
        output.output = r.output;
        // opencode's own copy of a large output is gone (it was unmasked): its "full output" link shows ours.
        if (output.metadata && typeof r.saved === 'string') output.metadata.outputPath = path.join(root, r.saved);
      } catch (e) {
        output.output = `(Agent Context could not process this command's output, so none of it is shown: ${(e as Error).message}. Run it again with agentContext_run, or run mcp.js --undo ${o.agent ?? 'opencode'}.)`;
      }
    },
  });
}
