/*
 * Gemini CLI's own shell tool with the Agent Context hook (mcp.js --setup gemini): an AfterTool hook
 * that replaces a large result by our reference, the user's policy both ways, secrets, the added
 * time. Run: node scripts/test.mjs --integration-only --run gemini
 */
import { describeShellHook } from './agentScenarios';
import { geminiDriver } from './geminiCli';

describeShellHook(geminiDriver);
