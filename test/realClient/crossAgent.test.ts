/*
 * Two real agent CLIs share one workspace's .agent/ (issue 21 §4, the cross-agent scenario): Codex
 * saves a failing build's output with agentContext_run and starts a plan step; Claude Code, in a
 * session of its own, finds the error lines in that saved output with agentContext_grep and the step
 * in its briefing, and starts the next step; Codex's next session's briefing shows it. The two
 * cheapest CLIs to start (native binaries), one per wire protocol (OpenAI Responses, Anthropic Messages).
 * Then Codex, set up with our hook, runs a failing command through its own shell, and Claude Code's
 * agentContext_terminal lastFailed finds it (one history for every agent).
 * Run: node scripts/test.mjs --integration-only --run cross-agent
 */
import { describeCrossAgent } from './agentScenarios';
import { claudeDriver } from './claudeCli';
import { codexDriver } from './codexCli';

describeCrossAgent(codexDriver, claudeDriver);
