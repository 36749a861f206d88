import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { LogViewer } from '../components/LogViewer';
import { MetricChart } from '../components/MetricChart';
import { StateBadge } from '../components/StateBadge';
import { Tabs } from '../components/Tabs';
import { durationBetween, formatNumber, formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Checkpoint, Trial } from '../types';
import { metricIdsOf } from '../useTimeSeries';
import { CheckpointTable } from './ExperimentDetail';
import { TrialProfiler } from './TrialProfiler';

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'logs', label: 'Logs' },
  { id: 'hyperparameters', label: 'Hyperparameters' },
  { id: 'checkpoints', label: 'Checkpoints' },
  { id: 'workloads', label: 'Workloads' },
  { id: 'profiler', label: 'Profiler' },
];
const TERMINAL = ['STATE_COMPLETED', 'STATE_CANCELED', 'STATE_ERROR'];

export default function TrialDetail() {
  const { id = '', tab = 'overview' } = useParams();
  const trialId = Number(id);
  const { data, error, reload } = usePoll(
    (signal) => request<{ trial: Trial }>(`/api/v1/trials/${trialId}`, { signal }),
    5000,
    [trialId],
  );
  const [killError, setKillError] = useState<string | null>(null);
  if (!Number.isInteger(trialId) || trialId <= 0) return <div className="page"><ErrorBanner message={`"${id}" is not a trial id.`} /></div>;
  if (!data) {
    return <div className="page">{error ? <ErrorBanner message={error} onRetry={reload} /> : <Spinner label="Loading trial" />}</div>;
  }
  const t = data.trial;
  const live = !TERMINAL.includes(t.state);
  const kill = async () => {
    if (!window.confirm(`Kill trial ${t.id}?`)) return;
    try {
      await request(`/api/v1/trials/${t.id}/kill`, { method: 'POST' });
      reload();
    } catch (e) {
      setKillError(describeError(e));
    }
  };
  return (
    <div className="page">
      <div className="page-head">
        <h1>Trial {t.id}</h1>
        <StateBadge state={t.state} />
        <span className="muted">
          of <Link to={`/experiments/${t.experimentId}`}>experiment {t.experimentId}</Link>
        </span>
        <div className="actions">
          {live && <button className="danger" onClick={() => void kill()}>Kill trial</button>}
        </div>
      </div>
      <ErrorBanner message={killError ?? error} />
      <Tabs base={`/trials/${t.id}`} tabs={TABS} current={tab} />
      {tab === 'overview' && <TrialOverview t={t} live={live} />}
      {tab === 'logs' && <LogViewer path={`/api/v1/trials/${t.id}/logs`} live={live} />}
      {tab === 'hyperparameters' && <HyperparameterTable hparams={t.hparams} />}
      {tab === 'checkpoints' && <TrialCheckpoints t={t} />}
      {tab === 'workloads' && <Workloads trialId={t.id} />}
      {tab === 'profiler' && <TrialProfiler trialId={t.id} live={live} />}
    </div>
  );
}

function TrialOverview({ t, live }: { t: Trial; live: boolean }) {
  const metricIds = useMemo(() => metricIdsOf([t]), [t]);
  const [shown, setShown] = useState<string[] | null>(null);
  const chosen = shown ?? metricIds.slice(0, 4);
  const ids = useMemo(() => [t.id], [t.id]);
  return (
    <>
      <section className="card">
        <dl className="facts">
          <dt>Batches</dt><dd>{t.totalBatchesProcessed}</dd>
          <dt>Started</dt><dd>{formatTime(t.startTime)}</dd>
          <dt>Duration</dt><dd>{durationBetween(t.startTime, t.endTime)}</dd>
          <dt>Restarts</dt><dd>{t.restarts}</dd>
          <dt>Checkpoints</dt><dd>{t.checkpointCount}</dd>
        </dl>
      </section>
      <div className="chart-controls">
        <h2>Metrics</h2>
        <fieldset style={{ border: 'none', display: 'flex', flexWrap: 'wrap', gap: 10, padding: 0, margin: 0 }}>
          <legend className="muted" style={{ fontSize: 12, float: 'left', marginRight: 6 }}>Show</legend>
          {metricIds.map((m) => (
            <label key={m} className="inline">
              <input type="checkbox" checked={chosen.includes(m)}
                onChange={() => setShown(chosen.includes(m) ? chosen.filter((x) => x !== m) : [...chosen, m])} />
              {m}
            </label>
          ))}
        </fieldset>
      </div>
      {metricIds.length === 0 && <Empty>No metrics reported yet.</Empty>}
      <div className="grid-2">
        {chosen.map((m) => (
          <section key={m} className="card" aria-label={m}>
            <h2 style={{ marginTop: 0 }}>{m}</h2>
            <MetricChart trialIds={ids} metricId={m} follow={live} label={() => m} />
          </section>
        ))}
      </div>
    </>
  );
}

function HyperparameterTable({ hparams }: { hparams: Record<string, unknown> }) {
  const entries = Object.entries(hparams ?? {});
  if (!entries.length) return <Empty>No hyperparameters.</Empty>;
  return (
    <table className="table card" aria-label="Hyperparameters" style={{ maxWidth: 640 }}>
      <thead><tr><th>Name</th><th>Value</th></tr></thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}><td>{k}</td><td className="mono">{typeof v === 'object' ? JSON.stringify(v) : formatNumber(v)}</td></tr>
        ))}
      </tbody>
    </table>
  );
}

function TrialCheckpoints({ t }: { t: Trial }) {
  const { data, error, loading } = usePoll(
    (signal) => request<{ checkpoints: Checkpoint[] }>(`/api/v1/experiments/${t.experimentId}/checkpoints`, { signal }),
    5000,
    [t.experimentId],
  );
  if (loading && !data) return <Spinner label="Loading checkpoints" />;
  const cps = (data?.checkpoints ?? []).filter((c) => c.training.trialId === t.id);
  return (
    <>
      <ErrorBanner message={error} />
      {cps.length ? <CheckpointTable checkpoints={cps} /> : <Empty>No checkpoints yet.</Empty>}
    </>
  );
}

interface Workload {
  training?: { totalBatches: number; endTime: string; metrics?: { avgMetrics?: Record<string, unknown> } };
  validation?: { totalBatches: number; endTime: string; metrics?: { avgMetrics?: Record<string, unknown> } };
  checkpoint?: { uuid: string; totalBatches: number; endTime: string; state: string };
}

function Workloads({ trialId }: { trialId: number }) {
  const { data, error, loading } = usePoll(
    (signal) => request<{ workloads: Workload[] }>(`/api/v1/trials/${trialId}/workloads`, { query: { limit: 500, orderBy: 'ORDER_BY_DESC' }, signal }),
    5000,
    [trialId],
  );
  if (loading && !data) return <Spinner label="Loading workloads" />;
  const rows = data?.workloads ?? [];
  return (
    <>
      <ErrorBanner message={error} />
      {rows.length === 0 ? <Empty>No workloads yet.</Empty> : (
        <div className="table-scroll short">
          <table className="table" aria-label="Workloads">
            <thead><tr><th>Kind</th><th className="num">Batches</th><th>Time</th><th>Values</th></tr></thead>
            <tbody>
              {rows.map((w, i) => {
                const kind = w.training ? 'Training' : w.validation ? 'Validation' : 'Checkpoint';
                const body = w.training ?? w.validation ?? w.checkpoint!;
                const values = w.checkpoint ? w.checkpoint.uuid : Object.entries((w.training ?? w.validation)?.metrics?.avgMetrics ?? {})
                  .map(([k, v]) => `${k}=${formatNumber(v)}`).join('  ');
                return (
                  <tr key={i}><td>{kind}</td><td className="num">{body.totalBatches}</td><td>{formatTime(body.endTime)}</td><td className="mono">{values}</td></tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
