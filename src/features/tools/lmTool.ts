import * as vscode from 'vscode';
import { invokeTool } from '../../core/tools/invokeTool';
import { runNeedsConfirmation } from '../../core/tools/run';
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
    if (this.def.name !== 'agentContext_run') return { invocationMessage: `${this.def.displayName}` };
    const command = String(options.input?.command ?? '');
    const cwd = typeof options.input?.cwd === 'string' && options.input.cwd ? options.input.cwd : 'the workspace root';
    const invocationMessage = new vscode.MarkdownString();
    invocationMessage.appendText('Running ');
    invocationMessage.appendCodeblock(command, 'sh');
    // Untrusted: nothing runs, the tool says why; asking first would be pointless.
    if (!vscode.workspace.isTrusted) return { invocationMessage };
    const why = runNeedsConfirmation(command, toolConfig().runAllowList);
    if (!why) return { invocationMessage };
    const message = new vscode.MarkdownString();
    message.appendCodeblock(command, 'sh');
    message.appendText(`in ${cwd}. Output goes to .agent/scratch/tool_outputs/. Asking because ${why}.`);
    return { invocationMessage, confirmationMessages: { title: 'Run this command?', message } };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<Input>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const run = this.def.name === 'agentContext_run' ? this.runTerminal?.observer() : undefined;
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
