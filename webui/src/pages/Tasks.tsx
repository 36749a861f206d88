import { useState } from 'react';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { LogViewer } from '../components/LogViewer';
import { StateBadge } from '../components/StateBadge';
import { formatTime } from '../format';
import { usePoll } from '../hooks';

interface CommandLike {
  id: string;
  description: string;
  state: string;
  startTime: string;
  username: string;
  resourcePool: string;
  serviceAddress?: string;
  exitStatus?: string;
}

const KINDS = [
  { plural: 'commands', label: 'Command' },
  { plural: 'notebooks', label: 'Notebook' },
  { plural: 'shells', label: 'Shell' },
  { plural: 'tensorboards', label: 'TensorBoard' },
] as const;

type Row = CommandLike & { kind: (typeof KINDS)[number] };
const ENDED = ['STATE_TERMINATED', 'STATE_COMPLETED', 'STATE_CANCELED', 'STATE_ERROR'];

// Commands, notebooks, shells and TensorBoards: state, logs, open, kill.
export default function Tasks() {
  const { data, error, loading, reload } = usePoll(async (signal) => {
    const lists = await Promise.all(
      KINDS.map((k) => request<Record<string, CommandLike[]>>(`/api/v1/${k.plural}`, { signal }).then((r) => (r[k.plural] ?? []).map((t) => ({ ...t, kind: k })))),
    );
    return lists.flat().sort((a, b) => Date.parse(b.startTime) - Date.parse(a.startTime));
  }, 5000, []);
  const [logsOf, setLogsOf] = useState<Row | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [showEnded, setShowEnded] = useState(false);
  const kill = async (t: Row) => {
    if (!window.confirm(`Kill ${t.kind.label.toLowerCase()} ${t.description || t.id}?`)) return;
    try {
      setActionError(null);
      await request(`/api/v1/${t.kind.plural}/${t.id}/kill`, { method: 'POST' });
      reload();
    } catch (e) {
      setActionError(describeError(e));
    }
  };
  const rows = (data ?? []).filter((t) => showEnded || !ENDED.includes(t.state));
  return (
    <div className="page">
      <div className="page-head">
        <h1>Tasks</h1>
        <label className="inline"><input type="checkbox" checked={showEnded} onChange={(e) => setShowEnded(e.target.checked)} /> Show ended tasks</label>
      </div>
      <ErrorBanner message={actionError ?? error} onRetry={reload} />
      {loading && !data ? <Spinner label="Loading tasks" /> : rows.length === 0 ? <Empty>No {showEnded ? '' : 'running '}commands, notebooks, shells or TensorBoards. Start one with <code>det notebook start</code>, <code>det cmd run</code>…</Empty> : (
        <div className="table-scroll short">
          <table className="table" aria-label="Tasks">
            <thead><tr><th>Type</th><th>Description</th><th>State</th><th>Started</th><th>User</th><th>Pool</th><th>Actions</th></tr></thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id}>
                  <td>{t.kind.label}</td>
                  <td className="name">{t.description || t.id}</td>
                  <td><StateBadge state={t.state} /></td>
                  <td>{formatTime(t.startTime)}</td>
                  <td>{t.username}</td>
                  <td>{t.resourcePool}</td>
                  <td>
                    {t.serviceAddress && !ENDED.includes(t.state) && <a href={t.serviceAddress} target="_blank" rel="noreferrer">Open</a>}{' '}
                    <button className="link" onClick={() => setLogsOf(t)}>Logs</button>
                    {!ENDED.includes(t.state) && <button className="link danger" onClick={() => void kill(t)}>Kill</button>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {logsOf && (
        <section aria-label={`Logs of ${logsOf.id}`}>
          <div className="page-head" style={{ marginTop: 16 }}>
            <h2>Logs: {logsOf.kind.label} {logsOf.description || logsOf.id}</h2>
            <button className="link" onClick={() => setLogsOf(null)}>Close</button>
          </div>
          <LogViewer path={`/api/v1/tasks/${logsOf.id}/logs`} live={!ENDED.includes(logsOf.state)} />
        </section>
      )}
    </div>
  );
}
