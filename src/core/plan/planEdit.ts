import * as fs from 'node:fs';
import { isMap, isScalar, isSeq, parse, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { writeFileAtomic } from '../fs/fsAtomic';
import { withFileLock } from '../fs/fileLock';
import { err, ok, Result } from '../result';
import { isMarkdownPlanName, readPlanBytes, updateMarkdownPlanFile } from './markdownPlan';
import { isStepStatus, parsePlanSource, ParsedPlanSource, Plan, StepStatus, validatePlan } from './planDocument';
import { fsCause } from '../fs/fsErrors';

/** An edit to a plan file. Every edit touches only the bytes of the value it changes. */
export type PlanEdit =
  | { kind: 'setStatus'; stepId: string; status: StepStatus }
  | { kind: 'setNotes'; stepId: string; notes: string }
  | { kind: 'addStep'; description: string; status?: StepStatus; id?: string; notes?: string };

interface Splice {
  start: number;
  end: number;
  text: string;
}

type Range = [number, number, number];

/**
 * Applies an edit by splicing the original text at the node's source range, so comments,
 * ordering, quoting, indentation, long lines and CRLF outside the edited value stay byte-identical.
 */
export function applyPlanEdit(text: string, edit: PlanEdit, file = 'plan.yaml'): Result<string> {
  const parsed = parsePlanSource(text, file);
  if (!parsed.ok) return parsed;
  const valid = validatePlan(parsed.value, file);
  if (!valid.ok) return valid;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const splice = planSplice(parsed.value, valid.value, edit, eol, file);
  if (!splice.ok) return splice;
  const s = splice.value;
  const out = text.slice(0, s.start) + s.text + text.slice(s.end);
  // Safety net: the result must still be a valid plan carrying the new value, or nothing is written.
  const check = parsePlan2(out, file);
  if (!check.ok) return err({ ...check.error, message: `the edit would break the plan (${check.error.message}); nothing was changed` });
  if (!editVisible(check.value, edit)) return err({ file, message: 'the edit did not produce the expected value; nothing was changed' });
  return ok(out);
}

function parsePlan2(text: string, file: string): Result<Plan> {
  const p = parsePlanSource(text, file);
  return p.ok ? validatePlan(p.value, file) : p;
}

function editVisible(plan: Plan, edit: PlanEdit): boolean {
  if (edit.kind === 'addStep') {
    return plan.steps.some((s) => s.description === edit.description && (edit.id === undefined || s.id === edit.id));
  }
  const step = plan.steps.find((s) => s.id === edit.stepId);
  if (!step) return false;
  return edit.kind === 'setStatus' ? step.status === edit.status : (step.notes ?? '') === edit.notes;
}

function planSplice(src: ParsedPlanSource, plan: Plan, edit: PlanEdit, eol: string, file: string): Result<Splice> {
  const root = src.doc.contents as YAMLMap;
  const stepsNode = root.get('steps', true) as YAMLSeq | Scalar | undefined;
  if (edit.kind === 'addStep') {
    if (edit.status !== undefined && !isStepStatus(edit.status)) return err({ file, message: `unknown status "${String(edit.status)}"` });
    if (edit.description.trim() === '') return err({ file, message: 'a new step needs a description' });
    const id = edit.id ?? nextStepId(plan);
    if (plan.steps.some((s) => s.id === id)) return err({ file, message: `a step with id "${id}" already exists` });
    return addStepSplice(src, root, stepsNode, { id, description: edit.description, status: edit.status ?? 'pending', notes: edit.notes }, eol);
  }
  if (edit.kind === 'setStatus' && !isStepStatus(edit.status)) return err({ file, message: `unknown status "${String(edit.status)}"` });
  const index = plan.steps.findIndex((s) => s.id === edit.stepId);
  if (index < 0 || !isSeq(stepsNode)) return err({ file, message: `no step with id "${edit.stepId}"; it may have been removed` });
  const stepMap = stepsNode.items[index] as YAMLMap;
  const key = edit.kind === 'setStatus' ? 'status' : 'notes';
  const value = edit.kind === 'setStatus' ? edit.status : edit.notes;
  const pair = stepMap.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Scalar, Scalar> | undefined;
  if (pair && isScalar(pair.value)) return ok(replaceScalar(src.text, pair, value, eol));
  if (pair) return err({ file, line: src.lines.linePos((pair.key.range as Range)[0]).line, message: `"${key}" of step "${edit.stepId}" is not a plain value; edit it by hand` });
  return ok(insertPair(src, stepMap, key, value, eol));
}

/** The next id: one more than the largest numeric id, or `step-N` when ids are not all numbers. */
function nextStepId(plan: Plan): string {
  if (plan.steps.every((s) => /^\d+$/.test(s.id))) {
    return String(plan.steps.reduce((m, s) => Math.max(m, Number(s.id)), 0) + 1);
  }
  let n = plan.steps.length + 1;
  while (plan.steps.some((s) => s.id === `step-${n}`)) n++;
  return `step-${n}`;
}

/** Formats a single-line scalar: plain when it reads back as the same string, else double-quoted. */
function inlineScalar(value: string): string {
  if (value !== '' && !/[\r\n]/.test(value) && value.trim() === value && !/^[-?:,[\]{}#&*!|>'"%@`]/.test(value) && !/(: |\s#)/.test(value)) {
    try {
      if ((parse(`k: ${value}`) as { k: unknown }).k === value) return value;
    } catch {
      // fall through to quoting
    }
  }
  return JSON.stringify(value);
}

/** A block literal (`|` / `|-`) for multi-line text, indented for content at `indent` columns. */
function blockLiteral(value: string, indent: number, eol: string): string | undefined {
  const body = value.endsWith('\n') ? value.slice(0, -1) : value;
  if (body.endsWith('\n') || /^[ \t]/.test(body) || body.includes('\r')) return undefined;
  const pad = ' '.repeat(indent);
  const lines = body.split('\n').map((l) => (l === '' ? '' : pad + l));
  return (value.endsWith('\n') ? '|' : '|-') + eol + lines.join(eol);
}

function replaceScalar(text: string, pair: Pair<Scalar, Scalar>, value: string, eol: string): Splice {
  const v = pair.value as Scalar;
  const [start, valueEnd] = v.range as Range;
  const old = text.slice(start, valueEnd);
  if (old === '') {
    // `key:` with no value: the null scalar's range is empty and sits right after the colon.
    return { start, end: start, text: (text[start - 1] === ':' ? ' ' : '') + JSON.stringify(value) };
  }
  let out: string;
  switch (v.type) {
    case Scalar.QUOTE_SINGLE:
      out = /[\r\n]/.test(value) ? JSON.stringify(value) : `'${value.replace(/'/g, "''")}'`;
      break;
    case Scalar.QUOTE_DOUBLE:
      out = JSON.stringify(value);
      break;
    case Scalar.BLOCK_LITERAL:
    case Scalar.BLOCK_FOLDED: {
      const indent = contentIndent(text, start) ?? columnOf(text, (pair.key.range as Range)[0]) + 2;
      const block = /\n/.test(value) ? blockLiteral(value, indent, eol) : undefined;
      // A block scalar's range ends after its line break; a replacement must end with one too.
      out = (block ?? JSON.stringify(value)) + (old.endsWith('\n') ? eol : '');
      break;
    }
    default:
      out = inlineScalar(value);
  }
  return { start, end: valueEnd, text: out };
}

/** The indentation of a block scalar's first content line (the line after its indicator). */
function contentIndent(text: string, indicatorAt: number): number | undefined {
  const nl = text.indexOf('\n', indicatorAt);
  if (nl < 0) return undefined;
  const m = /^( *)\S/.exec(text.slice(nl + 1));
  return m ? m[1].length : undefined;
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1);
}

/** Where to insert whole lines after a node that ends at `valueEnd`: the start of the next line. */
function lineAfter(text: string, valueEnd: number, eol: string): { at: number; prefix: string } {
  if (valueEnd > 0 && text[valueEnd - 1] === '\n') return { at: valueEnd, prefix: '' };
  const nl = text.indexOf('\n', valueEnd);
  return nl < 0 ? { at: text.length, prefix: eol } : { at: nl + 1, prefix: '' };
}

function insertPair(src: ParsedPlanSource, map: YAMLMap, key: string, value: string, eol: string): Splice {
  const text = src.text;
  const range = map.range as Range;
  if (map.flow) {
    // `{id: 2, status: pending}`: add `, key: value` before the closing brace.
    const close = text.lastIndexOf('}', range[1]);
    return { start: close, end: close, text: `, ${key}: ${JSON.stringify(value)}` };
  }
  const indent = columnOf(text, ((map.items[0].key as Scalar).range as Range)[0]);
  const v = key === 'notes' && value.includes('\n') ? blockLiteral(value, indent + 2, eol) : undefined;
  const { at, prefix } = lineAfter(text, range[1], eol);
  // At the end of a file without a final newline the new line goes after one and gets none itself.
  const line = `${' '.repeat(indent)}${key}: ${v ?? inlineScalar(value)}`;
  return { start: at, end: at, text: prefix ? prefix + line : line + eol };
}

interface NewStep {
  id: string;
  description: string;
  status: StepStatus;
  notes?: string;
}

function idScalar(id: string): string {
  return /^\d+$/.test(id) ? id : inlineScalar(id);
}

function addStepSplice(src: ParsedPlanSource, root: YAMLMap, stepsNode: YAMLSeq | Scalar | undefined, step: NewStep, eol: string): Result<Splice> {
  const text = src.text;
  const stepLines = (dash: number, keyIndent: number): string => {
    const pad = ' '.repeat(keyIndent);
    const lines = [
      `${' '.repeat(dash)}-${' '.repeat(Math.max(1, keyIndent - dash - 1))}id: ${idScalar(step.id)}`,
      `${pad}description: ${JSON.stringify(step.description)}`,
      `${pad}status: ${step.status}`,
    ];
    if (step.notes !== undefined) lines.push(`${pad}notes: ${(step.notes.includes('\n') && blockLiteral(step.notes, keyIndent + 2, eol)) || inlineScalar(step.notes)}`);
    return lines.join(eol) + eol;
  };
  if (isSeq(stepsNode) && stepsNode.flow) {
    const range = stepsNode.range as Range;
    const close = text.lastIndexOf(']', range[1]);
    const item = `{id: ${idScalar(step.id)}, description: ${JSON.stringify(step.description)}, status: ${step.status}${step.notes !== undefined ? `, notes: ${JSON.stringify(step.notes)}` : ''}}`;
    return ok({ start: close, end: close, text: (stepsNode.items.length > 0 ? ', ' : '') + item });
  }
  if (isSeq(stepsNode) && stepsNode.items.length > 0) {
    const first = stepsNode.items[0] as YAMLMap;
    const dash = columnOf(text, (stepsNode.range as Range)[0]);
    const firstKey = isMap(first) && first.items.length > 0 ? ((first.items[0].key as Scalar).range as Range)[0] : undefined;
    const keyIndent = firstKey !== undefined ? columnOf(text, firstKey) : dash + 2;
    const last = stepsNode.items[stepsNode.items.length - 1] as YAMLMap;
    const { at, prefix } = lineAfter(text, (last.range as Range)[1], eol);
    const body = stepLines(dash, keyIndent);
    return ok({ start: at, end: at, text: prefix ? prefix + body.slice(0, -eol.length) : body });
  }
  // No steps yet (`steps:` with no value, or no key at all): add a block list after the key.
  const indent = rootIndent(text, root) + 2;
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'steps');
  if (pair) {
    const { at, prefix } = lineAfter(text, ((pair.key as Scalar).range as Range)[1], eol);
    return ok({ start: at, end: at, text: prefix + stepLines(indent, indent + 2) });
  }
  const prefix = text === '' || text.endsWith('\n') ? '' : eol;
  return ok({ start: text.length, end: text.length, text: `${prefix}steps:${eol}${stepLines(indent, indent + 2)}` });
}

function rootIndent(text: string, root: YAMLMap): number {
  const first = root.items[0]?.key as Scalar | undefined;
  return first?.range ? columnOf(text, first.range[0]) : 0;
}

/** A plan file as read from disk: its text and modification time, to detect concurrent changes. */
export interface PlanFileVersion {
  text: string;
  mtimeMs: number;
}

/** Reads a plan file and returns its text and mtime (for a later updatePlanFile). */
export async function readPlanVersion(file: string): Promise<Result<PlanFileVersion>> {
  // The same checks as a read for display (size, NUL bytes, UTF-8): a plan that is not read is not rewritten either.
  const r = await readPlanBytes(file);
  return r.ok ? ok({ text: r.value.text, mtimeMs: r.value.mtimeMs }) : r;
}

/**
 * Applies an edit to a plan file on disk, atomically. Refuses when the file differs from
 * `expected` (what the caller last read) or changes while the edit is being made.
 *
 * The read-modify-write holds the file's lock (withFileLock, as memory writes do): two of our
 * processes (editor windows, MCP servers) editing at the same moment used to both read the old
 * text, both pass the "changed on disk" check and both rename their result into place, so one
 * "Updated." step was lost (the concurrency soak, bench row 16, lost 2 of 31 addSteps in 60 s).
 * The check stays for writers that take no lock (a person saving the file in an editor).
 */
export async function updatePlanFile(file: string, edit: PlanEdit, expected?: Partial<PlanFileVersion>): Promise<Result<{ text: string; plan: Plan }>> {
  try {
    return await withFileLock(file, () => updatePlanFileLocked(file, edit, expected));
  } catch (e) {
    // The lock could not be taken (held past its wait, or not writable): nothing was changed.
    return err({ file, message: `not changed: ${fsCause(e)}` });
  }
}

async function updatePlanFileLocked(file: string, edit: PlanEdit, expected?: Partial<PlanFileVersion>): Promise<Result<{ text: string; plan: Plan }>> {
  if (isMarkdownPlanName(file)) {
    if (edit.kind !== 'setStatus') {
      return err({ file, message: `Markdown plans take setStatus only (the box of a checklist item); ${edit.kind === 'addStep' ? 'add the item' : 'write the notes'} in the file itself` });
    }
    return updateMarkdownPlanFile(file, edit.stepId, edit.status, expected);
  }
  const changed = () => err({ file, message: 'the file changed on disk since it was read; nothing was written. Look at the refreshed plan and try again' });
  const lst = await fs.promises.lstat(file).catch(() => undefined);
  if (!lst) return err({ file, message: 'the plan file no longer exists' });
  if (lst.isSymbolicLink()) return err({ file, message: 'is a symbolic link; edit the file it points to instead' });
  const before = await readPlanVersion(file);
  if (!before.ok) return before;
  if (expected?.text !== undefined && expected.text !== before.value.text) return changed();
  if (expected?.mtimeMs !== undefined && expected.mtimeMs !== before.value.mtimeMs) return changed();
  const out = applyPlanEdit(before.value.text, edit, file);
  if (!out.ok) return out;
  const now = await readPlanVersion(file);
  if (!now.ok) return now;
  if (now.value.text !== before.value.text || now.value.mtimeMs !== before.value.mtimeMs) return changed();
  try {
    await writeFileAtomic(file, out.value);
  } catch (e) {
    return err({ file, message: `not changed: ${fsCause(e)}` });
  }
  const plan = parsePlan2(out.value, file);
  return plan.ok ? ok({ text: out.value, plan: plan.value }) : plan;
}
