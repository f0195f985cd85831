// The hook scripts as the build ships them, for the tests of the hooks (a module of its own: a test
// file that imported another's helper ran that file's tests again).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shellWithFastPath } from '../../../src/core/hooks/fastPathRules';
import { secretPrefilterEre } from '../../../src/core/hooks/secretPrefilter';
import { repoRoot } from '../../repoRoot';

/**
 * A new temp folder for a hook test, whose path holds no keyword of the masking rules' prefilter:
 * a hook hands a clean small output over without Node only when the folder it ran in holds none
 * either (src/hooks/fastPath.sh), so a folder that mkdtemp's random letters named `…-aSkx1` ("sk",
 * "pat", "key" are keywords) would send the test down the Node path: another name is drawn. A
 * keyword in the temp folder above (the runners name theirs with digits: processes.mjs) is named.
 */
export function cleanTmp(prefix: string): string {
  const re = new RegExp(secretPrefilterEre());
  const base = fs.realpathSync(os.tmpdir());
  const above = re.exec(base.toLowerCase());
  if (above) throw new Error(`the temp folder ${base} holds "${above[0]}", a keyword of the masking rules: hook tests there cannot take the fast path (set TMPDIR to another folder)`);
  for (;;) {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, prefix)));
    if (!re.test(dir.toLowerCase())) return dir;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const tmp = cleanTmp;

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

