import * as fs from 'node:fs';
import { isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import { err, ok, type FileError, type Result } from './result';
import type { RetentionPolicy } from './scratch/retention';
import { settingValue, SETTINGS, type SettingKey, type SettingSpec } from './settingsTable';
import { agentPath, agentRel } from './workspace/layout';

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
export function toolConfigFrom(get: (key: SettingKey) => unknown): ToolConfig {
  const v = <K extends SettingKey>(k: K) => settingValue(k, get(k));
  return {
    offloadThresholdTokens: v('offload.thresholdTokens'),
    referenceMaxBytes: v('reference.maxBytes'),
    runAllowList: v('run.allowList'),
    runDefaultTimeoutSec: v('run.defaultTimeoutSec'),
    readDefaultLines: v('read.defaultLines'),
    grepMaxResults: v('grep.maxResults'),
  };
}

/** Defaults of every tool setting. */
export const DEFAULT_TOOL_CONFIG: ToolConfig = toolConfigFrom(() => undefined);

/** The scratch retention policy from `scratch.maxAgeHours|maxFiles|maxTotalMB` (settings or config.yaml). */
export function retentionFrom(get: (key: SettingKey) => unknown): RetentionPolicy {
  return {
    maxAgeHours: settingValue('scratch.maxAgeHours', get('scratch.maxAgeHours')),
    maxFiles: settingValue('scratch.maxFiles', get('scratch.maxFiles')),
    maxTotalMB: settingValue('scratch.maxTotalMB', get('scratch.maxTotalMB')),
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
      if (isMap(v) && !(key in SETTINGS)) flatten(v, key, text, out);
      else {
        out.values.set(key, isSeq(v) || isMap(v) ? v.toJSON() : isScalar(v) ? v.value : null);
        out.lines.set(key, lineAt(text, isScalar(pair.key) ? pair.key.range?.[0] : undefined));
      }
    }
  }
}

/** Reads `.agent/config.yaml` (missing file → empty); bad YAML or bad values are errors naming file and line. */
export async function loadAgentConfig(agentDir: string): Promise<Result<AgentConfigFile, FileError>> {
  const file = agentPath(agentDir, 'config');
  const shown = agentRel('config');
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
    const spec: SettingSpec | undefined = (SETTINGS as Record<string, SettingSpec>)[key];
    if (!spec) continue; // other features' keys are theirs to check
    const line = out.lines.get(key);
    const bad =
      (spec.kind === 'int' && (typeof value !== 'number' || !Number.isInteger(value))) ||
      (spec.kind === 'number' && (typeof value !== 'number' || !Number.isFinite(value))) ||
      (spec.kind === 'bool' && typeof value !== 'boolean') ||
      (spec.kind === 'string' && typeof value !== 'string') ||
      (spec.kind === 'strings' && (!Array.isArray(value) || value.some((s) => typeof s !== 'string')));
    if (bad) {
      const want = { int: 'a whole number', number: 'a number', bool: 'true or false', string: 'a string', strings: 'a list of strings' }[spec.kind];
      return err({ file: shown, line, message: `${key} must be ${want}` });
    }
  }
  return ok(out);
}

/** ToolConfig for the MCP server: config.yaml over the defaults. */
export function toolConfigFromFile(f: AgentConfigFile): ToolConfig {
  return toolConfigFrom((k) => f.values.get(k));
}
