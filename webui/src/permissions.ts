// What the signed-in user may manage, as the web UI decides which controls to show. The master
// decides for itself on every request (a refusal is a 403 naming the missing permission); this
// only spares people buttons that would be refused.
//
// basic authz: admins manage groups and roles. rbac (GET /api/v1/master's rbacEnabled): a user
// may do what a role they hold grants, cluster-wide or in the workspace in question, read from
// GET /api/v1/permissions/summary.
import { useEffect, useState } from 'react';
import { request } from './api';
import { useAuth } from './auth';
import type { PermissionsSummary, User } from './types';

export const UPDATE_GROUP = 'PERMISSION_TYPE_UPDATE_GROUP';
export const ASSIGN_ROLES = 'PERMISSION_TYPE_ASSIGN_ROLES';
export const CLUSTER_ADMIN = 'ClusterAdmin';

export interface Access {
  rbac: boolean;
  summary: PermissionsSummary | null;
}

// Whether `summary` grants `permission` cluster-wide, or (given `workspaceId`) in that workspace.
export function holds(summary: PermissionsSummary | null, permission: string, workspaceId?: number): boolean {
  if (!summary) return false;
  return summary.assignments.some((a) => {
    const here = a.scopeCluster || (workspaceId !== undefined && (a.scopeWorkspaceIds ?? []).includes(workspaceId));
    if (!here) return false;
    const role = summary.roles.find((r) => r.roleId === a.roleId);
    return !!role && (role.name === CLUSTER_ADMIN || role.permissions.some((p) => p.id === permission));
  });
}

// The groups and roles page: groups changed, or roles assigned, cluster-wide.
export function canManageGroups(user: User | null | undefined, access: Access): boolean {
  if (!user) return false;
  if (!access.rbac) return user.admin;
  return holds(access.summary, UPDATE_GROUP) || holds(access.summary, ASSIGN_ROLES);
}

export function canChangeGroups(user: User | null | undefined, access: Access): boolean {
  if (!user) return false;
  return access.rbac ? holds(access.summary, UPDATE_GROUP) : user.admin;
}

// Assigning roles cluster-wide (no `workspaceId`) or in a workspace.
export function canAssignRoles(user: User | null | undefined, access: Access, workspaceId?: number): boolean {
  if (!user) return false;
  return access.rbac ? holds(access.summary, ASSIGN_ROLES, workspaceId) : user.admin;
}

// The master's authz mode and the user's permissions; `loaded` is false until both are known. A
// master that cannot say counts as basic (the admin flag decides, and the master still checks).
export function useAccess(): Access & { loaded: boolean } {
  const { user } = useAuth();
  const [state, setState] = useState<Access & { loaded: boolean }>({ rbac: false, summary: null, loaded: false });
  const userId = user?.id;
  useEffect(() => {
    if (userId === undefined) return;
    let live = true;
    (async () => {
      let rbac = false;
      let summary: PermissionsSummary | null = null;
      try {
        rbac = !!(await request<{ rbacEnabled?: boolean }>('/api/v1/master')).rbacEnabled;
        if (rbac) summary = await request<PermissionsSummary>('/api/v1/permissions/summary');
      } catch {
        // Fall through: basic rules (or no rbac permissions); the master refuses what is not allowed.
      }
      if (live) setState({ rbac, summary, loaded: true });
    })();
    return () => {
      live = false;
    };
  }, [userId]);
  return state;
}
