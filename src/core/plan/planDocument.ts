import { Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, YAMLMap, Node as YamlNode } from 'yaml';
import { err, ok, Result } from '../result';

/** The step statuses the plan schema allows. */
export const STEP_STATUSES = ['pending', 'in_progress', 'completed', 'blocked', 'cancelled'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** One plan step; `line` is the 1-based line of the step in its file. */
export interface PlanStep {
  id: string;
  description: string;
  status: StepStatus;
  notes?: string;
  evidence?: string[];
  line: number;
  /** Markdown checklists: nesting depth (0 = top level) and the id of the item this one is nested in. */
  depth?: number;
  parentId?: string;
  /** Markdown checklists: index in `Plan.sections` of the heading the item sits under. */
  section?: number;
}

/** A heading of a Markdown plan (below its title), with the plain list items under it. */
export interface PlanSection {
  title: string;
  line: number;
  level: number;
  /** Index of the enclosing heading (a lower level above it), if any. */
  parent?: number;
  /** Top-level list items without a checkbox, shown when the plan has no checklist at all. */
  items: { text: string; line: number }[];
}

/** A parsed plan file. */
export interface Plan {
  file: string;
  objective: string;
  status?: string;
  objectiveLine: number;
  steps: PlanStep[];
  /** `markdown` for plan.md / plans/*.md (steps are checklist items); absent for YAML. */
  format?: 'markdown';
  /** Markdown plans: the headings after the title. */
  sections?: PlanSection[];
}

/** A parsed YAML document with the line counter and the text it came from (for edits). */
export interface ParsedPlanSource {
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

/** True when `s` is one of the allowed step statuses. */
export function isStepStatus(s: unknown): s is StepStatus {
  return typeof s === 'string' && (STEP_STATUSES as readonly string[]).includes(s);
}

/** Parses YAML keeping source ranges; a syntax error comes back with its line. */
export function parsePlanSource(text: string, file: string): Result<ParsedPlanSource> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { keepSourceTokens: true, lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    return err({ file, line: lines.linePos(e.pos[0]).line, message: `invalid YAML: ${firstLine(e.message)}` });
  }
  return ok({ text, doc, lines });
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}

function lineOf(lines: LineCounter, node: { range?: [number, number, number] | null } | null | undefined, fallback = 1): number {
  return node?.range ? lines.linePos(node.range[0]).line : fallback;
}

/** Parses and validates a plan: objective (required string), status, steps[] with unique ids. */
export function parsePlan(text: string, file: string): Result<Plan> {
  const src = parsePlanSource(text, file);
  if (!src.ok) return src;
  return validatePlan(src.value, file);
}

/** Validates an already parsed document against the plan schema. */
export function validatePlan(src: ParsedPlanSource, file: string): Result<Plan> {
  const { doc, lines } = src;
  const root = doc.contents;
  const fail = (node: YamlNode | null | undefined, message: string) => err({ file, line: lineOf(lines, node), message });
  if (root === null || root === undefined) return fail(null, 'the plan is empty; expected a mapping with objective and steps');
  if (!isMap(root)) {
    const kind = isSeq(root) ? 'a list' : 'a single value';
    return fail(root, `the plan is ${kind}; expected a mapping with objective and steps`);
  }
  const objectiveNode = root.get('objective', true);
  if (objectiveNode === undefined) return fail(root, 'missing required "objective"');
  const objective: unknown = isScalar(objectiveNode) ? objectiveNode.value : undefined;
  if (typeof objective !== 'string' || objective.trim() === '') {
    return fail(objectiveNode as YamlNode, '"objective" must be a non-empty string');
  }
  const statusNode = root.get('status', true);
  let status: string | undefined;
  if (statusNode !== undefined && statusNode !== null) {
    if (!isScalar(statusNode) || (statusNode.value !== null && typeof statusNode.value !== 'string')) {
      return fail(statusNode as YamlNode, '"status" must be a string');
    }
    status = statusNode.value === null ? undefined : String(statusNode.value);
  }
  const plan: Plan = { file, objective, status, objectiveLine: lineOf(lines, objectiveNode), steps: [] };
  const stepsNode = root.get('steps', true);
  if (stepsNode === undefined || (isScalar(stepsNode) && stepsNode.value === null)) return ok(plan);
  if (!isSeq(stepsNode)) return fail(stepsNode as YamlNode, '"steps" must be a list');
  const seen = new Map<string, number>();
  for (const item of stepsNode.items) {
    const step = validateStep(item as YamlNode, lines, file);
    if (!step.ok) return step;
    const prev = seen.get(step.value.id);
    if (prev !== undefined) {
      return err({ file, line: step.value.line, message: `duplicate step id "${step.value.id}" (first used on line ${prev})` });
    }
    seen.set(step.value.id, step.value.line);
    plan.steps.push(step.value);
  }
  return ok(plan);
}

/** Why a step's field is not text: an alias (`*name`) is named as such, not called "not text". */
function notText(id: string, key: string, node: unknown): string {
  return isAlias(node) ? `step "${id}": "${key}" is an alias (*${node.source}); write the text itself` : `step "${id}": "${key}" must be text`;
}

function validateStep(item: YamlNode, lines: LineCounter, file: string): Result<PlanStep> {
  const line = lineOf(lines, item);
  if (!isMap(item)) return err({ file, line, message: 'each step must be a mapping with id, description and status' });
  const map = item as YAMLMap;
  const idNode = map.get('id', true);
  if (!isScalar(idNode) || idNode.value === null || (typeof idNode.value !== 'string' && typeof idNode.value !== 'number')) {
    return err({ file, line, message: 'step is missing an "id" (a string or number)' });
  }
  const id = String(idNode.value);
  const descNode = map.get('description', true);
  let description = '';
  if (descNode !== undefined && descNode !== null) {
    if (!isScalar(descNode) || (descNode.value !== null && typeof descNode.value === 'object')) {
      return err({ file, line: lineOf(lines, descNode as YamlNode, line), message: notText(id, 'description', descNode) });
    }
    description = descNode.value === null ? '' : String(descNode.value);
  }
  const statusNode = map.get('status', true);
  let status: StepStatus = 'pending';
  if (statusNode !== undefined && !(isScalar(statusNode) && statusNode.value === null)) {
    const v = isScalar(statusNode) ? statusNode.value : undefined;
    if (!isStepStatus(v)) {
      return err({
        file,
        line: lineOf(lines, statusNode as YamlNode, line),
        message: `step "${id}": status "${String(v ?? '?')}" is not one of ${STEP_STATUSES.join(', ')}`,
      });
    }
    status = v;
  }
  const step: PlanStep = { id, description, status, line };
  const notesNode = map.get('notes', true);
  if (notesNode !== undefined && !(isScalar(notesNode) && notesNode.value === null)) {
    if (!isScalar(notesNode)) return err({ file, line: lineOf(lines, notesNode as YamlNode, line), message: notText(id, 'notes', notesNode) });
    step.notes = String(notesNode.value);
  }
  const evNode = map.get('evidence', true);
  if (evNode !== undefined && !(isScalar(evNode) && evNode.value === null)) {
    if (isScalar(evNode) && typeof evNode.value === 'string') step.evidence = [evNode.value];
    else if (isSeq(evNode) && evNode.items.every((e) => isScalar(e) && typeof e.value === 'string')) {
      step.evidence = evNode.items.map((e) => String((e as { value: unknown }).value));
    } else {
      return err({ file, line: lineOf(lines, evNode as YamlNode, line), message: `step "${id}": "evidence" must be a list of workspace-relative paths` });
    }
  }
  return ok(step);
}

/** Counts completed steps for the "2/5 done" summary (cancelled steps are left out of the total). */
export function planProgress(plan: Plan): { done: number; total: number } {
  const counted = plan.steps.filter((s) => s.status !== 'cancelled');
  return { done: counted.filter((s) => s.status === 'completed').length, total: counted.length };
}
