import { useMemo } from 'react';
import { useTimeSeries } from '../useTimeSeries';
import { ErrorBanner, Spinner, Empty } from './Feedback';
import { LineChart } from './LineChart';
import { pointsOf, type XY } from './chartData';

// Learning curves: metric GROUP.NAME of every trial in `trialIds`, one line each, kept current
// while `follow`.
export function MetricChart({ trialIds, metricId, follow, label }: { trialIds: number[]; metricId: string; follow: boolean; label?: (trialId: number) => string }) {
  const ids = useMemo(() => [metricId], [metricId]);
  const { series, error, loading } = useTimeSeries(trialIds, ids, follow);
  const dot = metricId.indexOf('.');
  const group = metricId.slice(0, dot);
  const name = metricId.slice(dot + 1);
  const lines: XY[] = useMemo(
    () =>
      series.map((t) => {
        const m = t.metrics.find((g) => g.group === group);
        return { label: label ? label(t.trial.id) : `Trial ${t.trial.id}`, ...pointsOf(m?.data ?? [], name) };
      }),
    [series, group, name, label],
  );
  if (loading && !series.length) return <Spinner label="Loading metrics" />;
  const points = lines.reduce((n, l) => n + l.x.length, 0);
  return (
    <>
      <ErrorBanner message={error} />
      {points === 0 ? (
        <Empty>No {group} values of {name} reported yet.</Empty>
      ) : (
        <LineChart series={lines} xLabel="Batches" yLabel={`${name} (${group})`} title={`${name} (${group}) by batches`} />
      )}
    </>
  );
}
