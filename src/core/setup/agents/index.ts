/*
 * The agents Agent Context can set up in one step (mcp.js --setup <id>, "Agent Context: Set Up
 * Agent…"), one module each beside this file.
 */
import type { AgentId, AgentSetup } from './agentSetup';
import { claudeCodeSetup } from './claudeCode';
import { clineSetup } from './cline';
import { codexSetup } from './codex';
import { copilotCliSetup } from './copilotCli';
import { geminiSetup } from './gemini';
import { kiloSetup } from './kilo';
import { opencodeSetup } from './opencode';
import { qwenCodeSetup } from './qwenCode';
import { vscodeCopilotSetup } from './vscodeCopilot';
import { vscodeAgentSetup } from './vscodeAgent';

export { agentsFound, agentsWithRecord, isSetUp, setUpAgent, undoAgent, type AgentId, type AgentSetup, type SettingChange, type SettingRequirement } from './agentSetup';
export type { SetupOutcome, SetupPaths } from './configFiles';

/** Every agent's set-up that `mcp.js --setup <id>` offers, in the order they are offered. */
export const AGENT_SETUPS: readonly AgentSetup[] = [claudeCodeSetup, codexSetup, geminiSetup, copilotCliSetup, opencodeSetup, kiloSetup, qwenCodeSetup, clineSetup, vscodeCopilotSetup];

/** The editor's own agents (`inEditor`): set up from the editor only. */
export const EDITOR_AGENT_SETUPS: readonly AgentSetup[] = [vscodeAgentSetup];

/**
 * What "Set Up Agent…" and "Undo Agent Set-Up…" offer, in this order: the editor's own agents,
 * then the others, less those an entry sets up along with itself (`with`: VS Code's Copilot
 * harness goes with VS Code's agent). The editor lists whatever is here (label, found or not, set
 * up or not), so a new entry needs no change in the editor's code.
 */
export const SETUP_ENTRIES: readonly AgentSetup[] = [...EDITOR_AGENT_SETUPS, ...AGENT_SETUPS.filter((a) => !EDITOR_AGENT_SETUPS.some((e) => e.with?.includes(a)))];

/** The set-up of an agent id; undefined for an unknown one. */
export function agentSetup(id: string): AgentSetup | undefined {
  return AGENT_SETUPS.find((a) => a.id === (id as AgentId));
}
