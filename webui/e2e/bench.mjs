// Web UI figures for bench/RESULTS.md, in Chromium (Debian's, driven by npm playwright-core):
//  1. uPlot drawing 10 series x 10,000 points with the UI's chart options (always);
//  2. with DET_MASTER set (a master serving the built UI, e.g. on bench/metrics_db_gen.py's
//     database): navigation to the experiment list's first rows, and to an experiment's first chart
//     paint (EXPERIMENT=id), each the median of RUNS fresh navigations.
// Usage: node e2e/bench.mjs   (env DET_MASTER, DET_USER=admin, DET_PASSWORD, EXPERIMENT, RUNS=5)
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const uplotJs = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
const runs = Number(process.env.RUNS ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const out = {};

await page.setContent(`<style>${uplotCss}</style><div id="c" style="width:1200px"></div>`);
await page.addScriptTag({ content: uplotJs });
const draws = [];
for (let i = 0; i < runs; i++) {
  draws.push(
    await page.evaluate(async () => {
      const n = 10_000;
      const x = Array.from({ length: n }, (_, i) => i * 10);
      const ys = Array.from({ length: 10 }, (_, s) => x.map((v) => Math.exp(-v / 30000) * (1 + s / 10) + Math.random() * 0.05));
      const el = document.getElementById('c');
      el.innerHTML = '';
      const t0 = performance.now();
      const u = new uPlot(
        {
          width: 1200, height: 320, scales: { x: { time: false } },
          series: [{ label: 'Batches' }, ...ys.map((_, i) => ({ label: `Trial ${i}`, stroke: '#1a5fb4', width: 1.5, spanGaps: true, points: { show: false } }))],
          legend: { live: true },
        },
        [x, ...ys],
        el,
      );
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const ms = performance.now() - t0;
      u.destroy();
      return ms;
    }),
  );
}
out.chart10x10kMs = { median: Math.round(median(draws)), all: draws.map(Math.round) };

const master = process.env.DET_MASTER;
if (master) {
  const login = await page.request.post(`${master}/api/v1/auth/login`, {
    data: { username: process.env.DET_USER ?? 'admin', password: process.env.DET_PASSWORD ?? '' },
  });
  if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
  const list = [];
  for (let i = 0; i < runs; i++) {
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${master}/det/experiments?archived=all`);
    await page.getByTestId('experiment-row').first().waitFor({ timeout: 60000 });
    list.push(Date.now() - t0);
  }
  out.listFirstRowsMs = { median: median(list), all: list };
  if (process.env.EXPERIMENT) {
    const chart = [];
    for (let i = 0; i < runs; i++) {
      await page.goto('about:blank');
      const t0 = Date.now();
      await page.goto(`${master}/det/experiments/${process.env.EXPERIMENT}`);
      await page.waitForFunction(() => Number(document.querySelector('.chart[data-points]')?.getAttribute('data-points')) > 0, null, { timeout: 60000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      chart.push(Date.now() - t0);
    }
    out.experimentChartFirstPaintMs = { median: median(chart), all: chart };
    out.chartPoints = Number(await page.locator('.chart[data-points]').first().getAttribute('data-points'));
  }
}
console.log(JSON.stringify(out));
await browser.close();
