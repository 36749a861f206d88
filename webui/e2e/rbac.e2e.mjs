// The web UI's groups, roles, workspace members and access tokens in Chromium (npm playwright-core
// driving Debian's /usr/bin/chromium), against a real master with security.authz.type: rbac that
// tests/e2e/test_webui_rbac.py started. As ADMIN_USER (ClusterAdmin from the first start) it creates
// GROUP_NAME, adds MEMBER to it, gives the group ROLE_NAME in WORKSPACE_ID and sees it on the
// workspace's Members tab, then creates an access token (checked against GET /api/v1/me), edits its
// description and revokes it (checked again). As PLAIN_USER (no roles) it finds no Groups and roles page.
// Environment: DET_MASTER, ADMIN_USER, PLAIN_USER, MEMBER, GROUP_NAME, ROLE_NAME, WORKSPACE_ID,
// WORKSPACE_NAME, SCREENSHOT_DIR, CHROMIUM. Prints one JSON line at the end: {ok, tokenId}.
import path from 'node:path';
import { env, launchChromium, screenshotDir } from './browser.mjs';

const master = env('DET_MASTER');
const shots = screenshotDir();
const step = (name) => console.log(`webui rbac e2e: ${name}`);

const browser = await launchChromium();
const errors = [];
let promptAnswer = ''; // what the next window.prompt is answered

async function signedIn(username) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30000);
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => void (d.type() === 'prompt' ? d.accept(promptAnswer) : d.accept()));
  await page.goto(`${master}/det/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill('');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Experiments' }).waitFor();
  return page;
}

// GET /api/v1/me with `token` as a bearer token: the HTTP status.
async function meWith(token) {
  const r = await fetch(`${master}/api/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
  return r.status;
}

let page;
const shot = (name) => page.screenshot({ path: path.join(shots, `webui-rbac-${name}.png`), fullPage: true });
const noAlert = async (where) => {
  const alerts = await page.getByRole('alert').allTextContents();
  if (alerts.length) throw new Error(`error shown ${where}: ${alerts.join('; ')}`);
};

try {
  const group = env('GROUP_NAME');
  const member = env('MEMBER');
  const role = env('ROLE_NAME');

  step('an admin opens Groups and roles from the nav');
  page = await signedIn(env('ADMIN_USER'));
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups and roles' }).click();
  await page.getByRole('heading', { name: 'Groups and roles' }).waitFor();
  await page.getByText('No groups yet.').waitFor();
  await page.getByTestId('role-row').filter({ hasText: 'ClusterAdmin' }).getByText(env('ADMIN_USER'), { exact: true }).waitFor();

  step('creates a group and adds a member');
  await page.getByLabel('New group name').fill(group);
  await page.getByRole('button', { name: 'Create group' }).click();
  const row = page.getByTestId('group-row').filter({ hasText: group });
  await row.waitFor();
  await page.getByRole('button', { name: `Members of ${group}` }).click();
  await page.getByText('This group has no members.').waitFor();
  await page.getByLabel('User to add').selectOption({ label: member });
  await page.getByRole('button', { name: 'Add member' }).click();
  await page.getByRole('list', { name: `Members of ${group}` }).getByText(member, { exact: true }).waitFor();
  await row.getByRole('cell', { name: '1', exact: true }).waitFor(); // the count follows
  await noAlert('on the groups page');
  await shot('01-groups');

  step('gives the group a role in the workspace, on its Members tab');
  await page.goto(`${master}/det/workspaces/${env('WORKSPACE_ID')}`);
  await page.getByRole('heading', { name: `Workspace: ${env('WORKSPACE_NAME')}` }).waitFor();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Members' }).click();
  await page.waitForURL(/\/members$/);
  const form = page.getByRole('form', { name: 'Assign a role' });
  await form.getByLabel('Role', { exact: true }).selectOption({ label: role });
  await form.getByLabel('Group', { exact: true }).selectOption({ label: group });
  await form.getByRole('button', { name: 'Add to workspace' }).click();
  const memberRow = page.getByTestId('member-row').filter({ hasText: group });
  await memberRow.getByRole('cell', { name: role, exact: true }).waitFor();
  await memberRow.getByText(`(${member})`).waitFor();
  await noAlert('on the Members tab');
  await shot('02-workspace-members');

  step('creates an access token under My tokens');
  await page.getByRole('link', { name: 'My tokens' }).click();
  await page.getByRole('heading', { name: 'My access tokens' }).waitFor();
  await page.getByLabel('Description').fill('rbac e2e token');
  await page.getByLabel('Lifespan').selectOption({ label: '7 days' });
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent()).trim();
  const tokenRow = page.getByTestId('token-row').filter({ has: page.getByRole('cell', { name: 'rbac e2e token' }) });
  await tokenRow.getByRole('cell', { name: 'active', exact: true }).waitFor();
  const tokenId = Number((await tokenRow.getByRole('cell').first().textContent()).trim());
  if (!(await meWith(token) === 200)) throw new Error('the token the page showed does not sign in');
  await noAlert('creating a token');
  await shot('03-token-created');

  step('edits its description');
  promptAnswer = 'rbac e2e token, edited';
  await page.getByRole('button', { name: `Edit description of token ${tokenId}` }).click();
  await page.getByTestId('token-row').filter({ hasText: promptAnswer }).waitFor();

  step('revokes it');
  await page.getByRole('button', { name: `Revoke token ${tokenId}` }).click();
  await page.getByText(`Token ${tokenId} revoked.`).waitFor();
  await page.getByTestId('token-row').filter({ hasText: 'rbac e2e token, edited' }).getByRole('cell', { name: 'revoked', exact: true }).waitFor();
  if (await page.getByTestId('new-token').count()) throw new Error('the revoked token is still shown');
  const after = await meWith(token);
  if (after !== 401) throw new Error(`the revoked token still signs in (GET /api/v1/me: ${after})`);
  await shot('04-token-revoked');

  step('a user without roles has no groups page');
  page = await signedIn(env('PLAIN_USER'));
  if (await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups and roles' }).count()) {
    throw new Error('a user without roles is offered Groups and roles');
  }
  await page.goto(`${master}/det/admin/groups`);
  await page.getByRole('alert').filter({ hasText: 'Only admins' }).waitFor();
  await page.goto(`${master}/det/workspaces/${env('WORKSPACE_ID')}/members`);
  await page.getByRole('heading', { name: 'Members' }).or(page.getByRole('alert')).first().waitFor();
  if (await page.getByRole('form', { name: 'Assign a role' }).count()) throw new Error('a user without roles may assign roles');
  await shot('05-plain-user');

  if (errors.length) throw new Error(`errors in the page: ${errors.join('; ')}`);
  console.log(JSON.stringify({ ok: true, tokenId }));
} catch (e) {
  if (page) await shot('failure').catch(() => {});
  console.error(`webui rbac e2e failed at ${page?.url()}: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
