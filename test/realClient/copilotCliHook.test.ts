/*
 * GitHub Copilot CLI's own shell tool with the Agent Context hook (mcp.js --setup copilot-cli): the
 * postToolUse hook in $COPILOT_HOME/settings.json that replaces a large bash result by our reference,
 * the user's --allow-tool rules both ways, secrets, the added time; the MCP server from .github/mcp.json.
 * Run: node scripts/test.mjs --integration-only --run copilot-cli
 */
import { describeShellHook } from './agentScenarios';
import { copilotDriver } from './copilotCli';

describeShellHook(copilotDriver);
