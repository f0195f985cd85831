import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { featuresPath } from '../../core/plan/featureList';
import { touches, type AgentFeed } from '../../editor/agentFeed';

/** Context key: true while some folder has `.agent/features.json` ("Accept Feature List" is offered only then). */
export const HAS_FEATURE_LIST_KEY = 'agentContext.hasFeatureList';

/** Keeps HAS_FEATURE_LIST_KEY in step with the change feed (features.json is in the `plan` area). */
export function registerFeatureListKey(context: vscode.ExtensionContext, feed: AgentFeed): void {
  let last: boolean | undefined;
  const update = async (): Promise<void> => {
    await feed.ready;
    const has = feed.folders.some((f) => fs.existsSync(featuresPath(f.agentDir)));
    if (has === last) return;
    last = has;
    await vscode.commands.executeCommand('setContext', HAS_FEATURE_LIST_KEY, has);
  };
  context.subscriptions.push(feed.onDidChange((c) => {
    if (touches(c, 'plan')) void update();
  }));
  void update();
}
