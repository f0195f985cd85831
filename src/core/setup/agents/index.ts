/*
 * The agents Agent Context can set up in one step (mcp.js --setup <id>, "Agent Context: Set Up
 * Agent…"), one module each beside this file.
 */
import type { AgentId, AgentSetup } from './agentSetup';
import { claudeCodeSetup } from './claudeCode';
import { codexSetup } from './codex';
import { copilotCliSetup } from './copilotCli';
import { geminiSetup } from './gemini';
import { kiloSetup } from './kilo';
import { opencodeSetup } from './opencode';
import { vscodeCopilotSetup } from './vscodeCopilot';

export { agentsFound, setUpAgent, undoAgent, type AgentId, type AgentSetup } from './agentSetup';
export type { SetupOutcome, SetupPaths } from './configFiles';

/** Every agent's set-up, in the order they are offered. */
export const AGENT_SETUPS: readonly AgentSetup[] = [claudeCodeSetup, codexSetup, geminiSetup, copilotCliSetup, opencodeSetup, kiloSetup, vscodeCopilotSetup];

/** The set-up of an agent id; undefined for an unknown one. */
export function agentSetup(id: string): AgentSetup | undefined {
  return AGENT_SETUPS.find((a) => a.id === (id as AgentId));
}
