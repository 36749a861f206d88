import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { LineChart } from '../components/LineChart';
import { MetricChart } from '../components/MetricChart';
import { StateBadge } from '../components/StateBadge';
import { Tabs } from '../components/Tabs';
import { durationBetween, formatBytes, formatNumber, formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Checkpoint, Experiment, Trial } from '../types';
import { metricIdsOf } from '../useTimeSeries';
import { ACTION_LABELS, applyAction, canApply, isTerminal, type ExperimentAction } from './experimentActions';
import { Progress } from './ExperimentList';

const TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'trials', label: 'Trials' },
  { id: 'hyperparameters', label: 'Hyperparameters' },
  { id: 'checkpoints', label: 'Checkpoints' },
  { id: 'config', label: 'Config' },
];
const REFRESH_MS = 5000;
const MAX_CHART_TRIALS = 50;

export function searcherValue(t: Trial, metric: string): number | undefined {
  const v = t.bestValidation?.metrics as Record<string, unknown> | undefined;
  const avg = (v?.avgMetrics ?? v?.avg_metrics ?? v) as Record<string, unknown> | undefined;
  const x = avg?.[metric];
  if (typeof x === 'number') return x;
  return undefined;
}

export function bestTrial(trials: Trial[], metric: string, smallerIsBetter: boolean): Trial | undefined {
  let best: Trial | undefined;
  let bestV = 0;
  for (const t of trials) {
    const v = searcherValue(t, metric);
    if (v === undefined) continue;
    if (!best || (smallerIsBetter ? v < bestV : v > bestV)) {
      best = t;
      bestV = v;
    }
  }
  return best;
}

export default function ExperimentDetail() {
  const { id = '', tab = 'overview' } = useParams();
  const navigate = useNavigate();
  const expId = Number(id);
  const exp = usePoll(
    (signal) => request<{ experiment: Experiment; config: Record<string, unknown> | null }>(`/api/v1/experiments/${expId}`, { signal }),
    REFRESH_MS,
    [expId],
  );
  const trialsPoll = usePoll(
    (signal) => request<{ trials: Trial[] }>(`/api/v1/experiments/${expId}/trials`, { query: { limit: 1000 }, signal }),
    REFRESH_MS,
    [expId],
  );
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (!Number.isInteger(expId) || expId <= 0) return <div className="page"><ErrorBanner message={`"${id}" is not an experiment id.`} /></div>;
  if (!exp.data) {
    return (
      <div className="page">
        {exp.error ? <ErrorBanner message={exp.error} onRetry={exp.reload} /> : <Spinner label="Loading experiment" />}
      </div>
    );
  }
  const e = exp.data.experiment;
  const config = exp.data.config ?? e.config ?? {};
  const trials = trialsPoll.data?.trials ?? [];
  const smaller = ((config.searcher as Record<string, unknown> | undefined)?.smaller_is_better ?? true) !== false;

  const act = async (a: ExperimentAction) => {
    if ((a === 'kill' || a === 'delete') && !window.confirm(`${ACTION_LABELS[a]} experiment ${e.id}?`)) return;
    setBusy(true);
    setActionError(null);
    try {
      await applyAction(a, e.id);
      if (a === 'delete') navigate('/experiments');
      else exp.reload();
    } catch (err) {
      setActionError(describeError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>
          Experiment {e.id}: {e.name}
        </h1>
        <StateBadge state={e.state} />
        {e.archived && <span className="tag">archived</span>}
        <div className="actions" role="toolbar" aria-label="Experiment actions">
          {(['activate', 'pause', 'kill', 'archive', 'unarchive', 'delete'] as ExperimentAction[])
            .filter((a) => canApply(a, e))
            .map((a) => (
              <button key={a} className={a === 'kill' || a === 'delete' ? 'danger' : ''} disabled={busy} onClick={() => void act(a)}>
                {ACTION_LABELS[a]}
              </button>
            ))}
        </div>
      </div>
      <ErrorBanner message={actionError ?? exp.error} />
      <Tabs base={`/experiments/${e.id}`} tabs={TABS} current={tab} />
      {tab === 'overview' && <Overview e={e} trials={trials} smaller={smaller} />}
      {tab === 'trials' && <TrialsTable trials={trials} metric={e.searcherMetric} error={trialsPoll.error} />}
      {tab === 'hyperparameters' && <HyperparameterView trials={trials} metric={e.searcherMetric} />}
      {tab === 'checkpoints' && <Checkpoints expId={e.id} />}
      {tab === 'config' && <ConfigView e={e} config={config} />}
    </div>
  );
}

function Overview({ e, trials, smaller }: { e: Experiment; trials: Trial[]; smaller: boolean }) {
  const metricIds = useMemo(() => metricIdsOf(trials), [trials]);
  const [chosen, setChosen] = useState<string>('');
  const preferred = `validation.${e.searcherMetric}`;
  const metricId = chosen || (metricIds.includes(preferred) ? preferred : metricIds[0] ?? '');
  const trialIds = useMemo(() => trials.slice(0, MAX_CHART_TRIALS).map((t) => t.id), [trials.map((t) => t.id).join(',')]); // eslint-disable-line react-hooks/exhaustive-deps
  const best = bestTrial(trials, e.searcherMetric, smaller);
  const live = !isTerminal(e.state);
  return (
    <>
      <div className="grid-2">
        <section className="card" aria-labelledby="facts-h">
          <h2 id="facts-h" style={{ marginTop: 0 }}>Summary</h2>
          <dl className="facts">
            <dt>Progress</dt><dd><Progress value={e.progress} /></dd>
            <dt>User</dt><dd>{e.username}</dd>
            <dt>Started</dt><dd>{formatTime(e.startTime)}</dd>
            <dt>Duration</dt><dd>{durationBetween(e.startTime, e.endTime)}</dd>
            <dt>Searcher</dt><dd>{e.searcherType} on {e.searcherMetric} ({smaller ? 'smaller' : 'larger'} is better)</dd>
            <dt>Resource pool</dt><dd>{e.resourcePool}</dd>
            <dt>Trials</dt><dd>{e.numTrials}</dd>
            {e.description && (<><dt>Description</dt><dd>{e.description}</dd></>)}
          </dl>
        </section>
        <section className="card" aria-labelledby="best-h">
          <h2 id="best-h" style={{ marginTop: 0 }}>Best trial</h2>
          {best ? (
            <dl className="facts">
              <dt>Trial</dt><dd><Link to={`/trials/${best.id}`}>Trial {best.id}</Link></dd>
              <dt>{e.searcherMetric}</dt><dd>{formatNumber(searcherValue(best, e.searcherMetric))}</dd>
              <dt>Batches</dt><dd>{best.totalBatchesProcessed}</dd>
              <dt>Hyperparameters</dt><dd className="mono">{JSON.stringify(best.hparams)}</dd>
            </dl>
          ) : (
            <Empty>No trial has reported {e.searcherMetric} yet.</Empty>
          )}
        </section>
      </div>
      <section aria-labelledby="curves-h">
        <div className="chart-controls">
          <h2 id="curves-h">Learning curves</h2>
          {metricIds.length > 0 && (
            <label>
              Metric
              <select value={metricId} onChange={(ev) => setChosen(ev.target.value)}>
                {metricIds.map((m) => <option key={m} value={m}>{m}</option>)}
              </select>
            </label>
          )}
          {trials.length > MAX_CHART_TRIALS && <span className="muted">first {MAX_CHART_TRIALS} of {trials.length} trials</span>}
        </div>
        {metricId ? <MetricChart trialIds={trialIds} metricId={metricId} follow={live} /> : <Empty>No metrics reported yet.</Empty>}
      </section>
    </>
  );
}

export function TrialsTable({ trials, metric, error }: { trials: Trial[]; metric: string; error?: string | null }) {
  const hpNames = useMemo(() => [...new Set(trials.flatMap((t) => Object.keys(t.hparams ?? {})))].slice(0, 6), [trials]);
  return (
    <>
      <ErrorBanner message={error} />
      {trials.length === 0 ? (
        <Empty>No trials yet.</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Trials">
            <thead>
              <tr>
                <th className="num">Trial</th><th>State</th><th className="num">Batches</th><th className="num">{metric || 'Searcher metric'}</th>
                <th className="num">Restarts</th><th className="num">Checkpoints</th><th>Started</th><th>Duration</th>
                {hpNames.map((h) => <th key={h}>{h}</th>)}
              </tr>
            </thead>
            <tbody>
              {trials.map((t) => (
                <tr key={t.id}>
                  <td className="num"><Link to={`/trials/${t.id}`}>{t.id}</Link></td>
                  <td><StateBadge state={t.state} /></td>
                  <td className="num">{t.totalBatchesProcessed}</td>
                  <td className="num">{formatNumber(searcherValue(t, metric))}</td>
                  <td className="num">{t.restarts}</td>
                  <td className="num">{t.checkpointCount}</td>
                  <td>{formatTime(t.startTime)}</td>
                  <td>{durationBetween(t.startTime, t.endTime)}</td>
                  {hpNames.map((h) => <td key={h}>{formatNumber(t.hparams?.[h])}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

// Hyperparameter vs searcher metric scatter plots, one per numeric hyperparameter.
function HyperparameterView({ trials, metric }: { trials: Trial[]; metric: string }) {
  // Numeric hyperparameters the search varied; one with a single value has nothing to plot.
  const [numericHps, constant] = useMemo(() => {
    const values = new Map<string, Set<number>>();
    for (const t of trials) {
      for (const [k, v] of Object.entries(t.hparams ?? {})) {
        if (typeof v === 'number') values.set(k, (values.get(k) ?? new Set()).add(v));
      }
    }
    const varied = [...values].filter(([, vs]) => vs.size > 1).map(([k]) => k);
    const fixed = [...values].filter(([, vs]) => vs.size === 1).map(([k, vs]) => `${k} = ${formatNumber([...vs][0])}`);
    return [varied, fixed];
  }, [trials]);
  const scored = trials.filter((t) => searcherValue(t, metric) !== undefined);
  if (!numericHps.length) return <Empty>This experiment varies no numeric hyperparameter to plot.</Empty>;
  if (!scored.length) return <Empty>No trial has reported {metric} yet.</Empty>;
  return (
    <>
    {constant.length > 0 && <p className="muted">Constant: {constant.join(', ')}</p>}
    <div className="grid-2">
      {numericHps.map((hp) => {
        const pairs = spreadTies(scored.map((t) => [t.hparams[hp] as number, searcherValue(t, metric)!]));
        return (
          <section key={hp} className="card">
            <h2 style={{ marginTop: 0 }}>{hp}</h2>
            <LineChart points series={[{ label: metric, x: pairs.map((p) => p[0]), y: pairs.map((p) => p[1]) }]} xLabel={hp} yLabel={metric} height={240} title={`${metric} by ${hp}`} />
          </section>
        );
      })}
    </div>
    </>
  );
}

// Scatter points sorted by x, trials that share an x value moved apart by a hair: the chart keys
// points by x, and a grid search gives many trials each value.
export function spreadTies(pairs: [number, number][]): [number, number][] {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const span = sorted.length ? Math.abs(sorted[sorted.length - 1]![0] - sorted[0]![0]) || Math.abs(sorted[0]![0]) || 1 : 1;
  const eps = span * 1e-9;
  let run = 0;
  return sorted.map(([x, y], i) => {
    run = i > 0 && x === sorted[i - 1]![0] ? run + 1 : 0;
    return [x + run * eps, y];
  });
}

function Checkpoints({ expId }: { expId: number }) {
  const { data, error, loading } = usePoll(
    (signal) => request<{ checkpoints: Checkpoint[] }>(`/api/v1/experiments/${expId}/checkpoints`, { signal }),
    REFRESH_MS,
    [expId],
  );
  if (loading && !data) return <Spinner label="Loading checkpoints" />;
  const cps = data?.checkpoints ?? [];
  return (
    <>
      <ErrorBanner message={error} />
      {cps.length === 0 ? <Empty>No checkpoints yet.</Empty> : <CheckpointTable checkpoints={cps} />}
    </>
  );
}

export function CheckpointTable({ checkpoints }: { checkpoints: Checkpoint[] }) {
  return (
    <div className="table-scroll short">
      <table className="table" aria-label="Checkpoints">
        <thead>
          <tr><th>UUID</th><th className="num">Trial</th><th>State</th><th className="num">Batches</th><th>Reported</th><th className="num">Size</th></tr>
        </thead>
        <tbody>
          {checkpoints.map((c) => (
            <tr key={c.uuid}>
              <td className="mono">{c.uuid}</td>
              <td className="num"><Link to={`/trials/${c.training.trialId}`}>{c.training.trialId}</Link></td>
              <td><StateBadge state={c.state} /></td>
              <td className="num">{formatNumber(c.metadata?.steps_completed)}</td>
              <td>{formatTime(c.reportTime)}</td>
              <td className="num">{formatBytes(Object.values(c.resources ?? {}).reduce((n, v) => n + Number(v), 0))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ConfigView({ e, config }: { e: Experiment; config: Record<string, unknown> }) {
  const [text, setText] = useState<string>('');
  const [which, setWhich] = useState<'effective' | 'original'>('effective');
  useEffect(() => {
    let live = true;
    if (which === 'original' && e.originalConfig) {
      setText(e.originalConfig);
      return;
    }
    void import('yaml').then((yaml) => live && setText(yaml.stringify(config)));
    return () => {
      live = false;
    };
  }, [config, e.originalConfig, which]);
  return (
    <>
      <div className="chart-controls">
        <label>
          Show
          <select value={which} onChange={(ev) => setWhich(ev.target.value as 'effective' | 'original')}>
            <option value="effective">Effective config (with defaults)</option>
            <option value="original" disabled={!e.originalConfig}>As submitted</option>
          </select>
        </label>
      </div>
      <pre className="code" aria-label="Experiment config as YAML">{text}</pre>
    </>
  );
}
