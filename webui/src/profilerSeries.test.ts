import { describe, expect, it } from 'vitest';
import { chartsOf } from './profilerSeries';
import { metricIdsOf } from './useTimeSeries';

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 3, 0, s)).toISOString();
const t0 = Date.UTC(2026, 10, 26, 3, 0, 0) / 1000;

describe('chartsOf', () => {
  it('makes a chart per metric and a line per agent, in time order', () => {
    const charts = chartsOf('cpu', [
      { endTime: at(20), metrics: { avg_metrics: { 'agent-1': { cpu_util_simple: 30 }, 'agent-0': { cpu_util_simple: 20 } } } },
      { endTime: at(10), metrics: { avg_metrics: { 'agent-0': { cpu_util_simple: 10 } } } },
    ]);
    expect(charts).toEqual([{
      name: 'cpu_util_simple', title: 'CPU utilization', unit: '%',
      lines: [{ label: 'agent-0', x: [t0 + 10, t0 + 20], y: [10, 20] }, { label: 'agent-1', x: [t0 + 20], y: [30] }],
    }]);
  });

  it('splits labelled values (GPUs, mounts) into their own lines and scales bytes', () => {
    const charts = chartsOf('disk', [{ endTime: at(1), metrics: { avg_metrics: { 'agent-0': {
      disk_iops: 5, disk_throughput_read: 2 * 1024 ** 2, '/': { disk_util: 40 }, '/data': { disk_util: 70 },
    } } } }]);
    expect(charts.map((c) => c.name)).toEqual(['disk_iops', 'disk_throughput_read', 'disk_util']);
    expect(charts[1]!.lines[0]!.y).toEqual([2]);
    expect(charts[1]!.unit).toBe('MiB/s');
    expect(charts[2]!.lines.map((l) => [l.label, l.y[0]])).toEqual([['agent-0 /', 40], ['agent-0 /data', 70]]);
  });

  it('shows timings in milliseconds and skips what is not a number', () => {
    const charts = chartsOf('timings', [{ endTime: at(1), metrics: { avg_metrics: { 'agent-0': { train_batch: 0.0125, note: 'x' } } } }]);
    expect(charts).toHaveLength(1);
    expect(charts[0]!.unit).toBe('ms');
    expect(charts[0]!.lines[0]!.y[0]).toBeCloseTo(12.5);
    expect(chartsOf('cpu', [])).toEqual([]);
  });
});

describe('metricIdsOf', () => {
  it('leaves the profiler groups to their own tab', () => {
    const ids = metricIdsOf([{ summaryMetrics: { avg_metrics: { loss: {} }, cpu: { 'agent-0': {} }, gpu: { 'agent-0': {} }, custom: { x: {} } } }]);
    expect(ids).toEqual(['training.loss', 'custom.x']);
  });
});
