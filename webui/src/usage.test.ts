import { describe, expect, it } from 'vitest';
import { dayToUnix, defaultRange, formatHours, rawWindow, slotHours, usageCsv, usageSeries, type UsageBucket } from './usage';

const bucket = (periodStart: string, seconds: number, byUsername: Record<string, number>): UsageBucket => ({
  periodStart,
  period: 'RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY',
  seconds,
  byUsername,
  byExperimentLabel: {},
  byResourcePool: { default: seconds },
});

describe('usage', () => {
  it('makes one slot-hour series per key, with zeros where a period has none', () => {
    const series = usageSeries([bucket('2024-03-01', 7200, { ann: 7200 }), bucket('2024-03-02', 5400, { bob: 1800, ann: 3600 })], 'byUsername');
    expect(series.map((s) => s.label)).toEqual(['Total', 'ann', 'bob']);
    expect(series[0]!.x).toEqual([dayToUnix('2024-03-01'), dayToUnix('2024-03-01') + 86400]);
    expect(series[0]!.y).toEqual([2, 1.5]);
    expect(series[2]!.y).toEqual([0, 0.5]);
    expect(usageSeries([bucket('2024-03-01', 0, {})], 'byWorkspace').map((s) => s.label)).toEqual(['Total']);
  });

  it('picks the 30 days through today and the raw window of a range', () => {
    expect(defaultRange(new Date('2024-03-10T23:59:00Z'))).toEqual({ start: '2024-02-10', end: '2024-03-10' });
    expect(rawWindow('2024-02-28', '2024-02-29')).toEqual({ timestampAfter: '2024-02-28T00:00:00Z', timestampBefore: '2024-03-01T00:00:00Z' });
    expect(slotHours(5400)).toBe(1.5);
    expect([0, 0.004166, 0.25, 1.5, 1234.567].map(formatHours)).toEqual(['0', '0.0042', '0.25', '1.50', '1234.57']);
  });

  it('writes the raw entries as CSV, quoting what needs it', () => {
    const csv = usageCsv([
      { allocationId: 'a.1', kind: 'TRIAL', username: 'ann', workspace: 'R&D, west', resourcePool: 'gpu', experimentId: 3,
        labels: ['nlp', 'say "hi"'], slots: 2, startTime: '2024-03-01T00:00:00Z', endTime: '2024-03-01T01:30:00Z', seconds: 5400 },
      { allocationId: 'b.1', kind: 'COMMAND', username: 'bob', slots: 1, seconds: 60, experimentId: 0, endTime: null },
    ]);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('allocation_id,kind,username,workspace,resource_pool,experiment_id,labels,slots,start_time,end_time,seconds,slot_hours');
    expect(lines[1]).toBe('a.1,TRIAL,ann,"R&D, west",gpu,3,"nlp;say ""hi""",2,2024-03-01T00:00:00Z,2024-03-01T01:30:00Z,5400,3');
    expect(lines[2]).toBe('b.1,COMMAND,bob,,,,,1,,,60,' + String(60 / 3600));
    expect(lines[3]).toBe('');
  });
});
