import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { err, ok, type FileError, type Result } from './result';
import { DEFAULT_RETENTION, type RetentionPolicy } from './scratch/retention';

/*
 * Settings of the tools, shared by the extension (VS Code settings `agentContext.<key>`) and the
 * MCP server (`.agent/config.yaml`, the same keys without the prefix, nested or dotted):
 *
 *   offload:
 *     thresholdTokens: 2000
 *   run:
 *     allowList: ["npm test", "git status*"]
 *   grep.maxResults: 100
 */

/** One setting: its default and the kind of value it takes. */
interface SettingSpec {
  default: number | boolean | string[];
  kind: 'int' | 'bool' | 'strings';
  min?: number;
  max?: number;
}

/** Every tool setting with its default (keys are `agentContext.`-relative). */
export const TOOL_SETTINGS = {
  'offload.thresholdTokens': { default: 2000, kind: 'int', min: 100, max: 20_000 },
  'reference.maxBytes': { default: 2048, kind: 'int', min: 512, max: 6144 },
  'run.allowList': { default: [] as string[], kind: 'strings' },
  'run.defaultTimeoutSec': { default: 120, kind: 'int', min: 1, max: 1800 },
  'read.defaultLines': { default: 200, kind: 'int', min: 1, max: 5000 },
  'grep.maxResults': { default: 100, kind: 'int', min: 1, max: 10_000 },
  'mcp.registerInVSCode': { default: false, kind: 'bool' },
} satisfies Record<string, SettingSpec>;

/** The tool settings as the core uses them. */
export interface ToolConfig {
  offloadThresholdTokens: number;
  referenceMaxBytes: number;
  runAllowList: string[];
  /**
   * The user's rules for VS Code's agent terminal (`chat.tools.terminal.autoApprove`, user settings
   * only): also an allow-list for agentContext_run, and a rule that denies always wins.
   */
  terminalAutoApprove?: TerminalRules;
  runDefaultTimeoutSec: number;
  readDefaultLines: number;
  grepMaxResults: number;
}

/** `chat.tools.terminal.autoApprove`: command prefix or `/regex/flags` → true (approve), false (deny), or an object with `approve`. */
export type TerminalRules = Record<string, unknown>;

/** Defaults of every tool setting. */
export const DEFAULT_TOOL_CONFIG: ToolConfig = {
  offloadThresholdTokens: 2000,
  referenceMaxBytes: 2048,
  runAllowList: [],
  runDefaultTimeoutSec: 120,
  readDefaultLines: 200,
  grepMaxResults: 100,
};

/** The user's own secret-masking settings, as the masker's rules are assembled from them (userRulesFor). */
export interface SecretSettings {
  /** Extra patterns to mask (RE2 syntax). */
  secretPatterns?: string[];
  /** A gitleaks config to apply too; else `<root>/.gitleaks.toml` when present. */
  gitleaksConfig?: string;
}

/**
 * The secret-masking settings from a getter of `agentContext.`-relative keys: the one reading shared
 * by the extension (VS Code settings), the MCP server and the hooks (`.agent/config.yaml`), so they
 * cannot drift apart (the server and the hook once read `terminal.secretPatterns`, a key nobody set).
 * `secrets.patterns` and `terminal.secretPatterns` are read as older spellings.
 */
export function secretSettingsFrom(get: (key: string) => unknown): SecretSettings {
  const patterns = get('terminals.secretPatterns') ?? get('terminal.secretPatterns') ?? get('secrets.patterns');
  const gitleaks = get('secrets.gitleaksConfig');
  return {
    secretPatterns: Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : undefined,
    gitleaksConfig: typeof gitleaks === 'string' && gitleaks ? gitleaks : undefined,
  };
}

/** Builds a ToolConfig from a getter of `agentContext.`-relative keys (VS Code settings or config.yaml). */
export function toolConfigFrom(get: (key: keyof typeof TOOL_SETTINGS) => unknown): ToolConfig {
  const num = (k: keyof typeof TOOL_SETTINGS, d: number): number => {
    const spec = TOOL_SETTINGS[k] as SettingSpec;
    const v = get(k);
    if (typeof v !== 'number' || !Number.isFinite(v)) return d;
    return Math.min(spec.max ?? Infinity, Math.max(spec.min ?? -Infinity, Math.floor(v)));
  };
  const list = get('run.allowList');
  return {
    offloadThresholdTokens: num('offload.thresholdTokens', 2000),
    referenceMaxBytes: num('reference.maxBytes', 2048),
    runAllowList: Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [],
    runDefaultTimeoutSec: num('run.defaultTimeoutSec', 120),
    readDefaultLines: num('read.defaultLines', 200),
    grepMaxResults: num('grep.maxResults', 100),
  };
}

/** The scratch retention policy from `scratch.maxAgeHours|maxFiles|maxTotalMB` (settings or config.yaml). */
export function retentionFrom(get: (key: string) => unknown): RetentionPolicy {
  const n = (k: string, d: number): number => {
    const v = get(k);
    return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d;
  };
  return {
    maxAgeHours: n('scratch.maxAgeHours', DEFAULT_RETENTION.maxAgeHours),
    maxFiles: n('scratch.maxFiles', DEFAULT_RETENTION.maxFiles),
    maxTotalMB: n('scratch.maxTotalMB', DEFAULT_RETENTION.maxTotalMB),
  };
}

/** `.agent/config.yaml` read into dotted keys; `line` says where each key was written. */
export interface AgentConfigFile {
  values: Map<string, unknown>;
  lines: Map<string, number>;
}

function lineAt(text: string, offset: number | undefined): number {
  if (offset === undefined) return 1;
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function flatten(node: YamlNode | null, prefix: string, text: string, out: AgentConfigFile): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const key = prefix ? `${prefix}.${k}` : k;
      const v = pair.value as YamlNode | null;
      if (isMap(v) && !TOOL_SETTINGS[key as keyof typeof TOOL_SETTINGS]) flatten(v, key, text, out);
      else {
        out.values.set(key, isSeq(v) || isMap(v) ? v.toJSON() : isScalar(v) ? v.value : null);
        out.lines.set(key, lineAt(text, isScalar(pair.key) ? pair.key.range?.[0] : undefined));
      }
    }
  }
}

/** Reads `.agent/config.yaml` (missing file → empty); bad YAML or bad values are errors naming file and line. */
export async function loadAgentConfig(agentDir: string): Promise<Result<AgentConfigFile, FileError>> {
  const file = path.join(agentDir, 'config.yaml');
  const shown = '.agent/config.yaml';
  const out: AgentConfigFile = { values: new Map(), lines: new Map() };
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ok(out);
    return err({ file: shown, message: `cannot read: ${(e as Error).message}` });
  }
  const doc = parseDocument(text);
  if (doc.errors.length) {
    const e = doc.errors[0];
    return err({ file: shown, line: e.linePos?.[0].line, message: `invalid YAML: ${e.message.split('\n')[0]}` });
  }
  if (doc.contents !== null && !isMap(doc.contents) && !(isScalar(doc.contents) && doc.contents.value === null)) {
    return err({ file: shown, line: 1, message: 'expected a mapping of setting → value' });
  }
  flatten(doc.contents as YamlNode | null, '', text, out);
  for (const [key, value] of out.values) {
    const spec = (TOOL_SETTINGS as Record<string, SettingSpec>)[key];
    if (!spec) continue; // other features' keys are theirs to check
    const line = out.lines.get(key);
    const bad =
      (spec.kind === 'int' && (typeof value !== 'number' || !Number.isInteger(value))) ||
      (spec.kind === 'bool' && typeof value !== 'boolean') ||
      (spec.kind === 'strings' && (!Array.isArray(value) || value.some((s) => typeof s !== 'string')));
    if (bad) {
      const want = spec.kind === 'int' ? 'a whole number' : spec.kind === 'bool' ? 'true or false' : 'a list of strings';
      return err({ file: shown, line, message: `${key} must be ${want}` });
    }
  }
  return ok(out);
}

/** ToolConfig for the MCP server: config.yaml over the defaults. */
export function toolConfigFromFile(f: AgentConfigFile): ToolConfig {
  return toolConfigFrom((k) => f.values.get(k));
}
