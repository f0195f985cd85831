/*
 * The real codex CLI calls agentContext_search over MCP (the scripted fake model asks in words why
 * saved builds failed). Run: node scripts/test.mjs --integration-only --run codex
 */
import { codexDriver } from './codexCli';
import { describeSearchOverMcp } from './searchScenario';

describeSearchOverMcp(codexDriver);
