/*
 * The real Kilo Code CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run kilo
 */
import { describeAgentBasics } from './agentScenarios';
import { kiloDriver } from './kiloCli';

describeAgentBasics(kiloDriver);
