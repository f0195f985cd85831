// The hook scripts as the build ships them, for the tests of the hooks (a module of its own: a test
// file that imported another's helper ran that file's tests again).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shellWithFastPath } from '../../../src/core/hooks/fastPathRules';
import { secretPrefilterEre } from '../../../src/core/hooks/secretPrefilter';
import { repoRoot } from '../../repoRoot';

const tmp = (p: string): string => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), p)));

/** A dist/ folder as the build makes it: the two scripts, the prefilter, the hook program. */
export function fakeDist(): string {
  const dist = tmp('ac-dist-');
  const lib = fs.readFileSync(path.join(repoRoot, 'src/hooks/fastPath.sh'), 'utf8');
  fs.writeFileSync(path.join(dist, 'agent-context-shell.sh'), shellWithFastPath(fs.readFileSync(path.join(repoRoot, 'src/hooks/shellCapture.sh'), 'utf8'), lib));
  fs.writeFileSync(path.join(dist, 'agent-hook.sh'), shellWithFastPath(fs.readFileSync(path.join(repoRoot, 'src/hooks/agentHook.sh'), 'utf8'), lib));
  fs.writeFileSync(path.join(dist, 'secret-keywords.ere'), `${secretPrefilterEre()}\n`);
  fs.writeFileSync(path.join(dist, 'agent-hook.js'), `require(${JSON.stringify(path.join(repoRoot, 'out/src/hooks/main.js'))});\n`);
  return dist;
}

