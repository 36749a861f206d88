// What the browser end-to-end scripts share: their environment, the screenshot directory and Chromium
// (npm playwright-core driving Debian's /usr/bin/chromium, or $CHROMIUM).
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

// The environment variable `k`; throws when it is not set.
export const env = (k) => {
  const v = process.env[k];
  if (v === undefined) throw new Error(`${k} is not set`);
  return v;
};

// $SCREENSHOT_DIR, made if it is missing.
export function screenshotDir() {
  const dir = env('SCREENSHOT_DIR');
  mkdirSync(dir, { recursive: true });
  return dir;
}

// A headless Chromium without the background traffic that would slow or unsettle a test.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
