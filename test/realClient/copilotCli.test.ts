/*
 * The real copilot CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run copilot-cli
 */
import { describeAgentBasics } from './agentScenarios';
import { copilotDriver } from './copilotCli';

describeAgentBasics(copilotDriver);
