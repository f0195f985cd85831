// Renders the extension's Marketplace / Open VSX icon, media/icon.png (128×128 PNG: both galleries
// reject SVG icons), from the SVG below with Debian's Chromium. The glyph is the Activity Bar icon
// (media/agent-context.svg: a folder holding notes), white on a blue tile.
//   node scripts/icon.mjs [--out media/icon.png]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchBrowser } from '../test/runner/browser.mjs';
import { repoRoot } from '../test/runner/deps.mjs';

const SIZE = 128;
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 128 128">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#2f81f7"/>
      <stop offset="1" stop-color="#1a4fa3"/>
    </linearGradient>
  </defs>
  <rect x="0" y="0" width="128" height="128" rx="26" fill="url(#bg)"/>
  <g transform="translate(16 14) scale(4)" fill="none" stroke="#ffffff" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">
    <path d="M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2h8.5A1.5 1.5 0 0 1 21 8.5v9a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 17.5z"/>
    <path d="M7.5 11h6M7.5 14h9"/>
    <circle cx="17" cy="11" r="1" fill="#ffffff"/>
  </g>
</svg>`;

const argv = process.argv.slice(2);
const out = path.resolve(repoRoot, argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : 'media/icon.png');
const browser = await launchBrowser();
try {
  const { page } = browser;
  await page.setViewportSize({ width: SIZE, height: SIZE });
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">${ICON_SVG}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true, animations: 'disabled' });
  // Width and height from the PNG header (IHDR): the galleries want exactly 128×128.
  const [w, h] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  if (w !== SIZE || h !== SIZE) throw new Error(`rendered ${w}×${h}, not ${SIZE}×${SIZE}`);
  fs.writeFileSync(out, png);
  console.log(`[icon] wrote ${path.relative(process.cwd(), out)} (${w}×${h}, ${png.length} bytes)`);
} finally {
  await browser.close();
}
