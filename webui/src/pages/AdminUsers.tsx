import { useState, type FormEvent } from 'react';
import { describeError, request } from '../api';
import { useAuth } from '../auth';
import { ErrorBanner, Spinner } from '../components/Feedback';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { User } from '../types';

// Users: create, activate/deactivate, make admin, reset a password (admins only).
export default function AdminUsers() {
  const { user: me } = useAuth();
  const { data, error, loading, reload } = usePoll((signal) => request<{ users: User[] }>('/api/v1/users', { query: { limit: 1000 }, signal }), null, []);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = async (what: () => Promise<unknown>, done: string) => {
    setActionError(null);
    setNotice(null);
    try {
      await what();
      setNotice(done);
      reload();
    } catch (e) {
      setActionError(describeError(e));
    }
  };
  const patch = (u: User, body: Record<string, unknown>, done: string) =>
    run(() => request(`/api/v1/users/${u.id}`, { method: 'PATCH', body }), done);
  const resetPassword = (u: User) => {
    const pw = window.prompt(`New password for ${u.username}:`);
    if (pw === null) return;
    void patch(u, { password: pw, isHashed: false }, `Password of ${u.username} changed.`);
  };
  if (!me?.admin) return <div className="page"><h1>Users</h1><ErrorBanner message="Only admins can manage users." /></div>;
  return (
    <div className="page">
      <div className="page-head"><h1>Users</h1></div>
      <ErrorBanner message={actionError ?? error} />
      {notice && <p role="status" className="muted">{notice}</p>}
      <CreateUser onCreate={(username, password, admin) =>
        run(() => request('/api/v1/users', { method: 'POST', body: { user: { username, admin, active: true }, password, isHashed: false } }), `User ${username} created.`)} />
      {loading && !data ? <Spinner label="Loading users" /> : (
        <div className="table-scroll short">
          <table className="table" aria-label="Users">
            <thead><tr><th>Username</th><th>Display name</th><th>Role</th><th>Status</th><th>Modified</th><th>Actions</th></tr></thead>
            <tbody>
              {(data?.users ?? []).map((u) => (
                <tr key={u.id}>
                  <td>{u.username}</td>
                  <td>{u.displayName}</td>
                  <td>{u.admin ? 'admin' : 'user'}</td>
                  <td>{u.active ? 'active' : 'deactivated'}</td>
                  <td>{formatTime(u.modifiedAt)}</td>
                  <td>
                    <button className="link" disabled={u.id === me.id} onClick={() => void patch(u, { active: !u.active }, `${u.username} ${u.active ? 'deactivated' : 'activated'}.`)}>
                      {u.active ? 'Deactivate' : 'Activate'}
                    </button>
                    <button className="link" disabled={u.id === me.id} onClick={() => void patch(u, { admin: !u.admin }, `${u.username} is ${u.admin ? 'no longer' : 'now'} an admin.`)}>
                      {u.admin ? 'Remove admin' : 'Make admin'}
                    </button>
                    <button className="link" onClick={() => resetPassword(u)}>Reset password</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function CreateUser({ onCreate }: { onCreate: (username: string, password: string, admin: boolean) => Promise<void> }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await onCreate(username.trim(), password, admin);
    setUsername('');
    setPassword('');
    setAdmin(false);
  };
  return (
    <form className="filters card" onSubmit={submit} aria-label="Create a user" style={{ alignItems: 'flex-end' }}>
      <label>New username<input value={username} onChange={(e) => setUsername(e.target.value)} required /></label>
      <label>Password<input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} /></label>
      <label className="inline"><input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Admin</label>
      <button type="submit" className="primary" disabled={!username.trim()}>Create user</button>
    </form>
  );
}
