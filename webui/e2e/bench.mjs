// Web UI figures for bench/RESULTS.md, in Chromium (Debian's, driven by npm playwright-core):
//  1. uPlot drawing 10 series x 10,000 points with the UI's chart options (always);
//  2. with DET_MASTER set (a master serving the built UI, e.g. on bench/metrics_db_gen.py's
//     database): a page load of /det/experiments to its first rows (browser cache warm after the
//     first run), a click on Experiments in the app to its first rows, and a page load of an
//     experiment (EXPERIMENT=id) to its chart's first paint; each the median of RUNS.
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
// Installed in every page before its scripts: the time (ms since navigation start) when the first
// element matching a selector appears, and when a chart with points has been painted.
const watch = () => {
  window.__marks = {};
  const check = () => {
    if (!window.__marks.rows && document.querySelector('[data-testid=experiment-row]')) window.__marks.rows = performance.now();
    const chart = document.querySelector('.chart[data-points]');
    if (!window.__marks.chart && chart && Number(chart.getAttribute('data-points')) > 0 && chart.querySelector('canvas')) {
      window.__marks.chart = -1;
      requestAnimationFrame(() => { window.__marks.chart = performance.now(); });
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
};
const mark = (name) => page.waitForFunction((n) => window.__marks?.[n] > 0 && window.__marks[n], name, { timeout: 60000 }).then((h) => h.jsonValue());

if (master) {
  const login = await page.request.post(`${master}/api/v1/auth/login`, {
    data: { username: process.env.DET_USER ?? 'admin', password: process.env.DET_PASSWORD ?? '' },
  });
  if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
  await page.addInitScript(watch);
  const list = [];
  for (let i = 0; i < runs; i++) {
    await page.goto(`${master}/det/experiments`);
    list.push(Math.round(await mark('rows')));
  }
  out.listPageLoadFirstRowsMs = { median: median(list), all: list };
  // In the app: from the job queue page, a click on Experiments until its rows show.
  const inApp = [];
  for (let i = 0; i < runs; i++) {
    await page.goto(`${master}/det/jobs`);
    await page.getByRole('heading', { name: 'Job queue' }).waitFor();
    inApp.push(Math.round(await page.evaluate(() => new Promise((resolve) => {
      const t0 = performance.now();
      new MutationObserver((_, obs) => {
        if (document.querySelector('[data-testid=experiment-row]')) {
          obs.disconnect();
          resolve(performance.now() - t0);
        }
      }).observe(document, { childList: true, subtree: true });
      document.querySelector('nav a[href="/det/experiments"]').click();
    }))));
  }
  out.listInAppFirstRowsMs = { median: median(inApp), all: inApp };
  if (process.env.EXPERIMENT) {
    const chart = [];
    for (let i = 0; i < runs; i++) {
      await page.goto(`${master}/det/experiments/${process.env.EXPERIMENT}`);
      chart.push(Math.round(await mark('chart')));
    }
    out.experimentPageLoadChartPaintMs = { median: median(chart), all: chart };
    out.chartPoints = Number(await page.locator('.chart[data-points]').first().getAttribute('data-points'));
  }
}
console.log(JSON.stringify(out));
await browser.close();
