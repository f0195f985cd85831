// Process hygiene for the harness: every process it starts (code-server and all its children,
// including pty shells that node-pty puts in sessions of their own, and Chromium) carries an
// environment marker naming the runner's pid. Cleanup kills the process group first, then sweeps
// /proc for anything still carrying our marker; a startup sweep removes leftovers of runners that
// died without cleaning up (SIGKILL, power loss).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const OWNER_VAR = 'AGENT_CONTEXT_HARNESS_OWNER';

/** The environment marker value for this runner process. */
export function ownerMarker() {
  return String(process.pid);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Pids of processes whose environment carries the marker, with the owner pid each names. */
export function markedProcesses() {
  const found = [];
  let entries = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return found;
  }
  const prefix = `${OWNER_VAR}=`;
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    let env;
    try {
      env = fs.readFileSync(`/proc/${e}/environ`, 'latin1');
    } catch {
      continue;
    }
    for (const kv of env.split('\0')) {
      if (kv.startsWith(prefix)) {
        found.push({ pid, owner: Number(kv.slice(prefix.length)) });
        break;
      }
    }
  }
  return found;
}

const tempDirs = new Set();

/**
 * A new private folder `<base>/<prefix><digits>`: mkdtemp's random part is letters and digits, and
 * letters can spell a keyword of the masking rules' prefilter ("sk", "pat", "key"): a hook then sends
 * a clean small output through Node instead of its fast path, because the folder it ran in holds a
 * keyword (src/hooks/fastPath.sh). Tests of the fast path in such a folder failed: the cold CI run at
 * c034c4c made its temp folder agent-context-tmp-mcsTSK and 6 hook tests failed there.
 */
export function digitTempDir(base, prefix) {
  for (let i = 0; ; i++) {
    const dir = path.join(base, `${prefix}${process.pid}${Math.floor(Math.random() * 1e9)}`);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      return dir;
    } catch (e) {
      if (e.code !== 'EEXIST' || i >= 100) throw e;
    }
  }
}

/**
 * Creates a temp dir (os.tmpdir()/agent-context-<name>-XXXX) owned by this runner: removed by
 * removeTempDir, at exit, or by a later runner's sweep if this one dies.
 */
export function makeTempDir(name) {
  const dir = digitTempDir(os.tmpdir(), `agent-context-${name}-`);
  fs.writeFileSync(path.join(dir, '.owner'), ownerMarker());
  tempDirs.add(dir);
  return dir;
}

/** Removes a temp dir made by makeTempDir (or keeps it: it then survives the exit handler too). */
export function removeTempDir(dir, keep = false) {
  tempDirs.delete(dir);
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
}

function sweepTempDirs() {
  let removed = 0;
  for (const e of fs.readdirSync(os.tmpdir())) {
    if (!e.startsWith('agent-context-')) continue;
    const dir = path.join(os.tmpdir(), e);
    let owner;
    try {
      owner = Number(fs.readFileSync(path.join(dir, '.owner'), 'utf8'));
    } catch {
      continue; // not ours, or kept on purpose (--keep removes the marker)
    }
    if (owner && owner !== process.pid && !alive(owner)) {
      fs.rmSync(dir, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** Kills processes (and removes temp dirs) left by runners that are gone (their owner pid no longer exists). */
export function sweepOrphans(log = () => {}) {
  const dirs = sweepTempDirs();
  if (dirs) log(`removed ${dirs} temp folder(s) left over by an earlier run`);
  const orphans = markedProcesses().filter((p) => p.owner !== process.pid && !alive(p.owner));
  for (const p of orphans) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  if (orphans.length) log(`killed ${orphans.length} process(es) left over by an earlier run`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Ends a detached child's whole process group (SIGTERM, then SIGKILL after a grace period), then
 * SIGKILLs anything else still carrying this runner's marker.
 */
export async function killGroup(child, graceMs = 3000) {
  if (child && child.pid && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* group already gone */
    }
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && alive(child.pid)) await sleep(100);
  }
  if (child && child.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** Kills every process carrying this runner's marker and waits (up to 5 s) until they are gone. */
export async function killMarkedAndWait() {
  const deadline = Date.now() + 5000;
  for (;;) {
    killMarked();
    const left = markedProcesses().filter((p) => p.owner === process.pid && !isZombie(p.pid));
    if (left.length === 0 || Date.now() > deadline) return left.length;
    await sleep(100);
  }
}

function isZombie(pid) {
  try {
    return / Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\)/, ' '));
  } catch {
    return true;
  }
}

/** SIGKILLs every process that carries this runner's marker (synchronous: usable in 'exit'). */
export function killMarked() {
  for (const p of markedProcesses()) {
    if (p.owner !== process.pid) continue;
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const cleanups = new Set();
let handlersInstalled = false;

/**
 * Registers a cleanup to run on normal completion, a thrown error, SIGINT, SIGTERM or SIGHUP.
 * Returns a function that runs it once (and unregisters it).
 */
export function onCleanup(fn) {
  installHandlers();
  let done = false;
  const run = async () => {
    if (done) return;
    done = true;
    cleanups.delete(run);
    await fn();
  };
  cleanups.add(run);
  return run;
}

/**
 * onCleanup for a script that runs one editor and one browser on a temp folder made by makeTempDir:
 * closes the browser, stops the editor, waits for every process it marked and removes `base`.
 * `running()` gives what is up at that moment.
 */
export function onEditorCleanup(base, running) {
  return onCleanup(async () => {
    const { browser, server } = running();
    await browser?.close();
    await server?.stop();
    await killMarkedAndWait();
    removeTempDir(base);
  });
}

async function runAllCleanups() {
  for (const c of [...cleanups].reverse()) {
    try {
      await c();
    } catch (e) {
      console.error('[harness] cleanup failed:', e);
    }
  }
}

function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, async () => {
      console.error(`\n[harness] ${sig}: stopping code-server and the browser`);
      const hardStop = setTimeout(() => {
        killMarked();
        process.exit(130);
      }, 15_000);
      await runAllCleanups();
      killMarked();
      clearTimeout(hardStop);
      process.exit(130);
    });
  }
  // Last resort if something exits the process without running the async cleanups.
  process.on('exit', () => {
    killMarked();
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
  });
}
