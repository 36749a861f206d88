export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${sec}s`;
  return `${sec}s`;
}

export function durationBetween(start: string | null | undefined, end: string | null | undefined, now = Date.now()): string {
  if (!start) return '–';
  const a = Date.parse(start);
  const b = end ? Date.parse(end) : now;
  return formatDuration(b - a);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const t = new Date(iso);
  // The epoch stands for "never recorded" in some stored rows.
  if (Number.isNaN(t.getTime()) || t.getTime() <= 0) return '–';
  return t.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatNumber(v: unknown): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return v === null || v === undefined ? '–' : String(v);
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e6)) return v.toExponential(3);
  return v.toPrecision(4).replace(/\.?0+$/, '');
}

export function formatBytes(raw: string | number | undefined): string {
  const n = typeof raw === 'string' ? Number(raw) : raw;
  if (n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}
