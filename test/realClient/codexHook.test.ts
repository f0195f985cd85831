/*
 * Codex CLI's own shell tool with the Agent Context hook (mcp.js --setup codex): the shell capture
 * through BASH_ENV in the project's .codex/config.toml, Codex's rules and sandbox both ways,
 * secrets, the added time. Run: node scripts/test.mjs --integration-only --run codex
 */
import { describeShellHook } from './agentScenarios';
import { codexDriver } from './codexCli';

describeShellHook(codexDriver);
