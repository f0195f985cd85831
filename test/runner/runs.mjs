// The integration runs, in one list. Each run opens one fixture workspace in a fresh code-server and
// runs the suite files it selects (basename globs over test/integration/suites/*.test.ts) inside
// the extension host. To add a run: add an entry here (see docs/TESTING.md).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './deps.mjs';

const fixtures = path.join(repoRoot, 'test/fixtures');

// The main fixture (a folder with .agent/) from the foundation work; the harness's own minimal
// fixture until it exists.
const MAIN = fs.existsSync(path.join(fixtures, 'workspace')) ? 'workspace' : 'harness';

/**
 * @typedef {object} Run
 * @property {string} name        run name (--run <name>; exposed as AGENT_CONTEXT_RUN)
 * @property {string} workspace   folder or .code-workspace file under test/fixtures/ (copied fresh per run)
 * @property {string[]} include   suite basename globs, e.g. ['vsix*'] ('*' = all)
 * @property {string[]} [exclude] suite basename globs to leave out
 * @property {boolean} trust      false: workspace trust on and the folder untrusted (restricted mode)
 * @property {'dev'|'vsix'} extension  dev: extensionDevelopmentPath = the repo (dist/ bundle);
 *                                vsix: the packaged .vsix installed, a no-op driver extension as dev path
 * @property {Record<string, unknown>} [settings]  extra user settings for this run
 * @property {boolean} [chat]   drive VS Code's built-in Copilot agent against a fake model (see prepareChat in integration.mjs)
 * @property {'claude-code'|'claude-code-current'|'claude-code-newest'|'codex'|'gemini'|'copilot-cli'|'opencode'|'kilo'|'qwen-code'|'cline'|'cross-agent'|'copilot-harness'} [client]
 *                                a real-client run: no editor; the agent CLI (installed by
 *                                scripts/ensure-deps.sh) is driven by a scripted fake model API
 *                                (suites: test/realClient/<include>.test.ts); cross-agent: several CLIs
 */

/** @type {Run[]} */
export const runs = [
  { name: 'dev', workspace: MAIN, include: ['*'], exclude: ['vsix*', 'restricted*', 'walkthrough*', 'multiroot*', 'copilot*'], trust: true, extension: 'dev' },
  // Multi-root: three folders, two with .agent/ (foundation's multiroot suite).
  { name: 'multiroot', workspace: 'multiroot/multi.code-workspace', include: ['multiroot*'], trust: true, extension: 'dev' },
  // The walkthrough in a fresh editor profile, on a folder whose .agent/ already has a pinned scratch file
  // (state present before the walkthrough opens must show as done; every other step starts unchecked).
  { name: 'walkthrough', workspace: 'walkthrough', include: ['walkthrough*'], trust: true, extension: 'dev' },
  { name: 'vsix', workspace: MAIN, include: ['vsix*'], trust: true, extension: 'vsix' },
  { name: 'restricted', workspace: MAIN, include: ['restricted*'], trust: false, extension: 'dev' },
  // VS Code's own agent (Copilot Chat, built into code-server) in Agent mode, its model a scripted fake
  // Chat Completions server: what the agent offers, asks and sends back to the model for our tools.
  { name: 'copilot', workspace: MAIN, include: ['copilot*'], trust: true, extension: 'dev', chat: true },
  // The agent CLIs (npm, cached like code-server), each against a scripted fake model speaking its
  // wire protocol: our MCP server, their own shell tools, our hooks. Claude Code twice: the pinned
  // release and the current one.
  { name: 'claude-code', workspace: MAIN, include: ['claudeCode*'], trust: true, extension: 'dev', client: 'claude-code' },
  { name: 'claude-code-current', workspace: MAIN, include: ['claudeCode*'], trust: true, extension: 'dev', client: 'claude-code-current' },
  { name: 'claude-code-newest', workspace: MAIN, include: ['claudeToolSearch*', 'claudeCodeHook*'], trust: true, extension: 'dev', client: 'claude-code-newest' },
  { name: 'codex', workspace: MAIN, include: ['codex*'], trust: true, extension: 'dev', client: 'codex' },
  { name: 'gemini', workspace: MAIN, include: ['gemini*'], trust: true, extension: 'dev', client: 'gemini' },
  { name: 'copilot-cli', workspace: MAIN, include: ['copilotCli*'], trust: true, extension: 'dev', client: 'copilot-cli' },
  { name: 'opencode', workspace: MAIN, include: ['opencode*'], trust: true, extension: 'dev', client: 'opencode' },
  // VS Code's Copilot harness (1.140+): its engine, the Copilot SDK, driven as VS Code's agent host
  // drives it, with what the set-up writes (code-server 4.139.1 has VS Code 1.139, no harness).
  { name: 'copilot-harness', workspace: MAIN, include: ['copilotHarness*'], trust: true, extension: 'dev', client: 'copilot-harness' },
  { name: 'kilo', workspace: MAIN, include: ['kilo*'], trust: true, extension: 'dev', client: 'kilo' },
  { name: 'qwen-code', workspace: MAIN, include: ['qwen*'], trust: true, extension: 'dev', client: 'qwen-code' },
  { name: 'cline', workspace: MAIN, include: ['cline*'], trust: true, extension: 'dev', client: 'cline' },
  // Two of them on one workspace: what one saved, the other's grep finds; a plan step one sets, the
  // other's briefing shows (Codex and Claude Code: the cheapest to start).
  { name: 'cross-agent', workspace: MAIN, include: ['crossAgent*'], trust: true, extension: 'dev', client: 'cross-agent' },
];

function globToRegExp(glob) {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
}

/** Compiled suite files (out/test/integration/suites/*.test.js) that a run selects. */
export function suiteFiles(run) {
  const dir = path.join(repoRoot, 'out/test/integration/suites');
  const src = path.join(repoRoot, 'test/integration/suites');
  if (!fs.existsSync(src)) return [];
  // Only suites that still have a source file: out/ may hold stale output of deleted suites.
  const names = fs.readdirSync(src).filter((f) => f.endsWith('.test.ts')).map((f) => f.replace(/\.ts$/, ''));
  const inc = run.include.map(globToRegExp);
  const exc = (run.exclude ?? []).map(globToRegExp);
  return names
    .filter((n) => inc.some((r) => r.test(n)) && !exc.some((r) => r.test(n)))
    .sort()
    .map((n) => path.join(dir, `${n}.js`));
}
