import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockFetch, project, workspace } from '../test/fetchMock';
import { admin, renderAt } from '../test/render';
import WorkspaceDetail from './WorkspaceDetail';

const ws = workspace(2, { name: 'vision', numProjects: 2, defaultComputePool: 'gpu', checkpointStorageConfig: { type: 'shared_fs', host_path: '/ckpt' } });

describe('WorkspaceDetail', () => {
  it('shows the settings and links each project to its experiments', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/workspaces/2') return { body: { workspace: ws } };
      if (c.url.startsWith('/api/v1/workspaces/2/projects?'))
        return { body: { projects: [
          project(5, { name: 'detection', key: 'DET', description: 'boxes', numExperiments: 3, numActiveExperiments: 1, lastExperimentStartedAt: '2026-11-26T03:00:00Z' }),
          project(6, { name: 'old', archived: true }),
        ], pagination: { total: 2 } } };
      return undefined;
    });
    renderAt('/workspaces/:id', '/workspaces/2', <WorkspaceDetail />);
    expect(await screen.findByRole('heading', { name: 'Workspace: vision' })).toBeInTheDocument();
    expect(screen.getByText('gpu')).toBeInTheDocument();
    expect(screen.getByText('{"type":"shared_fs","host_path":"/ckpt"}')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'detection' })).toHaveAttribute('href', '/projects/5/experiments');
    const rows = screen.getAllByTestId('project-row');
    const cells = within(rows[0]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 5)).toEqual(['detection', 'DET', 'boxes', '3', '1']);
    expect(cells[5]).not.toBe('–');
    expect(cells[6]).toBe('No');
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['old', 'PRJ6', '–', '0', '0', '–', 'Yes']);
  });

  it('says when the workspace has no projects', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/workspaces/2') return { body: { workspace: ws } };
      if (c.url.startsWith('/api/v1/workspaces/2/projects')) return { body: { projects: [], pagination: { total: 0 } } };
      return undefined;
    });
    renderAt('/workspaces/:id', '/workspaces/2', <WorkspaceDetail />);
    expect(await screen.findByText(/No projects in this workspace/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('says when the workspace does not exist', async () => {
    mockFetch(() => ({ status: 404, body: { error: { error: 'workspace 99 not found' } } }));
    renderAt('/workspaces/:id', '/workspaces/99', <WorkspaceDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('workspace 99 not found');
  });

  it('refuses an id that is not a number', async () => {
    const calls = mockFetch(() => undefined);
    renderAt('/workspaces/:id', '/workspaces/abc', <WorkspaceDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('"abc" is not a workspace id.');
    expect(calls).toEqual([]);
  });
});

describe('WorkspaceDetail members tab', () => {
  const viewer = { roleId: 4, name: 'Viewer', permissions: [] };
  const editor = { roleId: 5, name: 'Editor', permissions: [] };
  const inWs = (role: typeof viewer, scopeWorkspaceId = 2) => ({ role, scopeCluster: false, scopeWorkspaceId });
  const bob = { id: 3, username: 'bob', admin: false, active: true };
  const members = {
    groups: [{ groupId: 7, name: 'vision-team', users: [bob] }],
    usersAssignedDirectly: [{ id: 4, username: 'carol', admin: false, active: true }],
    assignments: [
      { role: viewer, groupRoleAssignments: [], userRoleAssignments: [{ userId: 4, roleAssignment: inWs(viewer) }] },
      { role: editor, groupRoleAssignments: [{ groupId: 7, roleAssignment: inWs(editor) }], userRoleAssignments: [] },
    ],
  };
  const editorHere = { roles: [editor], assignments: [{ roleId: 5, scopeCluster: false, scopeWorkspaceIds: [2] }] };
  const route = (mode: 'basic' | 'rbac', body: unknown = members, summary: unknown = editorHere) => (c: { url: string; method: string }) => {
    if (c.url === '/api/v1/workspaces/2') return { body: { workspace: ws } };
    if (c.url.startsWith('/api/v1/workspaces/2/projects')) return { body: { projects: [], pagination: { total: 0 } } };
    if (c.url === '/api/v1/master') return { body: { rbacEnabled: mode === 'rbac' } };
    if (c.url === '/api/v1/permissions/summary') return { body: summary };
    if (c.url === '/api/v1/roles/workspace/2') return { body };
    if (c.url === '/api/v1/roles/search/by-assignability') return { body: { roles: [viewer, editor] } };
    if (c.url === '/api/v1/groups/search') return { body: { groups: [{ group: { groupId: 7, name: 'vision-team' }, numMembers: 1 }] } };
    if (c.url.startsWith('/api/v1/users?')) return { body: { users: [bob] } };
    if (c.url === '/api/v1/roles/add-assignments' && c.method === 'POST') return { status: 403, body: { error: { error: 'user admin lacks PERMISSION_TYPE_ASSIGN_ROLES in workspace 2' } } };
    if (c.method === 'POST') return { body: {} };
    return undefined;
  };

  it('lists groups and users with their roles in the workspace, and adds and removes them', async () => {
    const calls = mockFetch(route('basic'));
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
    renderAt('/workspaces/:id/:tab', '/workspaces/2/members', <WorkspaceDetail />);
    expect(await screen.findByRole('link', { name: 'Members' })).toHaveAttribute('aria-current', 'page');
    const rows = await screen.findAllByTestId('member-row');
    expect(rows.map((r) => within(r).getAllByRole('cell').slice(0, 3).map((c) => c.textContent))).toEqual([
      ['vision-team (bob)', 'group', 'Editor'],
      ['carol', 'user', 'Viewer'],
    ]);
    await userEvent.click(screen.getByRole('button', { name: 'Remove Viewer from carol' }));
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/roles/remove-assignments')?.body).toEqual({
      userRoleAssignments: [{ userId: 4, roleAssignment: { role: { roleId: 4 }, scopeWorkspaceId: 2 } }],
    }));
    const form = await screen.findByRole('form', { name: 'Assign a role' });
    await userEvent.selectOptions(within(form).getByLabelText('Role'), 'Viewer');
    await userEvent.selectOptions(within(form).getByLabelText('Group'), 'vision-team');
    await userEvent.click(within(form).getByRole('button', { name: 'Add to workspace' }));
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/roles/add-assignments')?.body).toEqual({
      groupRoleAssignments: [{ groupId: 7, roleAssignment: { role: { roleId: 4 }, scopeWorkspaceId: 2 } }],
    }));
    // The master refused (this mock says 403): its message is shown.
    expect(await screen.findByRole('alert')).toHaveTextContent('user admin lacks PERMISSION_TYPE_ASSIGN_ROLES in workspace 2');
    confirm.mockRestore();
  });

  it('hides the controls from those who may not assign roles here', async () => {
    const calls = mockFetch(route('basic'));
    renderAt('/workspaces/:id/:tab', '/workspaces/2/members', <WorkspaceDetail />, { ...admin, admin: false });
    await screen.findAllByTestId('member-row');
    expect(screen.queryByRole('form', { name: 'Assign a role' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Remove/ })).not.toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/v1/roles/search/by-assignability')).toBe(false);
  });

  it('under rbac, an Editor in the workspace sees no controls; says when nobody holds a role', async () => {
    mockFetch(route('rbac', { groups: [], usersAssignedDirectly: [], assignments: [] }));
    renderAt('/workspaces/:id/:tab', '/workspaces/2/members', <WorkspaceDetail />);
    expect(await screen.findByText(/Nobody holds a role in this workspace itself/)).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Assign a role' })).not.toBeInTheDocument();
  });

  it('under rbac, a WorkspaceAdmin there (not an admin) gets the controls', async () => {
    const wsAdmin = { roleId: 2, name: 'WorkspaceAdmin', permissions: [{ id: 'PERMISSION_TYPE_ASSIGN_ROLES', name: 'ASSIGN_ROLES' }] };
    mockFetch(route('rbac', members, { roles: [wsAdmin], assignments: [{ roleId: 2, scopeCluster: false, scopeWorkspaceIds: [2] }] }));
    renderAt('/workspaces/:id/:tab', '/workspaces/2/members', <WorkspaceDetail />, { ...admin, admin: false });
    expect(await screen.findByRole('form', { name: 'Assign a role' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Remove Editor from vision-team' })).toBeInTheDocument();
  });
});
