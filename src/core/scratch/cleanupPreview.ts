import { formatBytes, groupDigits, plural } from '../output/humanize';
import type { CleanupReport } from './scratchCleanup';
import type { RemovalReason, RetentionPolicy } from './retention';
import type { TerminalCleanupReport } from '../terminal/terminalRetention';

/** One folder's dry run with the policy it ran under (the settings may differ per folder). */
export interface PreviewInput {
  /** Folder name shown in a multi-root workspace; undefined with one folder. */
  folder?: string;
  report: CleanupReport;
  policy: RetentionPolicy;
  /** The same folder's terminal captures over `agentContext.terminals.maxAgeDays` (terminalRetention.ts). */
  terminals?: TerminalCleanupReport;
}

/** What the confirmation shows: a one-line question, the list, and the button's label. */
export interface CleanupPreview {
  /** Scratch files and terminal captures the cleanup would move to the trash (all folders). */
  count: number;
  bytes: number;
  message: string;
  detail: string;
  /** "Move 3 Files to Trash" ("Move to Trash" when terminal captures go too); undefined when there is nothing to move. */
  button?: string;
}

/** Lines of the list before "… and N more". */
export const PREVIEW_LINES = 15;

const REASON: Record<RemovalReason, (p: RetentionPolicy) => string> = {
  age: (p) => `older than ${hours(p.maxAgeHours)}`,
  count: (p) => `over ${groupDigits(p.maxFiles)} files`,
  size: (p) => `over ${groupDigits(p.maxTotalMB)} MB in all`,
};

function hours(h: number): string {
  return h % 24 === 0 && h >= 48 ? `${h / 24} days` : plural(h, 'hour');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The limits of a policy in words ("the limits remove files older than 24 hours, beyond 500 files, …"); limits set to 0 are left out. */
export function describeLimits(p: RetentionPolicy): string {
  const parts: string[] = [];
  if (p.maxAgeHours > 0) parts.push(`older than ${hours(p.maxAgeHours)}`);
  if (p.maxFiles > 0) parts.push(`beyond ${plural(p.maxFiles, 'file')}`);
  if (p.maxTotalMB > 0) parts.push(`beyond ${groupDigits(p.maxTotalMB)} MB`);
  if (parts.length === 0) return 'no limits are set (agentContext.scratch.maxAgeHours, maxFiles and maxTotalMB are all 0), so cleanup removes nothing';
  return `the limits remove files ${parts.join(', ')} (agentContext.scratch.* settings), and every other file is within them`;
}

/**
 * The text of Clean Up Scratch's confirmation, from dry runs: which files would go and why (the
 * limit each one breaks), what stays and which rule keeps it (pins, plans and evidence, the limits).
 */
export function describeCleanupPreview(inputs: readonly PreviewInput[]): CleanupPreview {
  const files = inputs.reduce((s, i) => s + i.report.removedCount, 0);
  const captures = inputs.reduce((s, i) => s + (i.terminals?.removed.length ?? 0), 0);
  const captureBytes = inputs.reduce((s, i) => s + (i.terminals?.removed.reduce((b, t) => b + t.bytes, 0) ?? 0), 0);
  const count = files + captures;
  const bytes = inputs.reduce((s, i) => s + i.report.removedBytes, 0) + captureBytes;
  const lines: string[] = [];
  let listed = 0;
  for (const { folder, report, policy } of inputs) {
    for (const item of report.removed) {
      if (listed++ >= PREVIEW_LINES) break;
      lines.push(`${folder ? `${folder}: ` : ''}${item.rel} (${formatBytes(item.size)}, ${REASON[item.reason](policy)})`);
    }
  }
  if (files > lines.length) lines.push(`… and ${plural(files - lines.length, 'more file')}`);
  const terminalLines: string[] = [];
  for (const { folder, terminals } of inputs) {
    for (const t of terminals?.removed ?? []) {
      if (terminalLines.length >= PREVIEW_LINES) break;
      terminalLines.push(`${folder ? `${folder}: ` : ''}terminals/${t.n}.txt, ${t.name} (${formatBytes(t.bytes)}, closed, not written for over ${plural(terminals!.maxAgeDays, 'day')})`);
    }
  }
  if (captures > terminalLines.length) terminalLines.push(`… and ${plural(captures - terminalLines.length, 'more terminal capture')}`);
  const kept: string[] = [];
  for (const { folder, report, policy } of inputs) {
    const k: string[] = [];
    if (report.keptPinned > 0) k.push(`${report.keptPinned} pinned`);
    if (report.keptProtected > 0) k.push(`${report.keptProtected} protected (plans, evidence, open terminals)`);
    kept.push(`${folder ? `${folder}: ` : ''}${capitalize(`${k.length ? `kept: ${k.join(', ')}; ` : ''}${describeLimits(policy)}.`)}`);
  }
  if (count === 0) {
    return { count, bytes, message: 'Nothing to clean up in scratch.', detail: kept.join('\n') };
  }
  const what = [
    ...(files > 0 ? [`${plural(files, 'scratch file')} (${formatBytes(bytes - captureBytes)})`] : []),
    ...(captures > 0 ? [`${plural(captures, 'closed terminal capture')} (${formatBytes(captureBytes)})`] : []),
  ].join(' and ');
  return {
    count,
    bytes,
    message: `Move ${what} to the trash?`,
    detail: [lines.join('\n'), terminalLines.join('\n'), kept.join('\n')].filter((x) => x !== '').join('\n\n'),
    button: captures > 0 ? 'Move to Trash' : `Move ${plural(files, 'File')} to Trash`,
  };
}
