// Seeded raw terminal streams for rows 1 and 2: what a shell-integrated execution's read() yields.
// Every visible line stays under STREAM_MAX_COLS cells so the xterm oracle never wraps.
import { rng } from './harness';

/** No visible line of a generated stream is wider than this many cells. */
export const STREAM_MAX_COLS = 240;

const ESC = '\x1b';
const sgr = (codes: string): string => `${ESC}[${codes}m`;
const RESET = sgr('0');

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const WORDS = ['core', 'util', 'parser', 'render', 'net', 'http', 'db', 'cache', 'auth', 'io', 'fmt', 'log', 'json', 'yaml', 'grid', 'scheduler', 'worker', 'queue'];
const CJK = ['构建', '测试', 'テスト', '設定', '한국어', 'données', 'Größe', 'ошибка'];
const EMOJI = ['✅', '🚀', '📦', '⚠️'];

function path_(r: Rand): string {
  return `src/${pick(r, WORDS)}/${pick(r, WORDS)}_${int(r, 1, 400)}.${pick(r, ['c', 'cpp', 'ts', 'rs', 'go'])}`;
}

/** A coloured build log (CMake/ninja/gcc/webpack style), about `bytes` long. */
export function colouredBuildLog(bytes: number, seed = 1): string {
  const r = rng(seed);
  const parts: string[] = [];
  let size = 0;
  let step = 0;
  const total = 5000;
  while (size < bytes) {
    step = (step % total) + 1;
    const pct = String(Math.floor((step * 100) / total)).padStart(3);
    const p = path_(r);
    let line: string;
    const k = r();
    if (k < 0.7) line = `${sgr('32')}[${pct}%]${RESET} ${sgr('32')}Building ${pick(r, ['C', 'CXX'])} object ${p}.o${RESET}`;
    else if (k < 0.8) line = `${sgr('1')}${p}:${int(r, 1, 900)}:${int(r, 1, 80)}: ${sgr('1;35')}warning: ${RESET}${sgr('1')}unused variable ‘${pick(r, WORDS)}’ [${sgr('1;35')}-Wunused-variable${RESET}${sgr('1')}]${RESET}`;
    else if (k < 0.84) line = `${sgr('1')}${p}:${int(r, 1, 900)}:${int(r, 1, 80)}: ${sgr('1;31')}error: ${RESET}‘${pick(r, WORDS)}’ was not declared in this scope`;
    else if (k < 0.9) line = `  ${int(r, 1, 900)} |   ${pick(r, WORDS)} = ${pick(r, WORDS)}(${pick(r, WORDS)}, ${int(r, 0, 99)});\r\n      |   ${sgr('1;31')}^~~~~~${RESET}`;
    else if (k < 0.95) line = `${sgr('1;34')}asset${RESET} ${sgr('1;32')}${pick(r, WORDS)}.${int(r, 100, 999)}.js${RESET} ${int(r, 1, 900)} KiB ${sgr('1;32')}[emitted]${RESET} ${sgr('1;32')}[minimized]${RESET} (name: ${pick(r, WORDS)}) ${pick(r, EMOJI)}`;
    else line = `${sgr('38;5;244')}${new Date(1764400000000 + step * 1000).toISOString()}${RESET} ${sgr('38;2;255;165;0')}[${pick(r, CJK)}]${RESET}\t${pick(r, WORDS)}\tdone in ${int(r, 1, 9999)} ms`;
    line += '\r\n';
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

/** Progress bars redrawn with \r and erase-line (npm/pip/cargo/docker style), about `bytes` long. */
export function progressBars(bytes: number, seed = 2): string {
  const r = rng(seed);
  const parts: string[] = [];
  let size = 0;
  const spin = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  while (size < bytes) {
    const name = `${pick(r, WORDS)}-${int(r, 0, 9)}.${int(r, 0, 30)}.${int(r, 0, 9)}.tar.gz`;
    const style = r();
    const steps = int(r, 10, 60);
    let s = '';
    for (let i = 0; i <= steps; i++) {
      const pct = Math.round((i * 100) / steps);
      const filled = Math.round((pct * 40) / 100);
      if (style < 0.4) {
        s += `\r${ESC}[K  Downloading ${name} [${'='.repeat(filled)}${filled < 40 ? '>' : ''}${' '.repeat(Math.max(0, 39 - filled))}] ${pct}% ${(r() * 9).toFixed(1)} MB/s eta 0:00:${String(int(r, 0, 59)).padStart(2, '0')}`;
      } else if (style < 0.7) {
        s += `${ESC}[2K\r${sgr('36')}${spin[i % spin.length]}${RESET} Installing ${name} ${sgr('2')}(${i}/${steps})${RESET}`;
      } else {
        s += `\r${sgr('1;32')}    Compiling${RESET} ${pick(r, WORDS)} v0.${int(r, 1, 9)}.${int(r, 0, 9)} ${'█'.repeat(Math.floor(filled / 2))}${'░'.repeat(20 - Math.floor(filled / 2))} ${pct}%`;
      }
    }
    s += style < 0.7 ? `\r${ESC}[K${sgr('32')}✔${RESET} ${name} done\r\n` : '\r\n';
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

/** `seq 1 N` with \r\n line ends, N chosen so the stream is at least `bytes` long. */
export function seqOutput(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const s = `${i}\r\n`;
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

/** A coloured test run (mocha/jest style) with failures and stack traces, about `bytes` long. */
export function testRunWithStacks(bytes: number, seed = 4): string {
  const r = rng(seed);
  const parts: string[] = [];
  let size = 0;
  let n = 0;
  while (size < bytes) {
    let s = `\r\n  ${sgr('1')}${pick(r, WORDS)} ${pick(r, WORDS)}${RESET}\r\n`;
    const tests = int(r, 3, 15);
    for (let i = 0; i < tests; i++) {
      n++;
      const title = `${pick(r, ['returns', 'handles', 'rejects', 'parses', 'renders'])} ${pick(r, WORDS)} ${r() < 0.1 ? pick(r, CJK) : 'input'} #${n}`;
      if (r() < 0.08) {
        s += `    ${sgr('31')}${n}) ${title}${RESET}\r\n`;
        s += `      ${sgr('31')}AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:${RESET}\r\n`;
        s += `      ${sgr('32')}+ actual${RESET} ${sgr('31')}- expected${RESET}\r\n\r\n      ${sgr('32')}+ ${int(r, 0, 999)}${RESET}\r\n      ${sgr('31')}- ${int(r, 0, 999)}${RESET}\r\n`;
        const depth = int(r, 4, 12);
        for (let d = 0; d < depth; d++) {
          s += `      ${sgr('90')}at ${pick(r, ['Context.<anonymous>', 'processImmediate', 'Test.run', 'Runner.runTests', 'async Promise.all'])} (${path_(r).replace(/\.\w+$/, '.js')}:${int(r, 1, 900)}:${int(r, 1, 80)})${RESET}\r\n`;
        }
      } else {
        s += `    ${sgr('32')}✔${RESET} ${sgr('90')}${title}${RESET}${r() < 0.2 ? ` ${sgr('33')}(${int(r, 50, 900)}ms)${RESET}` : ''}\r\n`;
      }
    }
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

/** Cuts a stream into chunks of about `size` characters, or of the sizes `size()` gives one by one (never inside a surrogate pair). */
export function chunked(text: string, size: number | (() => number) = 16 * 1024): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + (typeof size === 'number' ? size : size()));
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}
