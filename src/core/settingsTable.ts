/*
 * Every `agentContext.*` setting with its default, the kind of value it takes and its bounds: the one
 * table the extension's readers (VS Code settings), the MCP server and the hooks (`.agent/config.yaml`)
 * take their defaults and checks from. package.json's `contributes.configuration` declares the same
 * keys for the Settings UI; test/unit/manifest/settings.test.ts fails when the two disagree.
 */

/** One setting: its default, the kind of value it takes, and (numbers) its bounds. */
export interface SettingSpec {
  default: number | boolean | string | string[];
  /** int: a whole number; number: any finite number; strings: a list of strings. */
  kind: 'int' | 'number' | 'bool' | 'string' | 'strings';
  min?: number;
  max?: number;
}

/** Every setting, keyed `agentContext.`-relative. */
export const SETTINGS = {
  'scratch.maxAgeHours': { default: 24, kind: 'number', min: 0 },
  'scratch.maxFiles': { default: 500, kind: 'int', min: 0 },
  'scratch.maxTotalMB': { default: 200, kind: 'number', min: 0 },
  'scratch.cleanupOnStartup': { default: false, kind: 'bool' },
  'offload.thresholdTokens': { default: 2000, kind: 'int', min: 100, max: 20_000 },
  'reference.maxBytes': { default: 2048, kind: 'int', min: 512, max: 6144 },
  'run.allowList': { default: [] as string[], kind: 'strings' },
  'run.defaultTimeoutSec': { default: 120, kind: 'int', min: 1, max: 1800 },
  'read.defaultLines': { default: 200, kind: 'int', min: 1, max: 5000 },
  'grep.maxResults': { default: 100, kind: 'int', min: 1, max: 10_000 },
  'mcp.registerInVSCode': { default: false, kind: 'bool' },
  'terminals.capture': { default: true, kind: 'bool' },
  'terminals.exclude': { default: [] as string[], kind: 'strings' },
  'terminals.secretPatterns': { default: [] as string[], kind: 'strings' },
  'secrets.gitleaksConfig': { default: '', kind: 'string' },
  'terminals.maxFileMB': { default: 10, kind: 'number', min: 0.1 },
  'terminals.maxAgeDays': { default: 30, kind: 'number', min: 0 },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;

/** The type of a setting's value. */
export type SettingValue<K extends SettingKey> = (typeof SETTINGS)[K]['default'] extends readonly string[] ? string[] : (typeof SETTINGS)[K]['default'] extends boolean ? boolean : (typeof SETTINGS)[K]['default'] extends string ? string : number;

/**
 * A setting's value from what the user wrote (`raw`, undefined when nothing): the default when it is
 * missing or of the wrong kind; a number outside the bounds is brought inside them (an `int` rounded
 * down first); a list keeps its non-empty strings.
 */
export function settingValue<K extends SettingKey>(key: K, raw: unknown): SettingValue<K> {
  const spec: SettingSpec = SETTINGS[key];
  const d = spec.default;
  switch (spec.kind) {
    case 'int':
    case 'number': {
      if (typeof raw !== 'number' || !Number.isFinite(raw)) return d as SettingValue<K>;
      const v = spec.kind === 'int' ? Math.floor(raw) : raw;
      return Math.min(spec.max ?? Infinity, Math.max(spec.min ?? -Infinity, v)) as SettingValue<K>;
    }
    case 'bool':
      return (typeof raw === 'boolean' ? raw : d) as SettingValue<K>;
    case 'string':
      return (typeof raw === 'string' ? raw : d) as SettingValue<K>;
    case 'strings':
      return (Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [...(d as string[])]) as SettingValue<K>;
  }
}
