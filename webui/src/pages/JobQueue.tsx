import { useState, type KeyboardEvent } from 'react';
import { Link } from 'react-router-dom';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { StateBadge } from '../components/StateBadge';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Job, LimitedJob, ResourcePool } from '../types';

const REFRESH_MS = 3000;

// One QueueControl update (POST /api/v1/job-queues).
export type QueueUpdate = { jobId: string } & ({ priority: number } | { weight: number } | { aheadOf: string } | { behindOf: string });

export async function updateQueue(updates: QueueUpdate[]): Promise<void> {
  await request('/api/v1/job-queues', { method: 'POST', body: { updates } });
}

// A job of job-queues-v2: in full, or (a job of a workspace one may not see) only where it stands.
type QueueEntry = { full?: Job; limited?: LimitedJob };
type Row = { job: Job; limited: boolean };

function rowOf(entry: QueueEntry): Row {
  if (entry.full) return { job: entry.full, limited: false };
  return { job: { ...entry.limited!, name: '', entityId: '', submissionTime: '', username: '' }, limited: true };
}

export default function JobQueue() {
  const pools = usePoll((signal) => request<{ resourcePools: ResourcePool[] }>('/api/v1/resource-pools', { signal }), 30000, []);
  const [pool, setPool] = useState('');
  const poolName = pool || pools.data?.resourcePools.find((p) => p.defaultComputePool)?.name || '';
  const schedulerType = pools.data?.resourcePools.find((p) => p.name === poolName)?.schedulerType ?? '';
  const jobs = usePoll(
    (signal) => request<{ jobs: QueueEntry[] }>('/api/v1/job-queues-v2', { query: { resourcePool: poolName || undefined, limit: 1000 }, signal }),
    REFRESH_MS,
    [poolName],
  );
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = (jobs.data?.jobs ?? []).map(rowOf);
  const list = rows.map((r) => r.job);
  const usesWeight = schedulerType.includes('FAIR_SHARE');

  const apply = async (updates: QueueUpdate[]) => {
    setBusy(true);
    setActionError(null);
    try {
      await updateQueue(updates);
    } catch (e) {
      setActionError(describeError(e));
    } finally {
      setBusy(false);
      jobs.reload();
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>Job queue</h1>
        <label className="inline">
          Resource pool
          <select value={poolName} onChange={(e) => setPool(e.target.value)}>
            {(pools.data?.resourcePools ?? []).map((p) => <option key={p.name} value={p.name}>{p.name}</option>)}
          </select>
        </label>
        {schedulerType && <span className="muted">{schedulerType.replace('SCHEDULER_TYPE_', '').toLowerCase().replace('_', ' ')} scheduler</span>}
      </div>
      <ErrorBanner message={actionError ?? jobs.error ?? pools.error} onRetry={jobs.reload} />
      {jobs.loading && !jobs.data ? <Spinner label="Loading jobs" /> : list.length === 0 ? <Empty>No jobs in this pool's queue.</Empty> : (
        <div className="table-scroll">
          <table className="table" aria-label="Jobs">
            <thead>
              <tr>
                <th className="num">#</th><th>Job</th><th>Type</th><th>State</th><th className="num">Slots</th>
                <th>{usesWeight ? 'Weight' : 'Priority'}</th><th>User</th><th>Submitted</th><th>Order</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ job: j, limited }, i) => (
                <tr key={j.jobId} data-testid="job-row">
                  <td className="num">{i + 1}</td>
                  <td className="name">{limited ? <span className="muted">A job of another workspace</span> : <JobLink job={j} />}</td>
                  <td>{j.type.replace('TYPE_', '').toLowerCase()}</td>
                  <td><StateBadge state={j.summary?.state ?? ''} /></td>
                  <td className="num">{j.allocatedSlots}/{j.requestedSlots}</td>
                  <td>
                    {limited ? (usesWeight ? j.weight ?? 1 : j.priority ?? 42) : (
                      <InlineNumber label={`${usesWeight ? 'Weight' : 'Priority'} of ${j.name}`} value={usesWeight ? j.weight ?? 1 : j.priority ?? 42}
                        disabled={busy} onSave={(v) => void apply([usesWeight ? { jobId: j.jobId, weight: v } : { jobId: j.jobId, priority: v }])} />
                    )}
                  </td>
                  <td>{limited ? '—' : j.username}</td>
                  <td>{limited ? '—' : formatTime(j.submissionTime)}</td>
                  <td className="order">
                    {!limited && <>
                      <button aria-label={`Move ${j.name} up`} disabled={busy || i === 0} onClick={() => void apply([{ jobId: j.jobId, aheadOf: list[i - 1]!.jobId }])}>↑</button>{' '}
                      <button aria-label={`Move ${j.name} down`} disabled={busy || i === list.length - 1} onClick={() => void apply([{ jobId: j.jobId, behindOf: list[i + 1]!.jobId }])}>↓</button>
                    </>}
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

function JobLink({ job }: { job: Job }) {
  if (job.type === 'TYPE_EXPERIMENT') return <Link to={`/experiments/${job.entityId}`}>{job.name || `Experiment ${job.entityId}`}</Link>;
  return <span>{job.name || job.entityId}</span>;
}

// A number that becomes an input on click; Enter saves, Escape cancels.
export function InlineNumber({ value, onSave, label, disabled }: { value: number; onSave: (v: number) => void; label: string; disabled?: boolean }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(String(value));
  const save = () => {
    const n = Number(text);
    setEditing(false);
    if (text.trim() !== '' && Number.isFinite(n) && n !== value) onSave(n);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') save();
    if (e.key === 'Escape') setEditing(false);
  };
  if (!editing) {
    return (
      <button className="link" aria-label={`${label}: ${value}, edit`} disabled={disabled} onClick={() => { setText(String(value)); setEditing(true); }}>
        {value}
      </button>
    );
  }
  return <input aria-label={label} type="number" autoFocus value={text} style={{ width: 80 }} onChange={(e) => setText(e.target.value)} onKeyDown={onKey} onBlur={save} />;
}
