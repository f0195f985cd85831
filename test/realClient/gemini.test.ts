/*
 * The real gemini CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run gemini
 */
import { describeAgentBasics } from './agentScenarios';
import { geminiDriver } from './geminiCli';

describeAgentBasics(geminiDriver);
