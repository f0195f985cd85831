/*
 * The real Qwen Code CLI against a scripted fake model: our MCP tools, and its own shell tool on the
 * same failing build. Run: node scripts/test.mjs --integration-only --run qwen-code
 */
import { describeAgentBasics, describeRecordingHook } from './agentScenarios';
import { qwenDriver } from './qwenCli';

describeAgentBasics(qwenDriver);
describeRecordingHook(qwenDriver);
