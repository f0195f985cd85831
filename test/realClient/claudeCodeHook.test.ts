/*
 * Claude Code's own Bash with the Agent Context hook (mcp.js --setup claude-code): the shell capture
 * through CLAUDE_ENV_FILE, the user's permission rules both ways, secrets, the added time.
 * Run: node scripts/test.mjs --integration-only --run claude-code (and claude-code-current)
 */
import { describeShellHook } from './agentScenarios';
import { claudeDriver } from './claudeCli';

describeShellHook(claudeDriver);
