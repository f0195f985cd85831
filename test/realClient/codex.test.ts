/*
 * The real codex CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run codex
 */
import { describeAgentBasics } from './agentScenarios';
import { codexDriver } from './codexCli';

describeAgentBasics(codexDriver);
