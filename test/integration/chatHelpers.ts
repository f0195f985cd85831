// Driving VS Code's built-in chat (Copilot Chat in Agent mode) like a user, through the bridge: a new
// chat, a prompt typed into the chat input, the tool confirmation read and answered. The model is
// the fake Chat Completions server (test/realClient/fakeModels/chatCompletions.ts) the suite starts
// on AGENT_CONTEXT_FAKE_MODEL_PORT, which the runner wrote into chatLanguageModels.json.
import * as vscode from 'vscode';
import { ui, waitFor } from './bridge';
import type { FakeChatCompletions, ToolResult } from '../realClient/fakeModels/chatCompletions';

/** The pending confirmation of a tool call in the chat (visible copies only: the carousel keeps hidden ones). */
export const CONFIRMATION = '.chat-tool-invocation-part.has-confirmation .chat-confirmation-widget-container >> visible=true';

/** Opens a new chat in Agent mode and sends `prompt` as a user would: click the input, type, Enter. */
export async function sendInNewChat(prompt: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { mode: 'agent' });
  await vscode.commands.executeCommand('workbench.action.chat.newChat');
  // The input's editor sits under an overlay: click through it.
  await ui.click('.interactive-input-part .monaco-editor', { force: true });
  await ui.type(prompt, { delay: 2 });
  await ui.press('Enter');
}

/** Waits for a tool confirmation in the chat; returns its text as the user sees it. */
export async function confirmationText(timeout = 60_000): Promise<string> {
  await ui.waitForSelector(CONFIRMATION, { timeout });
  return ui.text(CONFIRMATION);
}

/** Clicks a button of the pending confirmation by its label (e.g. 'Skip', 'Allow in this Session', 'Allow'). */
export async function answerConfirmation(label: string): Promise<void> {
  await ui.click(`.chat-tool-invocation-part.has-confirmation .monaco-text-button:text-is("${label}") >> visible=true`);
  await ui.waitForSelector(CONFIRMATION, { state: 'hidden', timeout: 15_000 });
}

/** The labels of the pending confirmation's buttons and of its "More Actions..." menu. */
export async function confirmationButtons(): Promise<string[]> {
  return (await ui.texts('.chat-tool-invocation-part.has-confirmation .monaco-text-button >> visible=true')).filter(Boolean);
}

/** The tool results the agent sent back for the conversation whose prompt contains `marker`. */
export function resultsFor(fake: FakeChatCompletions, marker: string): ToolResult[] {
  return fake.results.filter((r) => r.prompt.includes(marker));
}

/** Waits until the agent has sent back `n` tool results for `marker`'s conversation; returns them. */
export async function waitForResults(fake: FakeChatCompletions, marker: string, n: number, timeout = 120_000): Promise<ToolResult[]> {
  return waitFor(() => {
    const r = resultsFor(fake, marker);
    return r.length >= n ? r : undefined;
  }, { timeout, interval: 250, message: `${n} tool result(s) for ${marker} (got ${resultsFor(fake, marker).length})` });
}

/** Waits until the conversation ended: the model's final text was asked for (a request after the last result). */
export async function waitForTurnEnd(fake: FakeChatCompletions, marker: string, steps: number, timeout = 60_000): Promise<void> {
  await waitFor(() => fake.requests.filter((r) => r.tools.length > 0 && r.prompt.includes(marker)).length > steps, { timeout, interval: 250, message: `the end of ${marker}'s conversation` });
  await waitFor(async () => (await ui.count('.interactive-session .chat-response-loading')) === 0, { timeout, message: `the chat to finish ${marker}` });
}
