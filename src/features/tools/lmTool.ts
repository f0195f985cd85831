import * as vscode from 'vscode';
import { invokeTool } from '../../core/tools/invokeTool';
import { escapeMarkdown } from '../../core/output/text';
import type { ToolDefinition } from '../../core/tools/toolDefinitions';
import type { RunTerminal } from './runTerminal';
import { toolConfig } from '../../editor/settings';
import { toolContext } from './toolHost';

type Input = Record<string, unknown>;

/**
 * One adapter for every tool: the implementation lives in the core (shared with the MCP server);
 * this only turns the token into an AbortSignal and the text into a LanguageModelToolResult.
 */
export class LmTool implements vscode.LanguageModelTool<Input> {
  constructor(
    private readonly def: ToolDefinition,
    private readonly log: vscode.LogOutputChannel,
    private readonly onInvoked: (ok: boolean) => void,
    private readonly runTerminal?: RunTerminal,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): vscode.PreparedToolInvocation {
    const input = options.input ?? {};
    const shown = this.def.describe?.(input);
    let invocationMessage: string | vscode.MarkdownString = this.def.displayName;
    if (shown) {
      invocationMessage = new vscode.MarkdownString();
      // appendText would turn every space into &nbsp;: the text could not wrap in the narrow chat panel.
      invocationMessage.appendMarkdown(escapeMarkdown(`${shown.action} `));
      if (shown.code !== undefined) invocationMessage.appendCodeblock(shown.code, 'sh');
    }
    // Untrusted: nothing that changes anything runs (the tool says why), so asking first would be pointless.
    const why = vscode.workspace.isTrusted ? this.def.confirmation?.(input, toolConfig()) : undefined;
    // A call that must always be asked about is asked in invoke(): VS Code's "Allow in this Session /
    // Workspace" and "Always Allow" skip this confirmation for every later call of the tool.
    if (!why || this.def.alwaysAsk?.(input)) return { invocationMessage };
    const message = new vscode.MarkdownString();
    if (shown?.code !== undefined) message.appendCodeblock(shown.code, 'sh');
    message.appendMarkdown(escapeMarkdown(`${shown?.where ? `${shown.where} ` : ''}Asking because ${why}.`));
    return { invocationMessage, confirmationMessages: { title: shown?.question ?? `${this.def.displayName}?`, message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const declined = await askAlways(this.def, options.input ?? {});
    if (declined) return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(declined)]);
    const run = this.def.streamsOutput ? this.runTerminal?.observer() : undefined;
    const { ctx, dispose } = toolContext(this.log, token, run ? { run } : {});
    let ok = false;
    try {
      const outcome = await invokeTool(this.def.name, options.input, ctx);
      ok = outcome.isError !== true;
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(outcome.text)]);
    } finally {
      dispose();
      this.onInvoked(ok);
    }
  }
}

/**
 * A call the definition says must always be asked about (agentContext_run: a compound command) is
 * asked in a modal dialog of our own: the chat's confirmation can be skipped by the user's earlier
 * "Allow in this Session / Workspace" or "Always Allow" for the tool, and the stable API cannot opt
 * a call out of that. Returns the text for the model when the user declines.
 */
async function askAlways(def: ToolDefinition, input: Input): Promise<string | undefined> {
  const why = vscode.workspace.isTrusted ? def.alwaysAsk?.(input) : undefined;
  if (!why) return undefined;
  const shown = def.describe?.(input);
  const answer = await vscode.window.showWarningMessage(shown?.question ?? `${def.displayName}?`, {
    modal: true,
    detail: `${shown?.code ?? ''}\n\n${shown?.where ? `${shown.where} ` : ''}Agent Context always asks because ${why}, even when the tool is allowed without confirmation.`,
  }, 'Run');
  return answer === 'Run' ? undefined : `Not run: the user declined ${shown?.code !== undefined ? `\`${shown.code}\`` : 'this call'} (asked because ${why}). Ask them, or run its parts one by one.`;
}
