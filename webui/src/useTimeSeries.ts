import { useEffect, useState } from 'react';
import { describeError, request } from './api';
import { mergeSeries, nextStartBatches } from './components/chartData';
import { PROFILER_GROUPS } from './profilerSeries';
import type { TrialSeries } from './types';

export const SERIES_MAX_POINTS = 1000;
export const FOLLOW_MS = 3000;

// The downsampled series of `metricIds` (GROUP.NAME) for `trialIds` from /api/v1/trials/time-series.
// While `follow` is set it asks every FOLLOW_MS for points past the newest it has (startBatches)
// and appends them, instead of fetching whole series again.
export function useTimeSeries(trialIds: number[], metricIds: string[], follow: boolean) {
  const [series, setSeries] = useState<TrialSeries[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const key = `${trialIds.join(',')}|${metricIds.join(',')}`;

  useEffect(() => {
    if (!trialIds.length || !metricIds.length) {
      setSeries([]);
      setLoading(false);
      return;
    }
    const ctl = new AbortController();
    let current: TrialSeries[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    setLoading(true);
    setSeries([]);
    const fetchFrom = async (start: number) => {
      const r = await request<{ trials: TrialSeries[] }>('/api/v1/trials/time-series', {
        query: { trialIds, metricIds, maxDatapoints: SERIES_MAX_POINTS, startBatches: start || undefined },
        signal: ctl.signal,
      });
      return r.trials;
    };
    const tick = async (first: boolean) => {
      try {
        const fresh = await fetchFrom(first ? 0 : nextStartBatches(current, trialIds));
        if (stopped) return;
        current = first ? fresh : mergeSeries(current, fresh);
        setSeries(current);
        setError(null);
      } catch (e) {
        if (stopped) return;
        const msg = describeError(e);
        if (msg) setError(msg);
      } finally {
        if (!stopped) setLoading(false);
      }
      if (!stopped && follow) timer = setTimeout(() => void tick(false), FOLLOW_MS);
    };
    void tick(true);
    return () => {
      stopped = true;
      ctl.abort();
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, follow]);

  return { series, error, loading };
}

// Metric choices from the trials' summaries (kept at ingestion): GROUP.NAME, validation first.
export function metricIdsOf(trials: { summaryMetrics?: Record<string, Record<string, unknown>> }[]): string[] {
  const ids = new Set<string>();
  for (const t of trials) {
    for (const [key, metrics] of Object.entries(t.summaryMetrics ?? {})) {
      const group = key === 'avg_metrics' ? 'training' : key === 'validation_metrics' ? 'validation' : key;
      // The profiler's groups are nested by agent: they have their own tab, not learning curves.
      if ((PROFILER_GROUPS as readonly string[]).includes(group)) continue;
      for (const name of Object.keys(metrics ?? {})) ids.add(`${group}.${name}`);
    }
  }
  const rank = (id: string) => (id.startsWith('validation.') ? 0 : id.startsWith('training.') ? 1 : 2);
  return [...ids].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
