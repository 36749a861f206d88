import type { XY } from './components/chartData';

// Cluster usage (GET /api/v1/resources/allocation/aggregated and .../raw): what the Cluster page's
// usage charts and CSV download make of the master's replies. The master counts slot-seconds; people
// read slot-hours.

export type UsagePeriod = 'RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY' | 'RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY';

export interface UsageBucket {
  periodStart: string; // YYYY-MM-DD (UTC)
  period: UsagePeriod;
  seconds: number;
  byUsername: Record<string, number>;
  byExperimentLabel: Record<string, number>;
  byResourcePool: Record<string, number>;
  byWorkspace?: Record<string, number>;
  byTaskType?: Record<string, number>;
}

export interface UsageRawEntry {
  allocationId?: string;
  kind?: string;
  username?: string;
  userId?: number;
  labels?: string[];
  slots?: number;
  seconds?: number;
  startTime?: string;
  endTime?: string | null;
  experimentId?: number;
  resourcePool?: string;
  workspace?: string;
}

export type UsageSplit = 'byUsername' | 'byWorkspace' | 'byResourcePool' | 'byExperimentLabel';

/** Unix seconds of a YYYY-MM-DD date's midnight UTC. */
export function dayToUnix(day: string): number {
  return Date.parse(`${day}T00:00:00Z`) / 1000;
}

/** Slot-seconds as slot-hours. */
export function slotHours(seconds: number): number {
  return seconds / 3600;
}

/** Slot-hours for people: 2 decimals from 1 up, 2 significant digits below (a short run is not "0.00"). */
export function formatHours(hours: number): string {
  if (hours === 0) return '0';
  if (hours >= 1) return hours.toFixed(2);
  return String(Number(hours.toPrecision(2)));
}

/** One series per key of `split` (sorted), plus "Total" first, in slot-hours, x = each period's start. */
export function usageSeries(buckets: UsageBucket[], split: UsageSplit): XY[] {
  const x = buckets.map((b) => dayToUnix(b.periodStart));
  const keys = [...new Set(buckets.flatMap((b) => Object.keys(b[split] ?? {})))].sort();
  return [
    { label: 'Total', x, y: buckets.map((b) => slotHours(b.seconds)) },
    ...keys.map((k) => ({ label: k === '' ? '(none)' : k, x, y: buckets.map((b) => slotHours(b[split]?.[k] ?? 0)) })),
  ];
}

/** YYYY-MM-DD of a Date in UTC. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The default range: the 30 days through today (UTC). */
export function defaultRange(now: Date): { start: string; end: string } {
  const start = new Date(now.getTime() - 29 * 86400 * 1000);
  return { start: utcDay(start), end: utcDay(now) };
}

/** The raw endpoint's window for the days [start, end]: midnight UTC to the midnight after `end`. */
export function rawWindow(start: string, end: string): { timestampAfter: string; timestampBefore: string } {
  const after = new Date(dayToUnix(end) * 1000 + 86400 * 1000);
  return { timestampAfter: `${start}T00:00:00Z`, timestampBefore: after.toISOString().replace('.000Z', 'Z') };
}

const CSV_COLUMNS: [string, (e: UsageRawEntry) => unknown][] = [
  ['allocation_id', (e) => e.allocationId],
  ['kind', (e) => e.kind],
  ['username', (e) => e.username],
  ['workspace', (e) => e.workspace],
  ['resource_pool', (e) => e.resourcePool],
  ['experiment_id', (e) => (e.experimentId ? e.experimentId : '')],
  ['labels', (e) => (e.labels ?? []).join(';')],
  ['slots', (e) => e.slots],
  ['start_time', (e) => e.startTime],
  ['end_time', (e) => e.endTime ?? ''],
  ['seconds', (e) => e.seconds],
  ['slot_hours', (e) => slotHours((e.seconds ?? 0) * (e.slots ?? 0))],
];

function csvField(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The raw entries as CSV (RFC 4180: a header line, CRLF line ends, quoted where needed). */
export function usageCsv(entries: UsageRawEntry[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const e of entries) lines.push(CSV_COLUMNS.map(([, get]) => csvField(get(e))).join(','));
  return lines.join('\r\n') + '\r\n';
}
