/*
 * The real Cline CLI against a scripted fake model: our MCP tools, and its own shell tool
 * (run_commands) on the same failing build. Run: node scripts/test.mjs --integration-only --run cline
 */
import { describeAgentBasics, describeRecordingHook } from './agentScenarios';
import { clineDriver } from './clineCli';

describeAgentBasics(clineDriver);
describeRecordingHook(clineDriver);
