import type { MetricPoint, TrialSeries } from '../types';

export interface XY {
  label: string;
  x: number[];
  y: (number | null)[];
}

// uPlot wants one sorted x axis shared by every series: the union of all x values, with null where
// a series has no point (the chart spans the gaps).
export function alignSeries(series: XY[]): [number[], ...(number | null)[][]] {
  const xs = new Set<number>();
  for (const s of series) for (const x of s.x) xs.add(x);
  const x = [...xs].sort((a, b) => a - b);
  const index = new Map<number, number>();
  x.forEach((v, i) => index.set(v, i));
  const ys = series.map((s) => {
    const y: (number | null)[] = new Array<number | null>(x.length).fill(null);
    s.x.forEach((v, i) => {
      y[index.get(v)!] = s.y[i] ?? null;
    });
    return y;
  });
  return [x, ...ys];
}

// Points of one metric out of the master's downsampled series, by batches.
export function pointsOf(data: MetricPoint[], name: string): { x: number[]; y: (number | null)[] } {
  const x: number[] = [];
  const y: (number | null)[] = [];
  for (const p of data) {
    const v = p.values[name];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue;
    x.push(p.batches);
    y.push(v);
  }
  return { x, y };
}

// Appends the points of `fresh` that are newer than what `old` holds, per trial and group, so a
// follow fetches only what is new (startBatches) and keeps what it had.
export function mergeSeries(old: TrialSeries[], fresh: TrialSeries[]): TrialSeries[] {
  const byTrial = new Map(old.map((t) => [t.trial.id, t]));
  const out: TrialSeries[] = [];
  for (const f of fresh) {
    const prev = byTrial.get(f.trial.id);
    if (!prev) {
      out.push(f);
      continue;
    }
    byTrial.delete(f.trial.id);
    const metrics = prev.metrics.map((m) => {
      const add = f.metrics.find((n) => n.group === m.group);
      const last = m.data.length ? m.data[m.data.length - 1]!.batches : -Infinity;
      return add ? { ...m, data: [...m.data, ...add.data.filter((p) => p.batches > last)] } : m;
    });
    for (const n of f.metrics) if (!metrics.some((m) => m.group === n.group)) metrics.push(n);
    out.push({ trial: f.trial, metrics });
  }
  return [...out, ...byTrial.values()].sort((a, b) => a.trial.id - b.trial.id);
}

// The batch to ask from next: one past the oldest "newest point" among the trials (0 if one has none).
export function nextStartBatches(series: TrialSeries[], trialIds: number[]): number {
  let min = Infinity;
  for (const id of trialIds) {
    const t = series.find((s) => s.trial.id === id);
    const last = t ? Math.max(-1, ...t.metrics.map((m) => (m.data.length ? m.data[m.data.length - 1]!.batches : -1))) : -1;
    min = Math.min(min, last);
  }
  return Number.isFinite(min) && min >= 0 ? min + 1 : 0;
}
