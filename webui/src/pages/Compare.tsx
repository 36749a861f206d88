import { useCallback, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { MetricChart } from '../components/MetricChart';
import { StateBadge } from '../components/StateBadge';
import { formatNumber } from '../format';
import { usePoll } from '../hooks';
import type { Trial } from '../types';
import { metricIdsOf } from '../useTimeSeries';

const MAX_TRIALS = 50;

export function parseIds(raw: string | null): number[] {
  return [...new Set((raw ?? '').split(',').map((s) => Number(s.trim())).filter((n) => Number.isInteger(n) && n > 0))];
}

// Two or more experiments' or trials' curves on one chart: /compare?experiments=1,2 or ?trials=5,9.
export default function Compare() {
  const [params] = useSearchParams();
  const expIds = parseIds(params.get('experiments'));
  const trialIds = parseIds(params.get('trials'));
  const { data, error, loading } = usePoll(
    async (signal) => {
      const fromExps = await Promise.all(
        expIds.map((id) => request<{ trials: Trial[] }>(`/api/v1/experiments/${id}/trials`, { query: { limit: 1000 }, signal }).then((r) => r.trials)),
      );
      const single = await Promise.all(trialIds.map((id) => request<{ trial: Trial }>(`/api/v1/trials/${id}`, { signal }).then((r) => r.trial)));
      const all = [...fromExps.flat(), ...single];
      return all.filter((t, i) => all.findIndex((u) => u.id === t.id) === i);
    },
    10000,
    [expIds.join(','), trialIds.join(',')],
  );
  const trials = useMemo(() => data ?? [], [data]);
  const metricIds = useMemo(() => metricIdsOf(trials), [trials]);
  const [chosen, setChosen] = useState('');
  const metricId = chosen && metricIds.includes(chosen) ? chosen : metricIds[0] ?? '';
  const shown = useMemo(() => trials.slice(0, MAX_TRIALS).map((t) => t.id), [trials]);
  const expOf = useMemo(() => new Map(trials.map((t) => [t.id, t.experimentId])), [trials]);
  const label = useCallback((id: number) => `Exp ${expOf.get(id) ?? '?'} · Trial ${id}`, [expOf]);

  if (expIds.length + trialIds.length === 0) {
    return <div className="page"><h1>Compare</h1><Empty>Select experiments in the experiment list and choose Compare, or open /compare?trials=1,2.</Empty></div>;
  }
  const hpNames = [...new Set(trials.flatMap((t) => Object.keys(t.hparams ?? {})))].slice(0, 6);
  return (
    <div className="page">
      <div className="page-head">
        <h1>Compare</h1>
        <span className="muted">
          {expIds.length > 0 && <>experiments {expIds.map((id, i) => <span key={id}>{i > 0 && ', '}<Link to={`/experiments/${id}`}>{id}</Link></span>)}</>}
          {expIds.length > 0 && trialIds.length > 0 && ' · '}
          {trialIds.length > 0 && <>trials {trialIds.join(', ')}</>}
        </span>
      </div>
      <ErrorBanner message={error} />
      {loading && !data ? <Spinner label="Loading trials" /> : (
        <>
          <div className="chart-controls">
            {metricIds.length > 0 && (
              <label>
                Metric
                <select value={metricId} onChange={(e) => setChosen(e.target.value)}>
                  {metricIds.map((m) => <option key={m} value={m}>{m}</option>)}
                </select>
              </label>
            )}
            {trials.length > MAX_TRIALS && <span className="muted">first {MAX_TRIALS} of {trials.length} trials</span>}
          </div>
          {metricId ? <MetricChart trialIds={shown} metricId={metricId} follow={false} label={label} /> : <Empty>No metrics reported yet.</Empty>}
          <h2>Trials</h2>
          <div className="table-scroll short">
            <table className="table" aria-label="Compared trials">
              <thead><tr><th>Experiment</th><th>Trial</th><th>State</th><th className="num">Batches</th>{hpNames.map((h) => <th key={h}>{h}</th>)}</tr></thead>
              <tbody>
                {trials.map((t) => (
                  <tr key={t.id}>
                    <td><Link to={`/experiments/${t.experimentId}`}>{t.experimentId}</Link></td>
                    <td><Link to={`/trials/${t.id}`}>{t.id}</Link></td>
                    <td><StateBadge state={t.state} /></td>
                    <td className="num">{t.totalBatchesProcessed}</td>
                    {hpNames.map((h) => <td key={h}>{formatNumber(t.hparams?.[h])}</td>)}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
