import type { XY } from './components/chartData';

// The profiler's groups (docs/profiler.md), as reported under each agent id: a metric directly under
// the agent ({agent: {cpu_util_simple: 12}}) or under a label, a GPU's uuid or a mount point
// ({agent: {"GPU-1": {gpu_util: 40}}}). `timings` are the PyTorch loop's phases.
export const PROFILER_GROUPS = ['cpu', 'memory', 'disk', 'network', 'gpu', 'timings'] as const;
export type ProfilerGroup = (typeof PROFILER_GROUPS)[number];

export const GROUP_TITLES: Record<ProfilerGroup, string> = {
  cpu: 'CPU',
  memory: 'Memory',
  disk: 'Disk',
  network: 'Network',
  gpu: 'GPU',
  timings: 'Training loop timings',
};

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

// How each known metric is shown: a title, its unit, and the factor from the reported unit.
const METRICS: Record<string, { title: string; unit: string; scale: number }> = {
  cpu_util_simple: { title: 'CPU utilization', unit: '%', scale: 1 },
  memory_free: { title: 'Free memory', unit: 'GiB', scale: 1 / GIB },
  disk_iops: { title: 'Disk IOPS', unit: 'ops/s', scale: 1 },
  disk_throughput_read: { title: 'Disk read throughput', unit: 'MiB/s', scale: 1 / MIB },
  disk_throughput_write: { title: 'Disk write throughput', unit: 'MiB/s', scale: 1 / MIB },
  disk_util: { title: 'Disk space used', unit: '%', scale: 1 },
  net_throughput_sent: { title: 'Network sent', unit: 'MiB/s', scale: 1 / MIB },
  net_throughput_recv: { title: 'Network received', unit: 'MiB/s', scale: 1 / MIB },
  gpu_util: { title: 'GPU utilization', unit: '%', scale: 1 },
  gpu_free_memory: { title: 'GPU free memory', unit: 'GiB', scale: 1 / GIB },
};

export function metricInfo(group: string, name: string): { title: string; unit: string; scale: number } {
  if (METRICS[name]) return METRICS[name]!;
  if (group === 'timings') return { title: `${name} (per call)`, unit: 'ms', scale: 1000 };
  return { title: name, unit: '', scale: 1 };
}

// One report of GET /api/v1/trials/metrics/trial_metrics, as far as the tab reads it.
export interface ProfilerReport {
  endTime: string;
  metrics?: { avg_metrics?: Record<string, unknown> };
}

export interface MetricChartData {
  name: string;
  title: string;
  unit: string;
  lines: XY[]; // x: Unix seconds; one line per agent, or per agent and GPU/mount
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// The charts of one group: one per metric name, in order of first appearance, each with a line per
// agent (or agent and label), points in time order.
export function chartsOf(group: string, reports: ProfilerReport[]): MetricChartData[] {
  const byMetric = new Map<string, Map<string, { x: number[]; y: number[] }>>();
  const add = (metric: string, line: string, t: number, v: unknown) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return;
    let lines = byMetric.get(metric);
    if (!lines) byMetric.set(metric, (lines = new Map()));
    let xy = lines.get(line);
    if (!xy) lines.set(line, (xy = { x: [], y: [] }));
    xy.x.push(t);
    xy.y.push(v * metricInfo(group, metric).scale);
  };
  const sorted = [...reports].sort((a, b) => Date.parse(a.endTime) - Date.parse(b.endTime));
  for (const r of sorted) {
    const t = Date.parse(r.endTime) / 1000;
    if (!Number.isFinite(t)) continue;
    for (const [agent, values] of Object.entries(r.metrics?.avg_metrics ?? {})) {
      if (!isRecord(values)) continue;
      for (const [key, v] of Object.entries(values)) {
        if (isRecord(v)) {
          for (const [metric, inner] of Object.entries(v)) add(metric, `${agent} ${key}`, t, inner);
        } else {
          add(key, agent, t, v);
        }
      }
    }
  }
  return [...byMetric.entries()].map(([name, lines]) => {
    const info = metricInfo(group, name);
    return {
      name,
      title: info.title,
      unit: info.unit,
      lines: [...lines.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([label, xy]) => ({ label, ...xy })),
    };
  });
}
