import { useState, type FormEvent } from 'react';
import { request } from '../api';
import { useAuth } from '../auth';
import { Empty, ErrorBanner, Spinner } from '../components/Feedback';
import { formatTime } from '../format';
import { useAction, usePoll } from '../hooks';
import type { AccessToken } from '../types';

// Lifespans offered when creating a token (Go durations, as POST /api/v1/tokens takes them). The
// master refuses one longer than security.token.max_lifespan_days and says so.
export const LIFESPANS = [
  { value: '24h', label: '1 day' },
  { value: '168h', label: '7 days' },
  { value: '720h', label: '30 days' },
  { value: '2160h', label: '90 days' },
  { value: '-1', label: 'The longest allowed' },
];

// A token's state for a person: revoked, expired (at `now`) or active.
export function tokenState(t: AccessToken, now = Date.now()): 'revoked' | 'expired' | 'active' {
  if (t.revoked) return 'revoked';
  const expiry = Date.parse(t.expiry);
  return Number.isFinite(expiry) && expiry <= now ? 'expired' : 'active';
}

// The signed-in user's access tokens: create one (its secret shown once), edit a description, revoke.
export default function Tokens() {
  const { user: me } = useAuth();
  const [showInactive, setShowInactive] = useState(true);
  const tokens = usePoll(
    (signal) =>
      request<{ tokenInfo: AccessToken[] }>('/api/v1/tokens', {
        query: { username: me?.username, showInactive, sortBy: 'SORT_BY_CREATED_AT', orderBy: 'ORDER_BY_DESC', limit: 1000 },
        signal,
      }),
    null,
    [me?.username, showInactive],
  );
  const action = useAction(tokens.reload);
  const [created, setCreated] = useState<{ id: number; token: string } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  if (!me) return null;

  const create = async (lifespan: string, description: string) => {
    setCreated(null);
    setCopied(null);
    let reply: { token: string; tokenId: number } | undefined;
    const ok = await action.run(async () => {
      reply = await request<{ token: string; tokenId: number }>('/api/v1/tokens', { method: 'POST', body: { userId: me.id, lifespan, description } });
    }, 'Token created. Copy it now: it is not shown again.');
    if (ok && reply) setCreated({ id: reply.tokenId, token: reply.token });
    return ok;
  };
  const copy = async (token: string) => {
    try {
      await navigator.clipboard.writeText(token);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the token and copy it by hand.');
    }
  };
  const edit = (t: AccessToken) => {
    const description = window.prompt(`Description of token ${t.id}:`, t.description);
    if (description === null || description === t.description) return;
    void action.run(() => request(`/api/v1/tokens/${t.id}`, { method: 'PATCH', body: { description, setRevoked: false } }), `Token ${t.id}'s description changed.`);
  };
  const revoke = (t: AccessToken) => {
    if (!window.confirm(`Revoke token ${t.id}${t.description ? ` (${t.description})` : ''}? Anything using it is signed out at its next request.`)) return;
    if (created?.id === t.id) setCreated(null);
    void action.run(() => request(`/api/v1/tokens/${t.id}`, { method: 'PATCH', body: { setRevoked: true } }), `Token ${t.id} revoked.`);
  };

  const list = tokens.data?.tokenInfo ?? [];
  return (
    <div className="page">
      <div className="page-head"><h1>My access tokens</h1></div>
      <p className="muted">
        Long-lived tokens for scripts, CI jobs and notebooks: send one as <code>Authorization: Bearer TOKEN</code>, or sign the CLI in with{' '}
        <code>det token login TOKEN</code>. A token works until it expires or is revoked.
      </p>
      <ErrorBanner message={action.error ?? tokens.error} />
      {action.notice && <p role="status" className="muted">{action.notice}</p>}
      {created && (
        <section className="card" aria-label="New token">
          <p style={{ marginTop: 0 }}><strong>Token {created.id}</strong>: copy it now; the master keeps only its hash and cannot show it again.</p>
          <div className="token-once">
            <code data-testid="new-token">{created.token}</code>
            <button className="primary" onClick={() => void copy(created.token)}>Copy</button>
            <button className="link" onClick={() => setCreated(null)}>Done</button>
          </div>
          {copied && <p className="muted" role="status">{copied}</p>}
        </section>
      )}
      <CreateToken onCreate={create} />
      <label className="inline">
        <input type="checkbox" checked={showInactive} onChange={(e) => setShowInactive(e.target.checked)} /> Show revoked and expired tokens
      </label>
      {tokens.loading && !tokens.data ? <Spinner label="Loading tokens" /> : !tokens.data ? null : list.length === 0 ? (
        <Empty>{showInactive ? 'You have no access tokens yet. Create one above.' : 'You have no active access tokens.'}</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Access tokens">
            <thead><tr><th className="num">ID</th><th>Description</th><th>Created</th><th>Expires</th><th>State</th><th>Actions</th></tr></thead>
            <tbody>
              {list.map((t) => {
                const state = tokenState(t);
                return (
                  <tr key={t.id} data-testid="token-row">
                    <td className="num">{t.id}</td>
                    <td className="name">{t.description || <span className="muted">–</span>}</td>
                    <td>{formatTime(t.createdAt)}</td>
                    <td>{formatTime(t.expiry)}</td>
                    <td>{state}</td>
                    <td>
                      {state === 'active' ? (
                        <>
                          <button className="link" aria-label={`Edit description of token ${t.id}`} onClick={() => edit(t)}>Edit description</button>
                          <button className="link danger" aria-label={`Revoke token ${t.id}`} onClick={() => revoke(t)}>Revoke</button>
                        </>
                      ) : <span className="muted">–</span>}
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

function CreateToken({ onCreate }: { onCreate: (lifespan: string, description: string) => Promise<boolean> }) {
  const [description, setDescription] = useState('');
  const [lifespan, setLifespan] = useState('720h');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await onCreate(lifespan, description.trim())) setDescription('');
  };
  return (
    <form className="filters card" onSubmit={submit} aria-label="Create a token" style={{ alignItems: 'flex-end' }}>
      <label>Description<input value={description} onChange={(e) => setDescription(e.target.value)} placeholder="what uses it" /></label>
      <label>
        Lifespan
        <select aria-label="Lifespan" value={lifespan} onChange={(e) => setLifespan(e.target.value)}>
          {LIFESPANS.map((l) => <option key={l.value} value={l.value}>{l.label}</option>)}
        </select>
      </label>
      <button type="submit" className="primary">Create token</button>
    </form>
  );
}
