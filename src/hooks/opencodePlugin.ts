/*
 * dist/opencode-plugin.mjs: Agent Context's opencode plugin, loaded into opencode's own process by
 * the file `mcp.js --setup opencode` writes (.opencode/plugins/agent-context.js, which only names
 * this file, the Node to use and the dist folder). Its `tool.execute.after` sees every bash result
 * before the model does (core/hooks/opencode.ts says why after, not before):
 *   - a small output without a secret candidate is left alone right here, in process: no Node start,
 *     the same test as dist/agent-hook.sh's (the masker's keywords, dist/secret-keywords.ere; the
 *     size and the user-rules flag from .agent/.cache/shell-hook.conf);
 *   - anything else goes to `node agent-hook.js opencode tool.execute.after`, whose answer replaces
 *     the result. Should that fail, the model reads why instead of an output nobody masked.
 * Nothing happens for other tools or where no .agent/ folder is found. No import of
 * @opencode-ai/plugin: the plugin is plain functions over opencode's two hook arguments.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

interface AfterInput {
  tool?: string;
  args?: { command?: unknown; workdir?: unknown; [k: string]: unknown };
}
interface AfterOutput {
  output?: unknown;
  metadata?: { truncated?: unknown; outputPath?: unknown; [k: string]: unknown };
}

/** Where the plugin finds Node and the hook program. */
export interface PluginOptions {
  node: string;
  dist: string;
}

/** Bytes a plugin may hand over without Node when no .agent/.cache/shell-hook.conf says otherwise (agent-hook.sh's default). */
const DEFAULT_SMALL = 2000;

/** The workspace: the nearest folder at or above `dir` holding .agent/ (undefined: none). */
export function agentRoot(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.statSync(path.join(d, '.agent'), { throwIfNoEntry: false })?.isDirectory()) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

let prefilter: RegExp | undefined;

/**
 * True when `text` may reach the model as it is: small, no keyword of the built-in masking rules,
 * and no masking rules of the user's own (with those, Node always looks).
 */
export function cleanSmall(root: string, text: string, dist: string): boolean {
  if (fs.existsSync(path.join(root, '.gitleaks.toml'))) return false;
  let small = DEFAULT_SMALL;
  const config = fs.statSync(path.join(root, '.agent', 'config.yaml'), { throwIfNoEntry: false });
  if (config) {
    const conf = path.join(root, '.agent', '.cache', 'shell-hook.conf');
    const st = fs.statSync(conf, { throwIfNoEntry: false });
    if (!st || config.mtimeMs > st.mtimeMs) return false;
    const [bytes, fast] = fs.readFileSync(conf, 'utf8').trim().split(/\s+/);
    if (fast !== '1' || !Number.isFinite(Number(bytes))) return false;
    small = Number(bytes);
  }
  if (Buffer.byteLength(text, 'utf8') > small) return false;
  prefilter ??= new RegExp(fs.readFileSync(path.join(dist, 'secret-keywords.ere'), 'utf8').trim());
  return !prefilter.test(text.replace(/[A-Z]+/g, (s) => s.toLowerCase()));
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

/** The plugin: opencode calls it once per session with its context and keeps the hooks it returns. */
export function agentContextPlugin(o: PluginOptions) {
  return async (ctx: { directory?: string }) => ({
    'tool.execute.after': async (input: AfterInput, output: AfterOutput): Promise<void> => {
      if (input.tool !== 'bash' || typeof output.output !== 'string') return;
      const base = ctx.directory ?? process.cwd();
      const cwd = typeof input.args?.workdir === 'string' ? path.resolve(base, input.args.workdir) : base;
      const root = agentRoot(cwd) ?? agentRoot(base);
      if (!root) return;
      try {
        if (output.metadata?.truncated !== true && cleanSmall(root, output.output, o.dist)) return;
        const r = await runHook(o, root, { tool: input.tool, args: input.args, output: { output: output.output, metadata: output.metadata }, cwd: root });
        if (!r || typeof r.output !== 'string') return;
        output.output = r.output;
        // opencode's own copy of a large output is gone (it was unmasked): its "full output" link shows ours.
        if (output.metadata && typeof r.saved === 'string') output.metadata.outputPath = path.join(root, r.saved);
      } catch (e) {
        output.output = `(Agent Context could not process this command's output, so none of it is shown: ${(e as Error).message}. Run it again with agentContext_run, or remove .opencode/plugins/agent-context.js.)`;
      }
    },
  });
}
