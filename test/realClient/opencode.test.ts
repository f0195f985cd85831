/*
 * The real opencode CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run opencode
 */
import { describeAgentBasics } from './agentScenarios';
import { opencodeDriver } from './opencodeCli';

describeAgentBasics(opencodeDriver);
