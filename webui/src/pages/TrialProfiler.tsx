import { useMemo } from 'react';
import { streamResults } from '../api';
import { Empty, ErrorBanner, Spinner } from '../components/Feedback';
import { LineChart } from '../components/LineChart';
import { usePoll } from '../hooks';
import { chartsOf, GROUP_TITLES, PROFILER_GROUPS, type ProfilerGroup, type ProfilerReport } from '../profilerSeries';

// The profiler reports about every 10 s by default (a sample a second, 10 per report).
const POLL_MS = 10_000;

async function fetchGroup(trialId: number, group: ProfilerGroup, signal: AbortSignal): Promise<ProfilerReport[]> {
  const reports: ProfilerReport[] = [];
  await streamResults<{ metrics?: ProfilerReport[] }>(
    '/api/v1/trials/metrics/trial_metrics',
    { trialIds: trialId, group },
    (items) => items.forEach((i) => reports.push(...(i.metrics ?? []))),
    signal,
  );
  return reports;
}

// The trial's Profiler tab: a section per group that has reports, a chart per metric, a line per
// agent (and GPU or mount); kept current while the trial runs.
export function TrialProfiler({ trialId, live }: { trialId: number; live: boolean }) {
  const { data, error, loading } = usePoll(
    async (signal) => {
      const all = await Promise.all(PROFILER_GROUPS.map((g) => fetchGroup(trialId, g, signal)));
      return PROFILER_GROUPS.map((group, i) => ({ group, charts: chartsOf(group, all[i]!) }));
    },
    live ? POLL_MS : null,
    [trialId, live],
  );
  const groups = useMemo(() => (data ?? []).filter((g) => g.charts.length > 0), [data]);
  if (loading && !data) return <Spinner label="Loading profiler metrics" />;
  return (
    <>
      <ErrorBanner message={error} />
      {data && groups.length === 0 && <NoProfile live={live} />}
      {groups.map(({ group, charts }) => (
        <section key={group} aria-label={`${GROUP_TITLES[group]} metrics`} data-testid="profiler-group">
          <h2>{GROUP_TITLES[group]} <span className="muted mono" style={{ fontSize: 12 }}>group {group}</span></h2>
          <div className="grid-2">
            {charts.map((c) => (
              <section key={c.name} className="card" aria-label={`${c.title} (${group})`}>
                <h3 style={{ marginTop: 0 }}>{c.title}{c.unit && <span className="muted"> ({c.unit})</span>}</h3>
                <LineChart series={c.lines} time xLabel="Time" yLabel={c.unit || c.name}
                  title={`${c.name} (${group}) over time`} height={240} />
              </section>
            ))}
          </div>
        </section>
      ))}
    </>
  );
}

function NoProfile({ live }: { live: boolean }) {
  return (
    <section className="card" aria-label="No profiler data" style={{ maxWidth: 760 }}>
      <h2 style={{ marginTop: 0 }}>No profiler data for this trial</h2>
      <p>
        The profiler samples the trial's machine (CPU, memory, disk, network and GPUs) every second and
        reports averages about every ten seconds. It is off unless the trial turns it on, with one of:
      </p>
      <ul>
        <li><code>profiling: {'{'}enabled: true{'}'}</code> in the experiment config (any trial);</li>
        <li><code>trainer.fit(..., profiling_enabled=True)</code> with the PyTorch Trainer;</li>
        <li><code>core_context.profiler.on()</code> in a Core API script.</li>
      </ul>
      {live && <Empty>If it is on, the first report arrives about ten seconds after it starts.</Empty>}
    </section>
  );
}
