import { request } from '../api';
import { useAuth } from '../auth';
import { Empty, ErrorBanner, Spinner } from '../components/Feedback';
import { useAction, usePoll } from '../hooks';
import { canAssignRoles, useAccess } from '../permissions';
import type { GroupDetails, Role, RoleWithAssignments, User } from '../types';
import { AssignForm, assignmentBody, listUsers, searchGroups, type Holder } from './AdminGroups';

interface WorkspaceRoles {
  groups: GroupDetails[];
  usersAssignedDirectly: User[];
  assignments: RoleWithAssignments[];
}

export interface MemberRow {
  holder: Holder;
  name: string;
  members?: string[]; // a group's users
  role: Role;
}

// One row per (group or user, role) held in `workspaceId`, groups first, then by name and role.
export function memberRows(data: WorkspaceRoles, workspaceId: number): MemberRow[] {
  const rows: MemberRow[] = [];
  for (const a of data.assignments) {
    for (const g of a.groupRoleAssignments) {
      if (g.roleAssignment.scopeWorkspaceId !== workspaceId) continue;
      const group = data.groups.find((x) => x.groupId === g.groupId);
      rows.push({ holder: { kind: 'group', id: g.groupId }, name: group?.name ?? `group ${g.groupId}`, members: (group?.users ?? []).map((u) => u.username), role: a.role });
    }
    for (const u of a.userRoleAssignments) {
      if (u.roleAssignment.scopeWorkspaceId !== workspaceId) continue;
      const user = data.usersAssignedDirectly.find((x) => x.id === u.userId);
      rows.push({ holder: { kind: 'user', id: u.userId }, name: user?.username ?? `user ${u.userId}`, role: a.role });
    }
  }
  return rows.sort((x, y) => (x.holder.kind === y.holder.kind ? 0 : x.holder.kind === 'group' ? -1 : 1) || x.name.localeCompare(y.name) || x.role.roleId - y.role.roleId);
}

// A workspace's Members tab: the groups and users holding a role in it, and (for those who may
// assign roles there) adding and removing them.
export function WorkspaceMembers({ workspaceId, workspaceName }: { workspaceId: number; workspaceName: string }) {
  const { user: me } = useAuth();
  const access = useAccess();
  const editable = access.loaded && canAssignRoles(me, access, workspaceId);
  const members = usePoll((signal) => request<WorkspaceRoles>(`/api/v1/roles/workspace/${workspaceId}`, { signal }), null, [workspaceId]);
  const choices = usePoll(
    async (signal) => {
      if (!editable) return undefined;
      const [roles, groups, users] = await Promise.all([
        request<{ roles: Role[] }>('/api/v1/roles/search/by-assignability', { method: 'POST', body: { workspaceId }, signal }),
        searchGroups(signal),
        listUsers(signal),
      ]);
      return { roles: roles.roles, groups: groups.groups, users: users.users };
    },
    null,
    [editable, workspaceId],
  );
  const action = useAction(members.reload);
  const rows = members.data ? memberRows(members.data, workspaceId) : [];
  return (
    <section aria-labelledby="ws-members-h">
      <h2 id="ws-members-h">Members</h2>
      <p className="muted">Who holds a role in {workspaceName}. Roles held cluster-wide apply here too; they are on the Groups and roles page.</p>
      <ErrorBanner message={action.error ?? members.error ?? choices.error} onRetry={action.error ? undefined : () => { members.reload(); choices.reload(); }} />
      {action.notice && <p role="status" className="muted">{action.notice}</p>}
      {editable && choices.data && (
        <AssignForm
          roles={choices.data.roles}
          groups={choices.data.groups.map((g) => ({ id: g.group.groupId, name: g.group.name }))}
          users={choices.data.users.map((u) => ({ id: u.id, name: u.username }))}
          submitLabel="Add to workspace"
          onAssign={(holder, role) => {
            const name = holder.kind === 'group'
              ? choices.data?.groups.find((g) => g.group.groupId === holder.id)?.group.name
              : choices.data?.users.find((u) => u.id === holder.id)?.username;
            return action.run(
              () => request('/api/v1/roles/add-assignments', { method: 'POST', body: assignmentBody(holder, role.roleId, workspaceId) }),
              `${name ?? holder.kind} is now ${role.name} in ${workspaceName}.`,
            );
          }}
        />
      )}
      {members.loading && !members.data ? <Spinner label="Loading members" /> : !members.data ? null : rows.length === 0 ? (
        <Empty>Nobody holds a role in this workspace itself.{editable ? ' Add a group or user above.' : ''}</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Members">
            <thead><tr><th>Member</th><th>Kind</th><th>Role</th>{editable && <th>Actions</th>}</tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={`${r.holder.kind}-${r.holder.id}-${r.role.roleId}`} data-testid="member-row">
                  <td className="name">
                    {r.name}
                    {r.members && <span className="muted"> ({r.members.length ? r.members.join(', ') : 'no members'})</span>}
                  </td>
                  <td>{r.holder.kind}</td>
                  <td>{r.role.name}</td>
                  {editable && (
                    <td>
                      <button
                        className="link danger"
                        aria-label={`Remove ${r.role.name} from ${r.name}`}
                        onClick={() => {
                          if (!window.confirm(`Remove ${r.role.name} from ${r.name} in ${workspaceName}?`)) return;
                          void action.run(
                            () => request('/api/v1/roles/remove-assignments', { method: 'POST', body: assignmentBody(r.holder, r.role.roleId, workspaceId) }),
                            `${r.role.name} removed from ${r.name} in ${workspaceName}.`,
                          );
                        }}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
