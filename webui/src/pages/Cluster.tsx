import { useState } from 'react';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Agent, ResourcePool } from '../types';
import ClusterUsage from './ClusterUsage';

export default function Cluster() {
  const pools = usePoll((signal) => request<{ resourcePools: ResourcePool[] }>('/api/v1/resource-pools', { signal }), 5000, []);
  const agents = usePoll((signal) => request<{ agents: Agent[] }>('/api/v1/agents', { signal }), 5000, []);
  const [actionError, setActionError] = useState<string | null>(null);
  const setEnabled = async (a: Agent, enable: boolean) => {
    if (!enable && !window.confirm(`Disable agent ${a.id}? Its running tasks are stopped and nothing new is scheduled on it.`)) return;
    try {
      setActionError(null);
      await request(`/api/v1/agents/${encodeURIComponent(a.id)}/${enable ? 'enable' : 'disable'}`, { method: 'POST', body: { agentId: a.id } });
      agents.reload();
    } catch (e) {
      setActionError(describeError(e));
    }
  };
  const list = agents.data?.agents ?? [];
  const totalSlots = (pools.data?.resourcePools ?? []).reduce((n, p) => n + p.slotsAvailable, 0);
  const usedSlots = (pools.data?.resourcePools ?? []).reduce((n, p) => n + p.slotsUsed, 0);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Cluster</h1>
        <span className="muted">{usedSlots} of {totalSlots} slots in use · {list.length} agent{list.length === 1 ? '' : 's'}</span>
      </div>
      <ErrorBanner message={actionError ?? pools.error ?? agents.error} />
      <h2>Resource pools</h2>
      {pools.loading && !pools.data ? <Spinner label="Loading pools" /> : (
        <div className="grid-2">
          {(pools.data?.resourcePools ?? []).map((p) => (
            <section key={p.name} className="card" aria-label={`Pool ${p.name}`}>
              <h2 style={{ marginTop: 0 }}>
                {p.name}
                {p.defaultComputePool && <span className="tag">default compute</span>}
                {p.defaultAuxPool && <span className="tag">default aux</span>}
              </h2>
              {p.description && <p className="muted">{p.description}</p>}
              <div style={{ marginBottom: 8 }}><SlotBar used={p.slotsUsed} total={p.slotsAvailable} /></div>
              <dl className="facts">
                <dt>Agents</dt><dd>{p.numAgents}</dd>
                <dt>Slot type</dt><dd>{(p.slotType ?? '').replace('TYPE_', '').toLowerCase()}</dd>
                <dt>Aux containers</dt><dd>{p.auxContainersRunning ?? 0} of {p.auxContainerCapacity ?? 0}</dd>
                <dt>Scheduler</dt><dd>{(p.schedulerType ?? '').replace('SCHEDULER_TYPE_', '').toLowerCase()}</dd>
              </dl>
            </section>
          ))}
        </div>
      )}
      <h2>Agents</h2>
      {agents.loading && !agents.data ? <Spinner label="Loading agents" /> : list.length === 0 ? <Empty>No agents are connected.</Empty> : (
        <div className="table-scroll short">
          <table className="table" aria-label="Agents">
            <thead><tr><th>Agent</th><th>Pool</th><th>Slots in use</th><th>Devices</th><th>State</th><th>Registered</th><th>Addresses</th><th /></tr></thead>
            <tbody>
              {list.map((a) => {
                const slots = Object.values(a.slots ?? {});
                const used = slots.filter((s) => s.container).length;
                return (
                  <tr key={a.id}>
                    <td>{a.id}</td>
                    <td>{(a.resourcePools ?? []).join(', ')}</td>
                    <td><SlotBar used={used} total={slots.length} /></td>
                    <td title={slots.map((s) => s.device?.uuid).filter(Boolean).join('\n')}>{deviceSummary(slots)}</td>
                    <td>{a.enabled ? (a.draining ? 'draining' : 'enabled') : 'disabled'}</td>
                    <td>{formatTime(a.registeredTime)}</td>
                    <td>{(a.addresses ?? []).join(', ')}</td>
                    <td>
                      <button onClick={() => void setEnabled(a, !a.enabled)}>{a.enabled ? 'Disable' : 'Enable'}</button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ClusterUsage />
    </div>
  );
}

type Slot = Agent['slots'][string];

/** "4 × NVIDIA H200 (cuda)": each brand of the agent's slots with its count and type. */
export function deviceSummary(slots: Slot[]): string {
  const counts = new Map<string, number>();
  for (const s of slots) {
    const key = `${s.device?.brand ?? '?'} (${(s.device?.type ?? '').replace('TYPE_', '').toLowerCase()})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => `${n} × ${key}`).join(', ');
}

function SlotBar({ used, total }: { used: number; total: number }) {
  const pct = total ? Math.round((used / total) * 100) : 0;
  return (
    <span className="progress" role="meter" aria-valuenow={used} aria-valuemin={0} aria-valuemax={total} aria-label="Slots in use" style={{ width: 120 }}>
      <span className="progress-bar" style={{ width: `${pct}%` }} />
      <span className="progress-text">{used}/{total}</span>
    </span>
  );
}
