/*
 * Kilo Code CLI's set-up (`kilo`, an opencode fork; opencode.ts does the work): what differs from
 * opencode's. Kilo reads the project's kilo.jsonc / kilo.json (then opencode.jsonc / opencode.json,
 * which opencode's set-up may have written: the same server entry, merged) and loads plugins from
 * .kilo/plugins/ (and .kilocode/), with opencode's plugin interface; its `bash` tool cuts a large
 * output to its last lines and keeps the whole one under ~/.local/share/kilo/tool-output/, as
 * opencode does (checked with Kilo 7.7.7). The plugin records Kilo's commands under the id `kilo`.
 * Kilo keeps its plans in <worktree>/.kilo/plans/; nothing moves them.
 */
import * as path from 'node:path';
import type { AgentSetup } from './agentSetup';
import { opencodeFamilySetup } from './opencode';

export const kiloSetup: AgentSetup = opencodeFamilySetup({
  id: 'kilo',
  binary: 'kilo',
  homeFolder: path.join('.config', 'kilo'),
  configs: ['kilo.jsonc', 'kilo.json'],
  schema: 'https://app.kilo.ai/config.json',
  plugin: '.kilo/plugins/agent-context.js',
  pluginAgent: 'kilo',
  plansNote: 'Kilo Code keeps its plans in .kilo/plans/ (no setting moves them).',
});
