/**
 * Markdown plans (`.agent/plan.md`, `.agent/plans/*.md`, where Claude Code's plan mode writes):
 * the first heading is the title, checklist items (`- [ ]`, `* [x]`, `1. [ ]`, nested) are the
 * steps, the other headings are sections. Editing a step changes the one character between its
 * brackets and nothing else.
 *
 * Box characters: ` ` pending, `x`/`X` completed, `/` in progress (the Obsidian Tasks convention;
 * `~` is read as in progress too), `!` blocked, `-` cancelled. Only `[ ]` and `[x]` render as
 * checkboxes on GitHub; the others read as plain text there, which is why they are used only
 * when a status other than pending/completed is asked for.
 */
import * as fs from 'node:fs';
import { writeFileAtomic } from '../fs/fsAtomic';
import { decodeUtf8Strict, NOT_UTF8 } from '../fs/strictText';
import { err, ok, Result } from '../result';
import { isStepStatus, Plan, PlanSection, PlanStep, StepStatus } from './planDocument';
import { fsCause } from '../fs/fsErrors';

/** Box character → status. */
const MARK_STATUS: Readonly<Record<string, StepStatus>> = { ' ': 'pending', x: 'completed', X: 'completed', '/': 'in_progress', '~': 'in_progress', '!': 'blocked', '-': 'cancelled' };
/** Status → the box character written for it. */
export const STATUS_MARK: Readonly<Record<StepStatus, string>> = { pending: ' ', completed: 'x', in_progress: '/', blocked: '!', cancelled: '-' };

/** Plans larger than this are not read (a plan is a page, not a log). */
export const PLAN_MAX_BYTES = 1024 * 1024;

/** True for a Markdown plan file name. */
export function isMarkdownPlanName(name: string): boolean {
  return /\.(md|markdown)$/i.test(name);
}

interface ScannedItem {
  step: PlanStep;
  /** UTF-16 index of the box character in the text. */
  markAt: number;
}

interface Scan {
  title?: { text: string; line: number };
  items: ScannedItem[];
  sections: PlanSection[];
}

const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+)(.*)$/;
const CHECKBOX = /^\[([ xX/~!-])\](?:[ \t]+(.*))?$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const FENCE = /^[ \t]*(`{3,}|~{3,})(.*)$/;

/** Width of leading whitespace with tabs to the next multiple of 4 (CommonMark's tab stop). */
function columns(ws: string): number {
  let c = 0;
  for (const ch of ws) c = ch === '\t' ? c + 4 - (c % 4) : c + 1;
  return c;
}

/** Display text of an item or heading: links as their label, emphasis markers dropped. */
export function inlineText(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/<!--.*?-->/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One pass over the lines: headings, checklist items with their box offsets, plain list items. */
function scan(text: string): Scan {
  const out: Scan = { items: [], sections: [] };
  let pos = text.startsWith('\uFEFF') ? 1 : 0;
  let lineNo = 0;
  let fence: { ch: string; len: number } | undefined;
  let inComment = false;
  let para: { line: number; text: string[] } | undefined;
  let listOpen = false;
  let blankBefore = false;
  // Open checklist items by indentation, for nesting; plain list items likewise, for the outline.
  let stack: { indent: number; step: PlanStep }[] = [];
  let plainStack: number[] = [];
  const addHeading = (title: string, line: number, level: number) => {
    if (!out.title) {
      out.title = { text: title, line };
      return;
    }
    let parent: number | undefined;
    for (let i = out.sections.length - 1; i >= 0; i--) {
      if (out.sections[i].level < level) {
        parent = i;
        break;
      }
    }
    out.sections.push({ title, line, level, parent, items: [] });
  };
  const endList = () => {
    listOpen = false;
    stack = [];
    plainStack = [];
  };
  // YAML front matter (`---` on the first line up to the next `---` or `...`) is skipped whole.
  const front = /^---[ \t]*\r?\n(?:[^\n]*\n)*?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text.slice(pos));
  if (front) {
    pos += front[0].length;
    lineNo = (front[0].match(/\n/g) ?? []).length;
    if (!front[0].endsWith('\n')) pos = text.length + 1;
  }
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl;
    const start = pos;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    lineNo++;
    pos = end + 1;
    if (nl < 0 && line === '' && lineNo > 1) break;
    const blank = line.trim() === '';

    if (fence) {
      const m = /^[ \t]*(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (m && m[1][0] === fence.ch && m[1].length >= fence.len) fence = undefined;
      continue;
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith('<!--') && !trimmed.includes('-->', 4)) {
      inComment = true;
      para = undefined;
      continue;
    }
    const f = FENCE.exec(line);
    if (f && !(f[1][0] === '`' && f[2].includes('`'))) {
      fence = { ch: f[1][0], len: f[1].length };
      para = undefined;
      continue;
    }
    if (blank) {
      para = undefined;
      blankBefore = true;
      continue;
    }
    const indentWs = /^[ \t]*/.exec(line)![0];
    const indent = columns(indentWs);
    const atx = indent < 4 ? ATX.exec(line) : null;
    if (atx) {
      const title = inlineText((atx[2] ?? '').replace(/(^|[ \t]+)#+$/, ''));
      addHeading(title, lineNo, atx[1].length);
      para = undefined;
      endList();
      blankBefore = false;
      continue;
    }
    const setext = indent < 4 && para ? SETEXT.exec(line) : null;
    if (setext && para) {
      addHeading(inlineText(para.text.join(' ')), para.line, setext[1][0] === '=' ? 1 : 2);
      para = undefined;
      endList();
      blankBefore = false;
      continue;
    }
    if (indent < 4 && THEMATIC.test(line)) {
      para = undefined;
      endList();
      blankBefore = false;
      continue;
    }
    // An indented line outside a list is an indented code block: nothing in it is an item.
    if (indent >= 4 && !listOpen) {
      blankBefore = false;
      continue;
    }
    const li = LIST_ITEM.exec(line);
    if (li) {
      listOpen = true;
      para = undefined;
      blankBefore = false;
      const box = CHECKBOX.exec(li[4]);
      if (box) {
        while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
        const parent = stack[stack.length - 1]?.step;
        const id = String(out.items.length + 1);
        const step: PlanStep = {
          id,
          description: inlineText(box[2] ?? ''),
          status: MARK_STATUS[box[1]],
          line: lineNo,
          depth: parent ? (parent.depth ?? 0) + 1 : 0,
          ...(parent ? { parentId: parent.id } : {}),
          ...(out.sections.length > 0 ? { section: out.sections.length - 1 } : {}),
        };
        stack.push({ indent, step });
        out.items.push({ step, markAt: start + li[1].length + li[2].length + li[3].length + 1 });
      } else {
        while (plainStack.length > 0 && plainStack[plainStack.length - 1] >= indent) plainStack.pop();
        const sec = out.sections[out.sections.length - 1];
        if (plainStack.length === 0 && sec && sec.items.length < 200) sec.items.push({ text: inlineText(li[4]), line: lineNo });
        plainStack.push(indent);
      }
      continue;
    }
    // A paragraph line at the left margin after a blank line ends the list.
    if (blankBefore && indent === 0) endList();
    blankBefore = false;
    if (para) para.text.push(line.trim());
    else para = { line: lineNo, text: [line.trim()] };
  }
  return out;
}

function fileStem(file: string): string {
  return (file.split(/[\\/]/).pop() ?? file).replace(/\.(md|markdown)$/i, '');
}

/** Parses a Markdown plan. Markdown always parses; only text that is not text (NUL bytes) is an error. */
export function parseMarkdownPlan(text: string, file: string): Result<Plan> {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) return err({ file, line: lineAt(text, nul), message: 'is not a text file (it contains NUL bytes); nothing was read or changed' });
  const s = scan(text);
  return ok({
    file,
    format: 'markdown',
    objective: s.title?.text || fileStem(file),
    objectiveLine: s.title?.line ?? 1,
    steps: s.items.map((i) => i.step),
    sections: s.sections,
  });
}

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Finds a checklist item by its 1-based number in document order (`3` or `"3"`), or by its text:
 * the exact text, else a unique start of it (case and spacing ignored).
 */
export function findMarkdownItem(plan: Plan, stepId: string, file: string): Result<PlanStep> {
  const steps = plan.steps;
  if (steps.length === 0) return err({ file, message: 'has no checklist items (lines such as "- [ ] do this"); nothing to mark' });
  const want = stepId.trim().replace(/^#/, '');
  if (/^\d+$/.test(want)) {
    const step = steps[Number(want) - 1];
    return step ? ok(step) : err({ file, message: `no checklist item ${want}; items are numbered 1 to ${steps.length} in document order` });
  }
  const n = normalise(want);
  if (n === '') return err({ file, message: 'stepId is empty; give the item number (1-based) or the start of its text' });
  const exact = steps.filter((s) => normalise(s.description) === n);
  const hits = exact.length > 0 ? exact : steps.filter((s) => normalise(s.description).startsWith(n));
  if (hits.length === 1) return ok(hits[0]);
  if (hits.length === 0) return err({ file, message: `no checklist item numbered or starting with "${stepId}"` });
  return err({ file, message: `"${stepId}" matches items ${hits.map((h) => h.id).join(', ')}; give the item number instead` });
}

/** A status change on a Markdown plan: the item and the single character to write. */
interface MarkChange {
  step: PlanStep;
  index: number;
  from: string;
  to: string;
}

/** What setStatus on a Markdown plan would change; `to === from` when the item already has that status. */
function markChange(text: string, stepId: string, status: StepStatus, file: string): Result<MarkChange> {
  if (!isStepStatus(status)) return err({ file, message: `unknown status "${String(status)}"` });
  const s = scan(text);
  const plan: Plan = { file, objective: '', objectiveLine: 1, steps: s.items.map((i) => i.step) };
  const found = findMarkdownItem(plan, stepId, file);
  if (!found.ok) return found;
  const item = s.items[Number(found.value.id) - 1];
  const from = text[item.markAt];
  // `[X]` is already completed: leave it rather than rewriting it to `[x]`.
  const to = MARK_STATUS[from] === status ? from : STATUS_MARK[status];
  return ok({ step: found.value, index: item.markAt, from, to });
}

/** The text with a mark change made: its box character replaced, every other character kept. */
function markedText(text: string, c: MarkChange): string {
  return text.slice(0, c.index) + c.to + text.slice(c.index + 1);
}

/** Sets a checklist item's status by replacing its box character; every other character stays (the text updateMarkdownPlanFile writes). */
export function applyMarkdownStatus(text: string, stepId: string, status: StepStatus, file = 'plan.md'): Result<string> {
  const c = markChange(text, stepId, status, file);
  if (!c.ok) return c;
  return ok(markedText(text, c.value));
}

/** The toggle a user means by clicking an item: completed ↔ pending (any other status becomes completed). */
export function toggledStatus(status: StepStatus): StepStatus {
  return status === 'completed' ? 'pending' : 'completed';
}

/** Reads a plan file's bytes as text: refuses files over PLAN_MAX_BYTES, with NUL bytes, or not UTF-8. */
export async function readPlanBytes(file: string, shown = file): Promise<Result<{ bytes: Buffer; text: string; mtimeMs: number }>> {
  let st: fs.Stats;
  let bytes: Buffer;
  try {
    st = await fs.promises.stat(file);
    if (st.size > PLAN_MAX_BYTES) {
      return err({ file: shown, message: `is ${(st.size / 1024 / 1024).toFixed(1)} MB; plans over ${PLAN_MAX_BYTES / 1024 / 1024} MB are not read. Split it or move it out of .agent/` });
    }
    bytes = await fs.promises.readFile(file);
  } catch (e) {
    return err({ file: shown, message: `cannot read: ${(e as Error).message}` });
  }
  if (bytes.length > PLAN_MAX_BYTES) return err({ file: shown, message: `grew past ${PLAN_MAX_BYTES / 1024 / 1024} MB while being read; plans that large are not read` });
  const nul = bytes.indexOf(0);
  if (nul >= 0) return err({ file: shown, line: bytes.subarray(0, nul).toString('latin1').split('\n').length, message: 'is not a text file (it contains NUL bytes); nothing was read or changed' });
  const text = decodeUtf8Strict(bytes);
  if (text === undefined) return err({ file: shown, message: NOT_UTF8 });
  return ok({ bytes, text, mtimeMs: st.mtimeMs });
}

/**
 * Sets a checklist item's status in a Markdown plan on disk: exactly one byte changes, written
 * atomically. Refuses when the file differs from `expected` (what the caller last read) or changes
 * while the edit is being made.
 */
export async function updateMarkdownPlanFile(
  file: string,
  stepId: string,
  status: StepStatus,
  expected?: { text?: string; mtimeMs?: number },
): Promise<Result<{ text: string; plan: Plan; changed: boolean; step: PlanStep }>> {
  const changedOnDisk = () => err({ file, message: 'the file changed on disk since it was read; nothing was written. Look at the refreshed plan and try again' });
  const lst = await fs.promises.lstat(file).catch(() => undefined);
  if (!lst) return err({ file, message: 'the plan file no longer exists' });
  if (lst.isSymbolicLink()) return err({ file, message: 'is a symbolic link; edit the file it points to instead' });
  const before = await readPlanBytes(file);
  if (!before.ok) return before;
  const { bytes, text, mtimeMs } = before.value;
  if (expected?.text !== undefined && expected.text !== text) return changedOnDisk();
  if (expected?.mtimeMs !== undefined && expected.mtimeMs !== mtimeMs) return changedOnDisk();
  const c = markChange(text, stepId, status, file);
  if (!c.ok) return c;
  const { index, from, to, step } = c.value;
  const parsed = (t: string) => parseMarkdownPlan(t, file) as { ok: true; value: Plan };
  if (from === to) return ok({ text, plan: parsed(text).value, changed: false, step });
  // Every box character is ASCII, so the edit is one byte at the UTF-8 offset of the box.
  const at = Buffer.byteLength(text.slice(0, index), 'utf8');
  if (bytes[at] !== from.charCodeAt(0)) return err({ file, message: 'internal error: the checkbox was not where expected; nothing was changed' });
  const out = Buffer.from(bytes);
  out[at] = to.charCodeAt(0);
  const outText = markedText(text, c.value);
  const plan = parsed(outText).value;
  const after = plan.steps[Number(step.id) - 1];
  if (!after || after.status !== status || after.description !== step.description) {
    return err({ file, message: 'the edit did not produce the expected item; nothing was changed' });
  }
  const now = await readPlanBytes(file);
  if (!now.ok) return now;
  if (!now.value.bytes.equals(bytes) || now.value.mtimeMs !== mtimeMs) return changedOnDisk();
  try {
    await writeFileAtomic(file, out);
  } catch (e) {
    return err({ file, message: `not changed: ${fsCause(e)}` });
  }
  return ok({ text: outText, plan, changed: true, step: after });
}

/** A child row of a Markdown plan in a tree: a heading group, a checklist item, or a plain list item. */
export type MarkdownChild =
  | { kind: 'section'; index: number }
  | { kind: 'step'; step: PlanStep }
  | { kind: 'text'; text: string; line: number };

/** Where in a Markdown plan's tree: the plan itself, a heading group, or an item with nested items. */
export type MarkdownParent = { kind: 'plan' } | { kind: 'section'; index: number } | { kind: 'step'; id: string };

/**
 * The children of a row of a Markdown plan. With checklist items: the top-level items, grouped
 * under their nearest heading when they sit under more than one; nested items under their item.
 * Without any: the headings as groups (nested by level) with the plain list items under each.
 */
export function markdownChildren(plan: Plan, parent: MarkdownParent): MarkdownChild[] {
  const sections = plan.sections ?? [];
  const ix = indexOf(plan);
  const steps = (list: readonly PlanStep[] | undefined): MarkdownChild[] => (list ?? []).map((step) => ({ kind: 'step', step }));
  if (parent.kind === 'step') return steps(ix.children.get(parent.id));
  if (plan.steps.length > 0) {
    if (parent.kind === 'section') return steps(ix.bySection.get(parent.index));
    if (ix.bySection.size < 2) return steps(ix.top); // all under one heading (or none): no groups
    return [...steps(ix.bySection.get(undefined)), ...[...ix.bySection.keys()].filter((g): g is number => g !== undefined).map((index): MarkdownChild => ({ kind: 'section', index }))];
  }
  const at = parent.kind === 'section' ? parent.index : undefined;
  const kids: (MarkdownChild & { line: number })[] = (ix.subsections.get(at) ?? []).map((index) => ({ kind: 'section', index, line: sections[index].line }));
  if (at !== undefined) kids.push(...sections[at].items.map((i) => ({ kind: 'text' as const, text: i.text, line: i.line })));
  return kids.sort((a, b) => a.line - b.line).map(({ line, ...k }) => (k.kind === 'text' ? { ...k, line } : k) as MarkdownChild);
}

/** True when a checklist item has nested items. */
export function markdownHasChildren(plan: Plan, stepId: string): boolean {
  return indexOf(plan).children.has(stepId);
}

interface TreeIndex {
  top: PlanStep[];
  children: Map<string, PlanStep[]>;
  /** Top-level items by heading (undefined: before any heading), in document order. */
  bySection: Map<number | undefined, PlanStep[]>;
  subsections: Map<number | undefined, number[]>;
}

// Built once per parsed plan, so a view of thousands of items stays linear.
const indexes = new WeakMap<Plan, TreeIndex>();

function indexOf(plan: Plan): TreeIndex {
  let ix = indexes.get(plan);
  if (ix) return ix;
  ix = { top: [], children: new Map(), bySection: new Map(), subsections: new Map() };
  const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
    const list = m.get(k);
    if (list) list.push(v);
    else m.set(k, [v]);
  };
  for (const s of plan.steps) {
    if (s.parentId !== undefined) push(ix.children, s.parentId, s);
    else {
      ix.top.push(s);
      push(ix.bySection, s.section, s);
    }
  }
  (plan.sections ?? []).forEach((sec, index) => push(ix!.subsections, sec.parent, index));
  indexes.set(plan, ix);
  return ix;
}
