// The demo: a sample workspace with a plan, scratch files, skills and a noisy build script, and a
// persistent code-server profile under $CACHE/demo with the packaged extension installed.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { editorSettings, installExtensions, prepareProfile } from './codeServer.mjs';
import { cleanNpmEnv, ensureDeps, repoRoot } from './deps.mjs';

export const VSIX = path.join(repoRoot, 'agent-context.vsix');

const FILES = {
  'README.md': `# Demo: rate limiting for a small API

This workspace shows **Agent Context**. Open the *Agent Context* entry in the Activity Bar:

- **Plan** shows \`.agent/plan.yaml\`: right-click a step to change its status (comments survive).
- **Scratch** lists the agent's working files in \`.agent/scratch/\`; pin one, or clean up.
- **Skills** lists \`.agent/skills/*/SKILL.md\`.

Then open a terminal (\`\` Ctrl+\` \`\`, or Terminal > New Terminal) and run \`./noisy-build.sh\`: it prints 2,000 lines with two
errors. The terminal is mirrored under \`.agent/terminals/\`, and the agent can ask for the
failing command's lines instead of the whole dump.
`,
  'noisy-build.sh': `#!/usr/bin/env bash
# Prints a long build log with a warning and two errors, then fails (exit 1).
for i in $(seq 1 2000); do
  echo "[build] compiling module $i/2000 (src/module_$i.ts)"
  if [ "$i" = 700 ]; then echo "warning: src/module_700.ts: unused variable 'limit'"; fi
  if [ "$i" = 1337 ]; then echo "error TS2322: src/module_1337.ts(12,5): Type 'string' is not assignable to type 'number'."; fi
done
echo "error: build failed with 1 error"
exit 1
`,
  'src/limiter.ts': `/** A token bucket: \`capacity\` tokens, refilled at \`ratePerSec\`. */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();
  constructor(private readonly capacity: number, private readonly ratePerSec: number) {
    this.tokens = capacity;
  }
  /** Takes one token if there is one. */
  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.ratePerSec);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
`,
  '.agent/plan.yaml': `# The agent's plan: re-read every turn, statuses updated as work goes.
objective: "Add rate limiting to the public API"   # ticket API-142
status: in_progress
steps:
  - id: 1
    description: "Find every public endpoint"
    status: completed   # see scratch/endpoints.md
    evidence:
      - .agent/scratch/endpoints.md
  - id: 2
    description: "Choose a limiter (token bucket vs sliding window)"
    status: completed
    notes: |
      Token bucket: simpler, O(1) memory per client.
  - id: 3
    description: "Implement the middleware"
    status: in_progress
    notes: "src/limiter.ts has the bucket; wire it into the router next"
  - id: 4
    description: "Make the build pass (./noisy-build.sh)"
    status: pending
  - id: 5
    description: "Load-test with 1,000 clients"
    status: pending
`,
  '.agent/scratch/endpoints.md': `# Public endpoints (found by grep)
- GET /items
- GET /items/:id
- POST /items
- POST /login
`,
  '.agent/scratch/limiter-notes.md': `# Limiter notes
Token bucket vs sliding window: the bucket needs two numbers per client.
Burst of 20, 5 requests/s sustained.
`,
  '.agent/scratch/tool_outputs/grep-routes.txt': `src/routes.ts:12: router.get('/items', listItems)
src/routes.ts:13: router.get('/items/:id', getItem)
src/routes.ts:14: router.post('/items', createItem)
src/routes.ts:20: router.post('/login', login)
`,
  '.agent/skills/load-testing/SKILL.md': `---
name: load-testing
description: Load-test an HTTP API with autocannon and read the latency percentiles.
---
# Load testing
1. Start the server: \`npm start\`.
2. Run \`npx autocannon -c 1000 -d 30 http://localhost:3000/items\`.
3. Read p99 latency and the non-2xx count; write them to .agent/scratch/loadtest.md.
`,
  '.agent/skills/code-review/SKILL.md': `---
name: code-review
description: Review a diff for correctness, tests and naming before committing.
---
# Code review
1. Does every change have a test?
2. Are names what they hold?
3. Is the error message actionable?
`,
};

/** Writes the demo workspace into dir (files that exist are left alone). */
export function writeDemoWorkspace(dir) {
  for (const [rel, text] of Object.entries(FILES)) {
    const file = path.join(dir, rel);
    if (fs.existsSync(file)) continue;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text, { mode: rel.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

/** Builds and packages the extension (npm run package). Throws when it fails. */
export function packageExtension() {
  const r = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'], env: cleanNpmEnv() });
  if (r.status !== 0) throw new Error(`npm run package failed (exit ${r.status})`);
}

/**
 * A code-server profile (user data, extensions, config) under `base` with the packaged extension
 * installed. User settings already there win over the demo defaults.
 */
export function demoProfile(base, overrides = {}) {
  const settingsFile = path.join(base, 'user-data', 'User', 'settings.json');
  let existing = {};
  try {
    existing = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  } catch {
    /* first start, or settings the user broke: start from the defaults */
  }
  const profile = prepareProfile(base, { ...editorSettings({ 'workbench.startupEditor': 'readme' }), ...existing, ...overrides });
  installExtensions(profile, [VSIX]);
  return profile;
}

/** Where the persistent demo profile lives (AGENT_CONTEXT_DEMO_DIR: elsewhere, e.g. a check's temp folder). */
export function demoBase() {
  if (process.env.AGENT_CONTEXT_DEMO_DIR) return path.resolve(process.env.AGENT_CONTEXT_DEMO_DIR);
  return path.join(ensureDeps(['editor']).CACHE ?? path.join(process.env.HOME ?? '/tmp', '.cache/agent-context'), 'demo');
}
