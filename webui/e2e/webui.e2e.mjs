// End-to-end test of the web UI in Chromium (npm playwright-core driving Debian's /usr/bin/chromium),
// against a real master and agent that tests/e2e/test_webui.py started and filled with experiments.
// Environment: DET_MASTER (http://127.0.0.1:PORT), DET_USER, DET_PASSWORD, METRICS_EXP (a completed
// experiment with training metrics and logs), METRICS_TRIAL, LOG_LINE (a line its trial printed),
// RUNNING_EXP (running, to be killed) and RUNNING_TRIAL (its trial), QUEUED_JOBS (two queued experiments' names, comma-separated:
// the second is moved ahead of the first), WORKSPACE_ID and WORKSPACE_NAME (a workspace), PROJECT_ID and
// PROJECT_NAME (its project, which holds METRICS_EXP), MODEL_NAME, MODEL_VERSION and CHECKPOINT_UUID (a
// model's version and the checkpoint it holds), SCREENSHOT_DIR. Prints one JSON line of timings at the end.
import path from 'node:path';
import { env, launchChromium, screenshotDir } from './browser.mjs';

const master = env('DET_MASTER');
const shots = screenshotDir();
const timings = {};
const step = (name) => console.log(`webui e2e: ${name}`);

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
page.setDefaultTimeout(30000);
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('dialog', (d) => void d.accept());
// Every error banner the page shows, even briefly (a stale 401 after sign-in, say).
await page.addInitScript(() => {
  window.__alerts = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[role=alert]')) {
      if (!el.__seen) {
        el.__seen = true;
        window.__alerts.push(el.textContent);
      }
    }
  }).observe(document, { childList: true, subtree: true });
});
// Fails when the page has shown an error banner since it was loaded.
const noAlerts = async (where) => {
  const alerts = await page.evaluate(() => window.__alerts);
  if (alerts.length) throw new Error(`errors shown ${where}: ${alerts.join('; ')}`);
};
const shot = (name) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });

try {
  step('/ redirects to /det/ and on to the sign-in page');
  await page.goto(`${master}/`);
  await page.getByRole('heading', { name: 'Sign in to Determined' }).waitFor();
  if (!new URL(page.url()).pathname.startsWith('/det/login')) throw new Error(`expected /det/login, at ${page.url()}`);
  await page.getByLabel('Username').fill(env('DET_USER'));
  await page.getByLabel('Password').fill(process.env.DET_PASSWORD ?? '');
  await shot('01-sign-in');
  let t0 = Date.now();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiments' }).waitFor();
  await page.getByTestId('experiment-row').first().waitFor();
  timings.signInToFirstRowsMs = Date.now() - t0;
  await noAlerts('on the way in');

  step('the experiment list: a fresh navigation shows rows');
  t0 = Date.now();
  await page.goto(`${master}/det/experiments`);
  await page.getByTestId('experiment-row').first().waitFor();
  timings.listFirstRowsMs = Date.now() - t0;

  step('find the metrics experiment by name');
  const metricsExp = env('METRICS_EXP');
  const metricsName = env('METRICS_NAME');
  await page.getByLabel('Name').fill(metricsName);
  await page.waitForURL(/name=/);
  const row = page.getByTestId('experiment-row').filter({ hasText: metricsName });
  await row.first().waitFor();
  await row.first().getByText('loss = 0.05').waitFor(); // its best validation loss
  await shot('02-experiment-list');
  await row.first().getByRole('link', { name: metricsName }).click();

  step('the experiment page draws the trial\'s learning curve');
  await page.getByRole('heading', { name: `Experiment ${metricsExp}: ${metricsName}` }).waitFor();
  const chart = page.locator('.chart[data-points]');
  await chart.first().waitFor();
  await page.waitForFunction(() => Number(document.querySelector('.chart[data-points]')?.getAttribute('data-points')) > 0);
  const points = Number(await chart.first().getAttribute('data-points'));
  if (!(await page.locator('.chart canvas').count())) throw new Error('the chart has no canvas');
  if (points < 1) throw new Error('no points');
  // The searcher metric's validation curve (1 point) is the default; the training loss has 20.
  await page.getByLabel('Metric').selectOption('training.loss');
  await page.waitForFunction(() => Number(document.querySelector('.chart[data-points]')?.getAttribute('data-points')) >= 20);
  timings.chartPoints = Number(await chart.first().getAttribute('data-points'));
  await shot('03-experiment-chart');

  step('the trial\'s logs');
  await page.getByRole('link', { name: 'Trials' }).click();
  await page.getByRole('link', { name: env('METRICS_TRIAL'), exact: true }).click();
  await page.getByRole('heading', { name: `Trial ${env('METRICS_TRIAL')}` }).waitFor();
  await page.waitForFunction(() => Number(document.querySelector('.chart[data-points]')?.getAttribute('data-points')) > 0);
  await shot('04-trial-metrics');
  await page.getByRole('link', { name: 'Logs' }).click();
  await page.getByTestId('logs').getByText(env('LOG_LINE')).first().waitFor();
  await shot('05-trial-logs');

  step('reorder the job queue');
  const [first, second] = env('QUEUED_JOBS').split(',');
  await page.getByRole('link', { name: 'Job queue' }).click();
  await page.getByRole('heading', { name: 'Job queue' }).waitFor();
  const order = async () => (await page.getByTestId('job-row').allTextContents()).map((t) => (t.includes(first) ? first : t.includes(second) ? second : '?'));
  await page.getByRole('button', { name: `Move ${second} up` }).waitFor();
  const before = (await order()).filter((n) => n !== '?');
  if (before.join() !== [first, second].join()) throw new Error(`queue order before: ${before}`);
  await page.getByRole('button', { name: `Move ${second} up` }).click();
  await page.waitForFunction(
    ([a, b]) => {
      const rows = [...document.querySelectorAll('[data-testid=job-row]')].map((r) => r.textContent ?? '');
      return rows.findIndex((t) => t.includes(b)) < rows.findIndex((t) => t.includes(a));
    },
    [first, second],
  );
  await shot('06-job-queue-reordered');

  step('follow the running trial\'s logs in a second tab');
  const follower = await context.newPage();
  await follower.goto(`${master}/det/trials/${env('RUNNING_TRIAL')}/logs`);
  await follower.getByTestId('logs').getByText('running from step 0').first().waitFor();
  await follower.getByText(/following/).waitFor();

  step('kill the running experiment from its page');
  const running = env('RUNNING_EXP');
  await page.goto(`${master}/det/experiments/${running}`);
  await page.getByRole('toolbar', { name: 'Experiment actions' }).getByRole('button', { name: 'Kill' }).click();
  await page.locator('.page-head .badge').filter({ hasText: /Stopping canceled|Canceled/ }).waitFor();
  await shot('07-experiment-killed');

  step('the kill arrives in the followed logs without a reload');
  await follower.getByTestId('logs').getByText(/is CANCELED|stopped at step|exited/).first().waitFor();
  await follower.screenshot({ path: path.join(shots, '07b-followed-logs.png') });
  await follower.close();

  step('the cluster page and a narrow window');
  await page.getByRole('link', { name: 'Cluster' }).click();
  await page.getByRole('table', { name: 'Agents' }).waitFor();
  // The usage section charts the trials and commands that ran above (slot-hours today).
  // "Total" and at least one user's series.
  await page.getByRole('img', { name: /^Slot-hours by user: [2-9]\d* series/ }).waitFor();
  await shot('08-cluster');
  await page.setViewportSize({ width: 420, height: 800 });
  await page.goto(`${master}/det/experiments`);
  await page.getByTestId('experiment-row').first().waitFor();
  await shot('09-narrow-list');

  step('workspaces: the list, a workspace and its project\'s experiments');
  await page.setViewportSize({ width: 1280, height: 800 });
  const nav = page.getByRole('navigation', { name: 'Main' });
  const workspaceName = env('WORKSPACE_NAME');
  const projectName = env('PROJECT_NAME');
  await nav.getByRole('link', { name: 'Workspaces' }).click();
  await page.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor();
  await page.getByTestId('workspace-row').filter({ hasText: workspaceName }).getByRole('link', { name: workspaceName }).click();
  await page.getByRole('heading', { name: `Workspace: ${workspaceName}` }).waitFor();
  if (new URL(page.url()).pathname !== `/det/workspaces/${env('WORKSPACE_ID')}`) throw new Error(`expected the workspace's page, at ${page.url()}`);
  const projectRow = page.getByTestId('project-row').filter({ hasText: projectName });
  await projectRow.waitFor();
  await shot('10-workspace');
  await projectRow.getByRole('link', { name: projectName }).click();
  await page.getByRole('heading', { name: `Project: ${projectName}` }).waitFor();
  if (new URL(page.url()).pathname !== `/det/projects/${env('PROJECT_ID')}/experiments`) throw new Error(`expected the project's experiments, at ${page.url()}`);
  await page.getByTestId('experiment-row').filter({ hasText: metricsName }).waitFor(); // the moved experiment
  await page.getByRole('link', { name: workspaceName, exact: true }).waitFor(); // back to its workspace
  await shot('11-project-experiments');
  await noAlerts('on the workspace pages');

  step('models: the list, a model and its version');
  const modelName = env('MODEL_NAME');
  const version = env('MODEL_VERSION');
  await nav.getByRole('link', { name: 'Models' }).click();
  await page.getByRole('heading', { name: 'Models', exact: true }).waitFor();
  await page.getByTestId('model-row').filter({ hasText: modelName }).getByRole('link', { name: modelName }).click();
  await page.getByRole('heading', { name: `Model: ${modelName}` }).waitFor();
  const versionRow = page.getByTestId('version-row').filter({ hasText: env('CHECKPOINT_UUID') });
  await versionRow.waitFor();
  await shot('12-model');
  await versionRow.getByRole('link', { name: `Version ${version}`, exact: true }).click();
  await page.getByRole('heading', { name: `${modelName} version ${version}` }).waitFor();
  await page.getByText(env('CHECKPOINT_UUID'), { exact: true }).waitFor();
  await page.getByRole('link', { name: `Experiment ${metricsExp}`, exact: true }).waitFor();
  await page.getByRole('table', { name: 'Validation metrics' }).getByRole('row').filter({ hasText: 'loss' }).getByText('0.05').waitFor();
  await shot('13-model-version');
  await noAlerts('on the model pages');

  step('sign out');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Determined' }).waitFor();

  if (errors.length) throw new Error(`errors in the page: ${errors.join('; ')}`);
  console.log(JSON.stringify({ ok: true, timings }));
} catch (e) {
  await shot('failure').catch(() => {});
  console.error(`webui e2e failed at ${page.url()}: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
