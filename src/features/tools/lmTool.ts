import * as vscode from 'vscode';
import { invokeTool } from '../../core/tools/invokeTool';
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
    private readonly onInvoked: () => void,
    private readonly runTerminal?: RunTerminal,
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<Input>): vscode.PreparedToolInvocation {
    const input = options.input ?? {};
    const shown = this.def.describe?.(input);
    let invocationMessage: string | vscode.MarkdownString = this.def.displayName;
    if (shown) {
      invocationMessage = new vscode.MarkdownString();
      invocationMessage.appendText(`${shown.action} `);
      if (shown.code !== undefined) invocationMessage.appendCodeblock(shown.code, 'sh');
    }
    // Untrusted: nothing that changes anything runs (the tool says why), so asking first would be pointless.
    const why = vscode.workspace.isTrusted ? this.def.confirmation?.(input, toolConfig()) : undefined;
    if (!why) return { invocationMessage };
    const message = new vscode.MarkdownString();
    if (shown?.code !== undefined) message.appendCodeblock(shown.code, 'sh');
    message.appendText(`${shown?.where ? `${shown.where} ` : ''}Asking because ${why}.`);
    return { invocationMessage, confirmationMessages: { title: shown?.question ?? `${this.def.displayName}?`, message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const run = this.def.streamsOutput ? this.runTerminal?.observer() : undefined;
    const { ctx, dispose } = toolContext(this.log, token, run ? { run } : {});
    try {
      const outcome = await invokeTool(this.def.name, options.input, ctx);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(outcome.text)]);
    } finally {
      dispose();
      this.onInvoked();
    }
  }
}
