import { useMemo, useState } from 'react';
import { describeError, request } from '../api';
import { ErrorBanner, Spinner } from '../components/Feedback';
import { LineChart } from '../components/LineChart';
import { usePoll } from '../hooks';
import {
  defaultRange,
  formatHours,
  rawWindow,
  usageCsv,
  usageSeries,
  utcDay,
  type UsageBucket,
  type UsagePeriod,
  type UsageRawEntry,
  type UsageSplit,
} from '../usage';

const SPLITS: [UsageSplit, string][] = [
  ['byUsername', 'user'],
  ['byWorkspace', 'workspace'],
  ['byExperimentLabel', 'experiment label'],
  ['byResourcePool', 'resource pool'],
];

// The Cluster page's usage section: slot-hours per day or month, split by user, workspace, label and
// pool, over a date range (UTC), and the allocations of that range as a CSV file.
export default function ClusterUsage() {
  const [range, setRange] = useState(() => defaultRange(new Date()));
  const [period, setPeriod] = useState<UsagePeriod>('RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY');
  const [csvError, setCsvError] = useState<string | null>(null);
  const usage = usePoll(
    (signal) =>
      request<{ resourceEntries: UsageBucket[] }>('/api/v1/resources/allocation/aggregated', {
        query: { startDate: range.start, endDate: range.end, period },
        signal,
      }),
    null,
    [range.start, range.end, period],
  );
  const buckets = useMemo(() => usage.data?.resourceEntries ?? [], [usage.data]);
  const charts = useMemo(() => SPLITS.map(([split, name]) => ({ split, name, series: usageSeries(buckets, split) })), [buckets]);
  const total = buckets.reduce((n, b) => n + b.seconds, 0) / 3600;

  const downloadCsv = async () => {
    try {
      setCsvError(null);
      const raw = await request<{ resourceEntries?: UsageRawEntry[] }>('/api/v1/resources/allocation/raw', {
        query: rawWindow(range.start, range.end),
      });
      const blob = new Blob([usageCsv(raw.resourceEntries ?? [])], { type: 'text/csv' });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `det-usage-${range.start}-${range.end}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (e) {
      setCsvError(describeError(e));
    }
  };

  return (
    <section aria-label="Cluster usage">
      <h2>Usage</h2>
      <div className="toolbar" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap', marginBottom: 8 }}>
        <label>
          From{' '}
          <input type="date" aria-label="From" value={range.start} max={range.end}
            onChange={(e) => e.target.value && setRange((r) => ({ ...r, start: e.target.value }))} />
        </label>
        <label>
          To{' '}
          <input type="date" aria-label="To" value={range.end} min={range.start} max={utcDay(new Date())}
            onChange={(e) => e.target.value && setRange((r) => ({ ...r, end: e.target.value }))} />
        </label>
        <label>
          Period{' '}
          <select aria-label="Period" value={period} onChange={(e) => setPeriod(e.target.value as UsagePeriod)}>
            <option value="RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY">Daily</option>
            <option value="RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY">Monthly</option>
          </select>
        </label>
        <button onClick={() => void downloadCsv()}>Download CSV</button>
        <span className="muted">{formatHours(total)} slot-hours in total (UTC days)</span>
      </div>
      <ErrorBanner message={csvError ?? usage.error} />
      {usage.loading && !usage.data ? <Spinner label="Loading usage" /> : (
        <div className="grid-2">
          {charts.map(({ split, name, series }) => (
            <div key={split} className="card">
              <h3 style={{ marginTop: 0 }}>Slot-hours by {name}</h3>
              <LineChart series={series} xLabel="Date" yLabel="Slot-hours" time height={240}
                title={`Slot-hours by ${name}`} />
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
