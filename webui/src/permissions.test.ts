import { describe, expect, it } from 'vitest';
import { ASSIGN_ROLES, canAssignRoles, canChangeGroups, canManageGroups, holds, UPDATE_GROUP } from './permissions';
import type { PermissionsSummary } from './types';

const perm = (id: string) => ({ id, name: id.replace('PERMISSION_TYPE_', '') });
const roles = {
  clusterAdmin: { roleId: 1, name: 'ClusterAdmin', permissions: [perm(UPDATE_GROUP), perm(ASSIGN_ROLES)] },
  workspaceAdmin: { roleId: 2, name: 'WorkspaceAdmin', permissions: [perm(ASSIGN_ROLES), perm('PERMISSION_TYPE_VIEW_WORKSPACE')] },
  viewer: { roleId: 4, name: 'Viewer', permissions: [perm('PERMISSION_TYPE_VIEW_WORKSPACE')] },
};
const user = { id: 3, username: 'bob', admin: false, active: true };
const admin = { ...user, admin: true };

function summary(...held: [keyof typeof roles, 'cluster' | number[]][]): PermissionsSummary {
  return {
    roles: held.map(([r]) => roles[r]),
    assignments: held.map(([r, where]) => ({
      roleId: roles[r].roleId,
      scopeCluster: where === 'cluster',
      scopeWorkspaceIds: where === 'cluster' ? [] : where,
    })),
  };
}

describe('permissions', () => {
  it('basic authz: the admin flag decides', () => {
    const basic = { rbac: false, summary: null };
    expect(canManageGroups(admin, basic)).toBe(true);
    expect(canManageGroups(user, basic)).toBe(false);
    expect(canAssignRoles(admin, basic, 5)).toBe(true);
    expect(canAssignRoles(user, basic, 5)).toBe(false);
    expect(canManageGroups(null, basic)).toBe(false);
  });

  it('rbac: the admin flag alone grants nothing', () => {
    const rbac = { rbac: true, summary: summary(['viewer', 'cluster']) };
    expect(canManageGroups(admin, rbac)).toBe(false);
    expect(canAssignRoles(admin, rbac)).toBe(false);
    expect(canManageGroups(admin, { rbac: true, summary: null })).toBe(false);
  });

  it('rbac: ClusterAdmin cluster-wide manages groups and assigns anywhere', () => {
    const rbac = { rbac: true, summary: summary(['clusterAdmin', 'cluster']) };
    expect(canManageGroups(user, rbac)).toBe(true);
    expect(canChangeGroups(user, rbac)).toBe(true);
    expect(canAssignRoles(user, rbac)).toBe(true);
    expect(canAssignRoles(user, rbac, 7)).toBe(true);
  });

  it('rbac: a workspace role counts in its workspace only', () => {
    const s = summary(['workspaceAdmin', [5]]);
    const rbac = { rbac: true, summary: s };
    expect(holds(s, ASSIGN_ROLES, 5)).toBe(true);
    expect(holds(s, ASSIGN_ROLES, 6)).toBe(false);
    expect(holds(s, ASSIGN_ROLES)).toBe(false);
    expect(canAssignRoles(user, rbac, 5)).toBe(true);
    expect(canAssignRoles(user, rbac, 6)).toBe(false);
    expect(canManageGroups(user, rbac)).toBe(false);
  });

  it('rbac: ASSIGN_ROLES cluster-wide opens the page without changing groups', () => {
    const rbac = { rbac: true, summary: summary(['workspaceAdmin', 'cluster']) };
    expect(canManageGroups(user, rbac)).toBe(true);
    expect(canChangeGroups(user, rbac)).toBe(false);
  });
});
