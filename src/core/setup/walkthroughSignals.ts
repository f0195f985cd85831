import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The files whose appearance completes a step of the "Get started with Agent Context" walkthrough.
 * Each `key` becomes the context key `agentContext.walkthrough.<key>` that package.json's
 * `completionEvents` (`onContext:...`) wait for; `glob` is relative to a workspace folder.
 */
export const WALKTHROUGH_SIGNALS = [
  { key: 'agentFolder', glob: '.agent' },
  { key: 'instructions', glob: '.agent/instructions.json' },
  { key: 'terminalCaptured', glob: '.agent/terminals/*.txt' },
  { key: 'toolUsed', glob: '.agent/history/tools*.jsonl' },
  { key: 'pinned', glob: '.agent/pins.json' },
  { key: 'noted', glob: '.agent/human/notes/*.md' },
] as const;

/** A walkthrough signal's key. */
export type WalkthroughSignal = (typeof WALKTHROUGH_SIGNALS)[number]['key'];

/** The context key a signal sets. */
export function walkthroughContextKey(key: WalkthroughSignal): string {
  return `agentContext.walkthrough.${key}`;
}

function matches(root: string, glob: string): boolean {
  const star = glob.indexOf('*');
  if (star === -1) return fs.existsSync(path.join(root, glob));
  // Only `dir/prefix*suffix` shapes are used: one readdir, no recursive walk.
  const dir = path.join(root, path.posix.dirname(glob));
  const [prefix, suffix] = path.posix.basename(glob).split('*');
  try {
    return fs.readdirSync(dir).some((n) => n.startsWith(prefix) && n.endsWith(suffix) && !n.startsWith('.'));
  } catch {
    return false;
  }
}

/** The signals already present in a workspace folder (a few stat/readdir calls). */
export function detectWalkthroughSignals(root: string): WalkthroughSignal[] {
  return WALKTHROUGH_SIGNALS.filter((s) => matches(root, s.glob)).map((s) => s.key);
}

/** True when a workspace-relative path (`/`-separated) is one that completes the signal. */
export function pathCompletesSignal(rel: string, key: WalkthroughSignal): boolean {
  const glob = WALKTHROUGH_SIGNALS.find((s) => s.key === key)?.glob ?? '';
  const star = glob.indexOf('*');
  if (star === -1) return rel === glob;
  const dir = path.posix.dirname(glob);
  const [prefix, suffix] = path.posix.basename(glob).split('*');
  const base = path.posix.basename(rel);
  return path.posix.dirname(rel) === dir && base.startsWith(prefix) && base.endsWith(suffix) && !base.startsWith('.');
}
