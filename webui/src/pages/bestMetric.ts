import { useEffect, useState } from 'react';
import { ApiError, request } from '../api';
import type { Experiment } from '../types';
import { isTerminal } from './experimentActions';

// The best searcher-metric value of each experiment, for the list's column. The list endpoint has no
// such field, so the rows in view ask GET .../searcher/best_searcher_validation_metric (one small
// query each). A finished experiment's value never changes and is asked once; an active one's again
// after ACTIVE_TTL_MS.
const ACTIVE_TTL_MS = 5000;
const CONCURRENCY = 6;
const cache = new Map<number, { value: number | null; at: number; final: boolean }>();
const inFlight = new Set<number>();

export function bestMetricCacheForTest() {
  return cache;
}

export function useBestMetrics(visible: Experiment[]): Map<number, number | null> {
  const [, setVersion] = useState(0);
  const key = visible.map((e) => `${e.id}:${e.state}`).join(',');
  useEffect(() => {
    let live = true;
    const now = Date.now();
    const due = visible.filter((e) => {
      const c = cache.get(e.id);
      return !inFlight.has(e.id) && (!c || (!c.final && now - c.at > ACTIVE_TTL_MS));
    });
    const queue = [...due];
    const worker = async () => {
      for (let e = queue.shift(); e; e = queue.shift()) {
        inFlight.add(e.id);
        let value: number | null = null;
        try {
          value = (await request<{ metric: number }>(`/api/v1/experiments/${e.id}/searcher/best_searcher_validation_metric`)).metric;
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 404) {
            inFlight.delete(e.id);
            continue; // asked again on the next refresh
          }
        }
        inFlight.delete(e.id);
        cache.set(e.id, { value, at: Date.now(), final: isTerminal(e.state) });
        if (live) setVersion((v) => v + 1);
      }
    };
    void Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const out = new Map<number, number | null>();
  for (const e of visible) {
    const c = cache.get(e.id);
    if (c) out.set(e.id, c.value);
  }
  return out;
}
