// A folder of small files for the digest tests (fileDigests.test.ts, digestCheck.test.ts): `n` files
// `.agent/things/<i>.md` holding `thing <i>`, and a read that records which files it read.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function digestFolder(n: number): { agentDir: string; files: string[]; reads: string[]; read: (f: string) => Promise<string> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-digests-'));
  const agentDir = path.join(root, '.agent');
  fs.mkdirSync(path.join(agentDir, 'things'), { recursive: true });
  const files = Array.from({ length: n }, (_, i) => path.join(agentDir, 'things', `${i}.md`));
  files.forEach((f, i) => fs.writeFileSync(f, `thing ${i}`));
  const reads: string[] = [];
  const read = async (f: string): Promise<string> => {
    reads.push(path.basename(f));
    return (await fs.promises.readFile(f, 'utf8')).toUpperCase();
  };
  return { agentDir, files, reads, read };
}
