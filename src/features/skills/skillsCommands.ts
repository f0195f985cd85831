import * as vscode from 'vscode';
import { formatSkillIndex } from '../../core/skills/skillsIndex';
import { SkillsTreeProvider } from './skillsView';
import { notify } from '../../editor/notify';
import { plural } from '../../core/output/humanize';

/** Registers "Copy Skill Index" (the compact `name: description (path)` list) and refresh. */
export function registerSkillsCommands(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, provider: SkillsTreeProvider): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('agentContext.skills.refresh', () => provider.refresh()),
    vscode.commands.registerCommand('agentContext.skills.copyIndex', async (): Promise<string> => {
      const all = await provider.allSkills();
      const multi = all.length > 1;
      // In a multi-root workspace each folder's paths are relative to that folder, so name it.
      const text = all
        .map(({ folder, skills }) => (multi ? `# ${folder.folder.name}\n` : '') + formatSkillIndex(skills))
        .filter((t) => t.trim() !== '')
        .join('\n');
      const count = all.reduce((s, a) => s + a.skills.filter((k) => !k.error).length, 0);
      const broken = all.reduce((s, a) => s + a.skills.filter((k) => k.error).length, 0);
      await vscode.env.clipboard.writeText(text);
      log.info(`copied skill index: ${count} skills`);
      void notify.info(
        count === 0 ? 'Agent Context: no skills with valid frontmatter to copy.' : `Copied the index of ${plural(count, 'skill')}${broken ? ` (${broken} with broken frontmatter left out)` : ''}.`,
      );
      return text;
    }),
  );
}
