import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAYOUT } from '../agentLayout';

/** Plan locations inside `.agent/`, in display order: files, then folders of `*.yaml`. */
export const PLAN_FILES = [LAYOUT.plan, 'scratch/current_plan.yaml'] as const;
export const PLAN_FOLDERS = [LAYOUT.plans, 'scratch/plans'] as const;

const isYaml = (name: string) => name.endsWith('.yaml') || name.endsWith('.yml');

/** Finds plan files: `.agent/plan.yaml`, `.agent/plans/*.yaml`, `.agent/scratch/current_plan.yaml`, `.agent/scratch/plans/*.yaml`. */
export async function findPlanFiles(agentDir: string): Promise<string[]> {
  const found: string[] = [];
  const isFile = async (f: string) => (await fs.promises.lstat(f).catch(() => undefined))?.isFile() ?? false;
  if (await isFile(path.join(agentDir, LAYOUT.plan))) found.push(path.join(agentDir, LAYOUT.plan));
  for (const dir of PLAN_FOLDERS) {
    const abs = path.join(agentDir, dir);
    const names = await fs.promises.readdir(abs, { withFileTypes: true }).catch(() => []);
    // Symlinks are not followed: a plan is edited in place and must live inside .agent/.
    found.push(...names.filter((e) => e.isFile() && isYaml(e.name)).map((e) => path.join(abs, e.name)).sort());
  }
  const current = path.join(agentDir, 'scratch/current_plan.yaml');
  if (await isFile(current)) found.push(current);
  return found;
}

/** True when `file` (absolute) is at one of the plan locations of `agentDir`, whether or not it exists. */
export function isPlanPath(agentDir: string, file: string): boolean {
  const rel = path.relative(agentDir, file).split(path.sep).join('/');
  if ((PLAN_FILES as readonly string[]).includes(rel)) return true;
  const dir = path.posix.dirname(rel);
  return (PLAN_FOLDERS as readonly string[]).includes(dir) && isYaml(rel);
}
