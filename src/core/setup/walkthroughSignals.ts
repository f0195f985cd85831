import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentRel } from '../workspace/layout';

/**
 * What completes a step of the "Get started with Agent Context" walkthrough (`step`, its id in
 * package.json): the file whose presence in the open workspace proves the step's action succeeded
 * (`glob`, relative to a workspace folder), or, for `cleanedUp`, the cleanup command having run in
 * this workspace (no file proves it; the editor keeps it in the workspace's state). Each `key` is
 * the context key `agentContext.walkthrough.<key>`, true while the signal holds in this window's
 * workspace, which package.json's `completionEvents` wait for.
 */
export const WALKTHROUGH_SIGNALS = [
  { key: 'agentFolder', step: 'initialize', glob: '.agent' },
  { key: 'instructions', step: 'instructions', glob: '.agent/instructions.json' },
  // The index gets its first record when a command's capture begins (N.txt alone is an open terminal).
  { key: 'terminalCaptured', step: 'terminal', glob: `${agentRel('terminals')}/*.index.jsonl` },
  { key: 'toolUsed', step: 'tool', glob: `${agentRel('history')}/tools*.jsonl` },
  { key: 'pinned', step: 'pin', glob: '.agent/pins.json' },
  { key: 'noted', step: 'note', glob: `${agentRel('notes')}/*.md` },
  { key: 'cleanedUp', step: 'cleanup', glob: undefined },
] as const;

/** The internal command (not in the palette) other features run when a step's action succeeded: `(key)`. */
export const WALKTHROUGH_SIGNAL_COMMAND = 'agentContext.walkthrough.signal';

/** The walkthrough's full id, as `workbench.action.openWalkthrough` takes it. */
export const WALKTHROUGH_ID = 'agent-context.agent-context#agentContext.getStarted';

/** The `completionEvents` of package.json for a signal (a unit test keeps them in sync). */
export function walkthroughCompletionEvents(key: WalkthroughSignal): string[] {
  return [`onContext:${walkthroughContextKey(key)}`];
}

/** A walkthrough signal's key. */
export type WalkthroughSignal = (typeof WALKTHROUGH_SIGNALS)[number]['key'];

/** The context key a signal sets. */
export function walkthroughContextKey(key: WalkthroughSignal): string {
  return `agentContext.walkthrough.${key}`;
}

/** The full id of a signal's step, as VS Code's walkthrough service names it (`<extension>#<walkthrough>#<step>`). */
export function walkthroughStepId(key: WalkthroughSignal): string {
  return `${WALKTHROUGH_ID}#${WALKTHROUGH_SIGNALS.find((s) => s.key === key)!.step}`;
}

function matches(root: string, glob: string | undefined): boolean {
  if (glob === undefined) return false;
  const star = glob.indexOf('*');
  if (star === -1) return fs.existsSync(path.join(root, glob));
  // Only `dir/prefix*suffix` shapes are used: the folder is read until the first match, no
  // recursive walk (a folder of 10,000 notes cost a full readdir at every start-up).
  const dir = path.join(root, path.posix.dirname(glob));
  const [prefix, suffix] = path.posix.basename(glob).split('*');
  let d: fs.Dir | undefined;
  try {
    d = fs.opendirSync(dir, { bufferSize: 32 });
    for (let e = d.readSync(); e; e = d.readSync()) if (e.name.startsWith(prefix) && e.name.endsWith(suffix) && !e.name.startsWith('.')) return true;
    return false;
  } catch {
    return false;
  } finally {
    d?.closeSync();
  }
}

/** The signals already present in a workspace folder (a few stat/readdir calls). */
export function detectWalkthroughSignals(root: string): WalkthroughSignal[] {
  return WALKTHROUGH_SIGNALS.filter((s) => matches(root, s.glob)).map((s) => s.key);
}

/** True when a workspace-relative path (`/`-separated) is one that completes the signal. */
export function pathCompletesSignal(rel: string, key: WalkthroughSignal): boolean {
  const glob = WALKTHROUGH_SIGNALS.find((s) => s.key === key)?.glob;
  if (glob === undefined) return false;
  const star = glob.indexOf('*');
  if (star === -1) return rel === glob;
  const dir = path.posix.dirname(glob);
  const [prefix, suffix] = path.posix.basename(glob).split('*');
  const base = path.posix.basename(rel);
  return path.posix.dirname(rel) === dir && base.startsWith(prefix) && base.endsWith(suffix) && !base.startsWith('.');
}
