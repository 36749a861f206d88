// The trial Profiler tab in Chromium (npm playwright-core driving Debian's /usr/bin/chromium), against a
// real master that tests/e2e/test_profiler.py filled. Environment: DET_MASTER, DET_USER, DET_PASSWORD,
// PROFILED_TRIAL (a trial with profiler rows), PLAIN_TRIAL (one without), SCREENSHOT_DIR, CHROMIUM.
// Prints one JSON line at the end: the group headings and chart count seen, and the cpu chart's points.
import path from 'node:path';
import { env, launchChromium, screenshotDir } from './browser.mjs';

const master = env('DET_MASTER');
const shots = screenshotDir();
const step = (name) => console.log(`profiler e2e: ${name}`);

const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
page.setDefaultTimeout(30000);
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));

try {
  step('sign in');
  await page.goto(`${master}/det/login`);
  await page.getByLabel('Username').fill(env('DET_USER'));
  await page.getByLabel('Password').fill(process.env.DET_PASSWORD ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiments' }).waitFor();

  step('the profiled trial: its Profiler tab, from the trial page');
  await page.goto(`${master}/det/trials/${env('PROFILED_TRIAL')}`);
  await page.getByRole('link', { name: 'Profiler' }).click();
  await page.waitForURL(/\/profiler$/);
  const cpu = page.getByRole('img', { name: /^cpu_util_simple \(cpu\) over time: 1 series, \d+ points$/ });
  await cpu.waitFor();
  await page.getByRole('img', { name: /^disk_util \(disk\) over time: \d+ series/ }).waitFor();
  await page.getByRole('img', { name: /^train_batch \(timings\) over time: 1 series/ }).waitFor();
  // uPlot has drawn: its canvas and legend are in the chart.
  await cpu.locator('canvas').first().waitFor();
  const groups = await page.getByTestId('profiler-group').getByRole('heading', { level: 2 }).allTextContents();
  const charts = await page.getByRole('img', { name: / over time: / }).count();
  const cpuPoints = Number(await cpu.getAttribute('data-points'));
  if (await page.getByText('No profiler data for this trial').count()) throw new Error('empty state beside charts');
  await page.screenshot({ path: path.join(shots, 'profiler-tab.png'), fullPage: true });

  step('the unprofiled trial: the empty state says how to turn the profiler on');
  await page.goto(`${master}/det/trials/${env('PLAIN_TRIAL')}/profiler`);
  await page.getByRole('heading', { name: 'No profiler data for this trial' }).waitFor();
  for (const how of ['profiling: {enabled: true}', 'trainer.fit(..., profiling_enabled=True)', 'core_context.profiler.on()']) {
    await page.getByText(how, { exact: true }).waitFor();
  }
  if (await page.getByRole('img', { name: / over time: / }).count()) throw new Error('charts for an unprofiled trial');
  await page.screenshot({ path: path.join(shots, 'profiler-empty.png') });

  if (errors.length) throw new Error(`errors in the page: ${errors.join('; ')}`);
  console.log(JSON.stringify({ groups: groups.map((g) => g.replace(/group \w+$/, '').trim()), charts, cpuPoints }));
} catch (e) {
  await page.screenshot({ path: path.join(shots, 'failure.png') }).catch(() => {});
  console.error(`profiler e2e failed at ${page.url()}: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
