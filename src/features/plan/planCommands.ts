import * as vscode from 'vscode';
import { StepStatus } from '../../core/plan/planDocument';
import { toggledStatus } from '../../core/plan/markdownPlan';
import { updatePlanFile } from '../../core/plan/planEdit';
import { readOnlyPlanOwner } from '../../core/plan/planFiles';
import { formatFileError, Result } from '../../core/result';
import { PlanNode, PlanTreeProvider, statusLabel } from './planView';
import { notify } from '../../editor/notify';

/** Command ids that set a step's status, one per status (context menu of a step). */
export const STATUS_COMMANDS: Record<StepStatus, string> = {
  pending: 'agentContext.plan.markPending',
  in_progress: 'agentContext.plan.markInProgress',
  completed: 'agentContext.plan.markCompleted',
  blocked: 'agentContext.plan.markBlocked',
  cancelled: 'agentContext.plan.markCancelled',
};

/** Toggles a Markdown checklist item's box ([ ] ↔ [x]); the only byte written is that character. */
export const TOGGLE_ITEM_COMMAND = 'agentContext.plan.toggleItem';

/** Registers the Plan view's commands: set a step's status (byte-preserving edit), toggle a checkbox, refresh. */
export function registerPlanCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, provider: PlanTreeProvider): void {
  const setStatus = async (node: PlanNode | undefined, status: StepStatus): Promise<Result<unknown> | undefined> => {
    if (!node || node.kind !== 'step') {
      void notify.info('right-click a step in the Plan view to change its status.');
      return undefined;
    }
    if (!vscode.workspace.isTrusted) {
      void notify.warn('this workspace is in Restricted Mode; the plan is read-only.');
      return undefined;
    }
    const owner = readOnlyPlanOwner(node.folder.agentDir, node.file, node.version.text);
    if (owner) {
      void notify.info(`this is ${owner}'s own plan: read-only here (${owner} rewrites it).`);
      return undefined;
    }
    const r = await updatePlanFile(node.file, { kind: 'setStatus', stepId: node.step.id, status }, node.version);
    if (r.ok) log.info(`${node.file}: step ${node.step.id} → ${status}`);
    else {
      log.warn(formatFileError(r.error));
      void notify.error(`could not mark step ${node.step.id} ${statusLabel(status)}: ${formatFileError(r.error)}`);
    }
    provider.refresh();
    return r;
  };
  for (const [status, id] of Object.entries(STATUS_COMMANDS) as [StepStatus, string][]) {
    context.subscriptions.push(vscode.commands.registerCommand(id, (node?: PlanNode) => setStatus(node, status)));
  }
  context.subscriptions.push(
    vscode.commands.registerCommand(TOGGLE_ITEM_COMMAND, (node?: PlanNode) => setStatus(node, node?.kind === 'step' ? toggledStatus(node.step.status) : 'completed')),
  );
  context.subscriptions.push(vscode.commands.registerCommand('agentContext.plan.refresh', () => provider.refresh(true)));
}
