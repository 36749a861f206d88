import { useState, type FormEvent } from 'react';
import { request } from '../api';
import { useAuth } from '../auth';
import { Empty, ErrorBanner, Spinner } from '../components/Feedback';
import { useAction, usePoll } from '../hooks';
import { canAssignRoles, canChangeGroups, canManageGroups, useAccess } from '../permissions';
import type { GroupDetails, GroupSummary, Role, RoleWithAssignments, User } from '../types';

// Request bodies of POST /api/v1/roles/add-assignments and /remove-assignments for one holder.
export type Holder = { kind: 'group'; id: number } | { kind: 'user'; id: number };

export function assignmentBody(holder: Holder, roleId: number, workspaceId?: number) {
  const roleAssignment =
    workspaceId === undefined ? { role: { roleId }, scopeCluster: true } : { role: { roleId }, scopeWorkspaceId: workspaceId };
  return holder.kind === 'group'
    ? { groupRoleAssignments: [{ groupId: holder.id, roleAssignment }] }
    : { userRoleAssignments: [{ userId: holder.id, roleAssignment }] };
}

export function searchGroups(signal?: AbortSignal) {
  return request<{ groups: GroupSummary[] }>('/api/v1/groups/search', { method: 'POST', body: { limit: 500 }, signal });
}

export function listUsers(signal?: AbortSignal) {
  return request<{ users: User[] }>('/api/v1/users', { query: { limit: 1000 }, signal });
}

// Groups, their members, the built-in roles and who holds each cluster-wide.
export default function AdminGroups() {
  const { user: me } = useAuth();
  const access = useAccess();
  const allowed = canManageGroups(me, access);
  const groups = usePoll((signal) => (allowed ? searchGroups(signal) : Promise.resolve(undefined)), null, [allowed]);
  const users = usePoll((signal) => (allowed ? listUsers(signal) : Promise.resolve(undefined)), null, [allowed]);
  const roles = usePoll(
    async (signal) => {
      if (!allowed) return undefined;
      const all = await request<{ roles: Role[] }>('/api/v1/roles/search', { method: 'POST', body: {}, signal });
      const held = await request<{ roles: RoleWithAssignments[] }>('/api/v1/roles/search/by-ids', {
        method: 'POST',
        body: { roleIds: all.roles.map((r) => r.roleId) },
        signal,
      });
      return { roles: all.roles, held: held.roles };
    },
    null,
    [allowed],
  );
  const [selected, setSelected] = useState<number | null>(null);
  const reloadAll = () => {
    groups.reload();
    roles.reload();
  };
  const action = useAction(reloadAll);

  if (!access.loaded) return <div className="page"><Spinner label="Checking your permissions" /></div>;
  if (!allowed) {
    return (
      <div className="page">
        <h1>Groups and roles</h1>
        <ErrorBanner message="Only admins (under RBAC: holders of UPDATE_GROUP or ASSIGN_ROLES cluster-wide) can manage groups and roles." />
      </div>
    );
  }
  const changeGroups = canChangeGroups(me, access);
  const assign = canAssignRoles(me, access);
  const groupList = groups.data?.groups ?? [];
  const userList = users.data?.users ?? [];
  const groupName = (id: number) => groupList.find((g) => g.group.groupId === id)?.group.name ?? `group ${id}`;
  const userName = (id: number) => userList.find((u) => u.id === id)?.username ?? `user ${id}`;

  const rename = (g: GroupSummary) => {
    const name = window.prompt(`New name for group ${g.group.name}:`, g.group.name);
    if (name === null || !name.trim() || name.trim() === g.group.name) return;
    void action.run(() => request(`/api/v1/groups/${g.group.groupId}`, { method: 'PUT', body: { name: name.trim() } }), `Group ${g.group.name} renamed to ${name.trim()}.`);
  };
  const remove = (g: GroupSummary) => {
    if (!window.confirm(`Delete group ${g.group.name}? Its members keep their accounts but lose the roles it gave them.`)) return;
    if (selected === g.group.groupId) setSelected(null);
    void action.run(() => request(`/api/v1/groups/${g.group.groupId}`, { method: 'DELETE' }), `Group ${g.group.name} deleted.`);
  };

  return (
    <div className="page">
      <div className="page-head"><h1>Groups and roles</h1></div>
      <ErrorBanner message={action.error ?? groups.error ?? users.error ?? roles.error} />
      {action.notice && <p role="status" className="muted">{action.notice}</p>}

      <h2>Groups</h2>
      {changeGroups && (
        <CreateGroup onCreate={(name) => action.run(() => request('/api/v1/groups', { method: 'POST', body: { name } }), `Group ${name} created.`)} />
      )}
      {groups.loading && !groups.data ? <Spinner label="Loading groups" /> : !groups.data ? null : groupList.length === 0 ? (
        <Empty>No groups yet.{changeGroups ? ' Create one above, then add its members.' : ''}</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Groups">
            <thead><tr><th>Name</th><th className="num">Members</th><th>Actions</th></tr></thead>
            <tbody>
              {groupList.map((g) => (
                <tr key={g.group.groupId} data-testid="group-row" aria-selected={selected === g.group.groupId}>
                  <td className="name">{g.group.name}</td>
                  <td className="num">{g.numMembers}</td>
                  <td>
                    <button className="link" onClick={() => setSelected(selected === g.group.groupId ? null : g.group.groupId)} aria-label={`Members of ${g.group.name}`}>
                      {selected === g.group.groupId ? 'Hide members' : 'Members'}
                    </button>
                    {changeGroups && <button className="link" onClick={() => rename(g)} aria-label={`Rename ${g.group.name}`}>Rename</button>}
                    {changeGroups && <button className="link danger" onClick={() => remove(g)} aria-label={`Delete ${g.group.name}`}>Delete</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected !== null && (
        <GroupMembers key={selected} groupId={selected} users={userList} editable={changeGroups} run={action.run} onChanged={groups.reload} />
      )}

      <h2>Roles</h2>
      <p className="muted">The built-in roles, what each grants, and who holds it cluster-wide. Roles held in one workspace are on that workspace's Members tab.</p>
      {assign && roles.data && (
        <AssignForm
          roles={roles.data.roles}
          groups={groupList.map((g) => ({ id: g.group.groupId, name: g.group.name }))}
          users={userList.map((u) => ({ id: u.id, name: u.username }))}
          submitLabel="Assign cluster-wide"
          onAssign={(holder, role) =>
            action.run(
              () => request('/api/v1/roles/add-assignments', { method: 'POST', body: assignmentBody(holder, role.roleId) }),
              `${role.name} given to ${holder.kind === 'group' ? groupName(holder.id) : userName(holder.id)} cluster-wide.`,
            )
          }
        />
      )}
      {roles.loading && !roles.data ? <Spinner label="Loading roles" /> : !roles.data ? null : (
        <div className="table-scroll">
          <table className="table" aria-label="Roles">
            <thead><tr><th>Role</th><th>Permissions</th><th>Cluster-wide holders</th></tr></thead>
            <tbody>
              {roles.data.roles.map((r) => {
                const held = roles.data?.held.find((h) => h.role.roleId === r.roleId);
                const holders: { holder: Holder; name: string }[] = [
                  ...(held?.groupRoleAssignments ?? []).filter((a) => a.roleAssignment.scopeCluster).map((a) => ({ holder: { kind: 'group' as const, id: a.groupId }, name: `group ${groupName(a.groupId)}` })),
                  ...(held?.userRoleAssignments ?? []).filter((a) => a.roleAssignment.scopeCluster).map((a) => ({ holder: { kind: 'user' as const, id: a.userId }, name: userName(a.userId) })),
                ];
                return (
                  <tr key={r.roleId} data-testid="role-row">
                    <td className="name">
                      {r.name}
                      {r.scopeTypeMask && !r.scopeTypeMask.workspace && <span className="tag" title="Can only be assigned cluster-wide">cluster only</span>}
                    </td>
                    <td>
                      <details>
                        <summary>{r.permissions.length} permissions</summary>
                        <ul className="plain">{r.permissions.map((p) => <li key={p.id} className="mono">{p.name}</li>)}</ul>
                      </details>
                    </td>
                    <td>
                      {holders.length === 0 ? <span className="muted">nobody</span> : (
                        <ul className="plain">
                          {holders.map((h) => (
                            <li key={`${h.holder.kind}-${h.holder.id}`}>
                              <span>{h.name}</span>
                              {assign && (
                                <button
                                  className="link danger"
                                  aria-label={`Remove ${r.name} from ${h.name}`}
                                  onClick={() => {
                                    if (!window.confirm(`Remove ${r.name} from ${h.name} cluster-wide?`)) return;
                                    void action.run(
                                      () => request('/api/v1/roles/remove-assignments', { method: 'POST', body: assignmentBody(h.holder, r.roleId) }),
                                      `${r.name} removed from ${h.name}.`,
                                    );
                                  }}
                                >
                                  Remove
                                </button>
                              )}
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function CreateGroup({ onCreate }: { onCreate: (name: string) => Promise<boolean> }) {
  const [name, setName] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await onCreate(name.trim())) setName('');
  };
  return (
    <form className="filters card" onSubmit={submit} aria-label="Create a group" style={{ alignItems: 'flex-end' }}>
      <label>New group name<input value={name} onChange={(e) => setName(e.target.value)} required /></label>
      <button type="submit" className="primary" disabled={!name.trim()}>Create group</button>
    </form>
  );
}

function GroupMembers({ groupId, users, editable, run, onChanged }: {
  groupId: number;
  users: User[];
  editable: boolean;
  run: (what: () => Promise<unknown>, done: string) => Promise<boolean>;
  onChanged: () => void;
}) {
  const group = usePoll((signal) => request<{ group: GroupDetails }>(`/api/v1/groups/${groupId}`, { signal }), null, [groupId]);
  const [adding, setAdding] = useState('');
  const change = async (body: { addUsers?: number[]; removeUsers?: number[] }, done: string) => {
    if (await run(() => request(`/api/v1/groups/${groupId}`, { method: 'PUT', body }), done)) {
      group.reload();
      onChanged();
    }
  };
  if (!group.data) {
    return <section className="card">{group.error ? <ErrorBanner message={group.error} onRetry={group.reload} /> : <Spinner label="Loading members" />}</section>;
  }
  const g = group.data.group;
  const members = g.users ?? [];
  const others = users.filter((u) => !members.some((m) => m.id === u.id));
  return (
    <section className="card" aria-labelledby="group-members-h">
      <h3 id="group-members-h" style={{ marginTop: 0 }}>Members of {g.name}</h3>
      {members.length === 0 ? <Empty>This group has no members.</Empty> : (
        <ul className="plain" aria-label={`Members of ${g.name}`}>
          {members.map((u) => (
            <li key={u.id}>
              <span>{u.username}</span>
              {editable && (
                <button className="link danger" aria-label={`Remove ${u.username} from ${g.name}`} onClick={() => void change({ removeUsers: [u.id] }, `${u.username} removed from ${g.name}.`)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {editable && (
        <form
          className="filters"
          style={{ alignItems: 'flex-end' }}
          aria-label="Add a member"
          onSubmit={(e) => {
            e.preventDefault();
            const u = users.find((x) => String(x.id) === adding);
            if (!u) return;
            setAdding('');
            void change({ addUsers: [u.id] }, `${u.username} added to ${g.name}.`);
          }}
        >
          <label>
            User to add
            <select aria-label="User to add" value={adding} onChange={(e) => setAdding(e.target.value)}>
              <option value="">Choose a user</option>
              {others.map((u) => <option key={u.id} value={u.id}>{u.username}</option>)}
            </select>
          </label>
          <button type="submit" className="primary" disabled={!adding}>Add member</button>
        </form>
      )}
    </section>
  );
}

// Role, group or user, and a button: the form that gives a role cluster-wide or in a workspace.
export function AssignForm({ roles, groups, users, submitLabel, onAssign }: {
  roles: Role[];
  groups: { id: number; name: string }[];
  users: { id: number; name: string }[];
  submitLabel: string;
  onAssign: (holder: Holder, role: Role) => Promise<boolean>;
}) {
  const [roleId, setRoleId] = useState('');
  const [kind, setKind] = useState<'group' | 'user'>('group');
  const [who, setWho] = useState('');
  const choices = kind === 'group' ? groups : users;
  const role = roles.find((r) => String(r.roleId) === roleId);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!role || !who) return;
    if (await onAssign({ kind, id: Number(who) }, role)) setWho('');
  };
  return (
    <form className="filters card" onSubmit={submit} aria-label="Assign a role" style={{ alignItems: 'flex-end' }}>
      <label>
        Role
        <select aria-label="Role" value={roleId} onChange={(e) => setRoleId(e.target.value)}>
          <option value="">Choose a role</option>
          {roles.map((r) => <option key={r.roleId} value={r.roleId}>{r.name}</option>)}
        </select>
      </label>
      <label>
        To a
        <select aria-label="Kind of holder" value={kind} onChange={(e) => { setKind(e.target.value as 'group' | 'user'); setWho(''); }}>
          <option value="group">group</option>
          <option value="user">user</option>
        </select>
      </label>
      <label>
        {kind === 'group' ? 'Group' : 'User'}
        <select aria-label={kind === 'group' ? 'Group' : 'User'} value={who} onChange={(e) => setWho(e.target.value)}>
          <option value="">{choices.length ? `Choose a ${kind}` : `No ${kind}s`}</option>
          {choices.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        </select>
      </label>
      <button type="submit" className="primary" disabled={!role || !who}>{submitLabel}</button>
    </form>
  );
}
