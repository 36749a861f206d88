import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch, type MockCall } from '../test/fetchMock';
import { admin, renderAt } from '../test/render';
import AdminGroups from './AdminGroups';

const bob = { id: 3, username: 'bob', admin: false, active: true };
const carol = { id: 4, username: 'carol', admin: false, active: true };
const perm = (id: string) => ({ id: `PERMISSION_TYPE_${id}`, name: id });
const clusterAdmin = { roleId: 1, name: 'ClusterAdmin', permissions: [perm('UPDATE_GROUP'), perm('ASSIGN_ROLES')], scopeTypeMask: { cluster: true, workspace: false } };
const viewer = { roleId: 4, name: 'Viewer', permissions: [perm('VIEW_EXPERIMENT_METADATA'), perm('VIEW_WORKSPACE')], scopeTypeMask: { cluster: true, workspace: true } };

// A master in `mode` with one group (vision: bob) where admin holds ClusterAdmin and the group Viewer cluster-wide.
function master(mode: 'basic' | 'rbac', summary: unknown = { roles: [], assignments: [] }, override?: (c: MockCall) => { status?: number; body?: unknown } | undefined) {
  return mockFetch((c) => {
    const o = override?.(c);
    if (o) return o;
    if (c.url === '/api/v1/master') return { body: { rbacEnabled: mode === 'rbac' } };
    if (c.url === '/api/v1/permissions/summary') return { body: summary };
    if (c.url === '/api/v1/groups/search') return { body: { groups: [{ group: { groupId: 7, name: 'vision' }, numMembers: 1 }] } };
    if (c.url === '/api/v1/groups/7' && c.method === 'GET') return { body: { group: { groupId: 7, name: 'vision', users: [bob] } } };
    if (c.url.startsWith('/api/v1/users?')) return { body: { users: [admin, bob, carol] } };
    if (c.url === '/api/v1/roles/search') return { body: { roles: [clusterAdmin, viewer] } };
    if (c.url === '/api/v1/roles/search/by-ids')
      return { body: { roles: [
        { role: clusterAdmin, groupRoleAssignments: [], userRoleAssignments: [{ userId: 1, roleAssignment: { role: clusterAdmin, scopeCluster: true } }] },
        { role: viewer, groupRoleAssignments: [
          { groupId: 7, roleAssignment: { role: viewer, scopeCluster: true } },
          { groupId: 7, roleAssignment: { role: viewer, scopeCluster: false, scopeWorkspaceId: 2 } },
        ], userRoleAssignments: [] },
      ] } };
    if (c.method !== 'GET') return { body: {} };
    return undefined;
  });
}

afterEach(() => vi.restoreAllMocks());

describe('AdminGroups', () => {
  it('lists groups and roles with their cluster-wide holders', async () => {
    master('basic');
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    const row = await screen.findByTestId('group-row');
    expect(within(row).getAllByRole('cell').map((c) => c.textContent?.trim().split(/\s{2,}/)[0])).toEqual(['vision', '1', expect.stringContaining('Members')]);
    const roles = await screen.findAllByTestId('role-row');
    expect(roles).toHaveLength(2);
    expect(roles[0]).toHaveTextContent('ClusterAdmin');
    expect(roles[0]).toHaveTextContent('cluster only');
    expect(roles[0]).toHaveTextContent('admin');
    expect(roles[1]).toHaveTextContent('2 permissions');
    // Only the cluster-wide assignment is listed here, not the one in workspace 2.
    expect(within(roles[1]!).getAllByRole('listitem').filter((li) => li.textContent?.includes('group vision'))).toHaveLength(1);
  });

  it('creates, renames and deletes a group, and changes its members', async () => {
    const calls = master('basic');
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    vi.spyOn(window, 'prompt').mockReturnValue('vision-team');
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    await userEvent.type(await screen.findByLabelText('New group name'), 'nlp');
    await userEvent.click(screen.getByRole('button', { name: 'Create group' }));
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/groups' && c.method === 'POST')?.body).toEqual({ name: 'nlp' }));
    expect(await screen.findByText('Group nlp created.')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Members of vision' }));
    const members = await screen.findByRole('list', { name: 'Members of vision' });
    expect(within(members).getByText('bob')).toBeInTheDocument();
    // bob is in already: only admin and carol are offered.
    const pick = screen.getByLabelText('User to add');
    expect(within(pick).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choose a user', 'admin', 'carol']);
    await userEvent.selectOptions(pick, 'carol');
    await userEvent.click(screen.getByRole('button', { name: 'Add member' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ addUsers: [4] }]));
    await userEvent.click(screen.getByRole('button', { name: 'Remove bob from vision' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ addUsers: [4] }, { removeUsers: [3] }]));

    await userEvent.click(screen.getByRole('button', { name: 'Rename vision' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').at(-1)).toEqual({ method: 'PUT', url: '/api/v1/groups/7', body: { name: 'vision-team' } }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete vision' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'DELETE')?.url).toBe('/api/v1/groups/7'));
  });

  it('assigns a role cluster-wide and removes it', async () => {
    const calls = master('basic');
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    const form = await screen.findByRole('form', { name: 'Assign a role' });
    await userEvent.selectOptions(within(form).getByLabelText('Role'), 'Viewer');
    await userEvent.selectOptions(within(form).getByLabelText('Kind of holder'), 'user');
    await userEvent.selectOptions(within(form).getByLabelText('User'), 'carol');
    await userEvent.click(within(form).getByRole('button', { name: 'Assign cluster-wide' }));
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/roles/add-assignments')?.body).toEqual({
      userRoleAssignments: [{ userId: 4, roleAssignment: { role: { roleId: 4 }, scopeCluster: true } }],
    }));
    expect(await screen.findByText('Viewer given to carol cluster-wide.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Remove Viewer from group vision' }));
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/roles/remove-assignments')?.body).toEqual({
      groupRoleAssignments: [{ groupId: 7, roleAssignment: { role: { roleId: 4 }, scopeCluster: true } }],
    }));
  });

  it("shows the master's refusal", async () => {
    master('basic', undefined, (c) =>
      c.url === '/api/v1/groups' && c.method === 'POST' ? { status: 400, body: { error: { error: 'name: "xDeterminedPersonalGroup" contains "DeterminedPersonalGroup"' } } } : undefined);
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    await userEvent.type(await screen.findByLabelText('New group name'), 'xDeterminedPersonalGroup');
    await userEvent.click(screen.getByRole('button', { name: 'Create group' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('contains "DeterminedPersonalGroup"');
    expect(screen.getByLabelText('New group name')).toHaveValue('xDeterminedPersonalGroup'); // kept to fix
  });

  it('says when there are no groups', async () => {
    master('basic', undefined, (c) => (c.url === '/api/v1/groups/search' ? { body: { groups: [] } } : undefined));
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    expect(await screen.findByText(/No groups yet/)).toBeInTheDocument();
  });

  it('is refused to non-admins in basic mode and to admins without the permission under rbac', async () => {
    const calls = master('basic');
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />, { ...admin, admin: false });
    expect(await screen.findByRole('alert')).toHaveTextContent('Only admins');
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/master']);
  });

  it('under rbac, follows the permissions summary rather than the admin flag', async () => {
    master('rbac', { roles: [viewer], assignments: [{ roleId: 4, scopeCluster: true, scopeWorkspaceIds: [] }] });
    const first = renderAt('/admin/groups', '/admin/groups', <AdminGroups />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Only admins');
    first.unmount();
    master('rbac', { roles: [clusterAdmin], assignments: [{ roleId: 1, scopeCluster: true, scopeWorkspaceIds: [] }] });
    renderAt('/admin/groups', '/admin/groups', <AdminGroups />, { ...admin, admin: false });
    expect(await screen.findByTestId('group-row')).toHaveTextContent('vision');
    expect(screen.getByRole('button', { name: 'Create group' })).toBeInTheDocument();
  });
});
