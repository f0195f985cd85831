import { formatBytes, groupDigits, plural } from '../output/humanize';
import type { CleanupReport } from './cleanup';
import type { RemovalReason, RetentionPolicy } from './retention';

/** One folder's dry run with the policy it ran under (the settings may differ per folder). */
export interface PreviewInput {
  /** Folder name shown in a multi-root workspace; undefined with one folder. */
  folder?: string;
  report: CleanupReport;
  policy: RetentionPolicy;
}

/** What the confirmation shows: a one-line question, the list, and the button's label. */
export interface CleanupPreview {
  /** Files the cleanup would move to the trash (all folders). */
  count: number;
  bytes: number;
  message: string;
  detail: string;
  /** "Move 3 Files to Trash"; undefined when there is nothing to move. */
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
  const count = inputs.reduce((s, i) => s + i.report.removedCount, 0);
  const bytes = inputs.reduce((s, i) => s + i.report.removedBytes, 0);
  const lines: string[] = [];
  let listed = 0;
  for (const { folder, report, policy } of inputs) {
    for (const item of report.removed) {
      if (listed++ >= PREVIEW_LINES) break;
      lines.push(`${folder ? `${folder}: ` : ''}${item.rel} (${formatBytes(item.size)}, ${REASON[item.reason](policy)})`);
    }
  }
  if (count > lines.length) lines.push(`… and ${plural(count - lines.length, 'more file')}`);
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
  const what = `${plural(count, 'scratch file')} (${formatBytes(bytes)})`;
  return {
    count,
    bytes,
    message: `Move ${what} to the trash?`,
    detail: `${lines.join('\n')}\n\n${kept.join('\n')}`,
    button: `Move ${plural(count, 'File')} to Trash`,
  };
}
