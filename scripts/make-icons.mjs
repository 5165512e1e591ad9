// Renders the app icons from src/client/public/favicon.svg with Chromium (playwright-core), once:
// the PNGs are committed, so a build needs no browser. Run again after changing the favicon:
//   node scripts/make-icons.mjs
// 'any' icons keep the favicon's rounded square on a transparent ground; the maskable and Apple icons
// fill the whole square with the brand colour and keep the mark inside the central safe zone (80%).
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const publicDir = path.resolve('src/client/public');
const out = path.join(publicDir, 'icons');
const favicon = fs.readFileSync(path.join(publicDir, 'favicon.svg'), 'utf8');
const BRAND = '#7c3aed';

// Full bleed: no rounded corners (the platform applies its own mask), the mark shrunk into the safe zone.
const fullBleed = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" fill="none" stroke="#fff" stroke-width="2.5" stroke-linecap="round" stroke-linejoin="round">
  <rect width="32" height="32" fill="${BRAND}" stroke="none" />
  <g transform="translate(16 16) scale(0.8) translate(-16 -16)">
    <path d="m7 10 2 2 4-4M7 18l2 2 4-4M17 10h8M17 18h8M7 24h18" />
  </g>
</svg>`;

const icons = [
  { file: 'icon-192.png', size: 192, svg: favicon },
  { file: 'icon-512.png', size: 512, svg: favicon },
  { file: 'icon-maskable-512.png', size: 512, svg: fullBleed },
  { file: 'apple-touch-icon.png', size: 180, svg: fullBleed },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  fs.mkdirSync(out, { recursive: true });
  for (const { file, size, svg } of icons) {
    await page.setViewportSize({ width: size, height: size });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}img{display:block}</style><img src="${src}" width="${size}" height="${size}">`,
    );
    await page.locator('img').evaluate((img) => img.decode());
    await page.screenshot({ path: path.join(out, file), omitBackground: true });
    process.stdout.write(`${file} ${size}x${size}\n`);
  }
} finally {
  await browser.close();
}
