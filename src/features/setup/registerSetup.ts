import type * as vscode from 'vscode';
import { registerAddInstructionsCommand } from './addInstructions';
import { registerInitializeCommand } from './initialize';
import { registerMcpSetup } from './mcpSetup';
import { registerAgentSetup } from './setupAgent';

/** Setting a workspace up: Initialize .agent Folder, Add Agent Instructions, the agents' set-up, the MCP configuration. */
export function registerSetup(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  registerInitializeCommand(context, log);
  registerAddInstructionsCommand(context, log);
  registerAgentSetup(context, log);
  registerMcpSetup(context, log);
}
