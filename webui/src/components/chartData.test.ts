import { describe, expect, it } from 'vitest';
import { alignSeries, mergeSeries, nextStartBatches, pointsOf } from './chartData';
import type { TrialSeries } from '../types';

const trial = (id: number) => ({ id }) as TrialSeries['trial'];
const pt = (batches: number, loss: number) => ({ batches, values: { loss }, time: '' });

describe('chart data', () => {
  it('aligns series on the union of their x values', () => {
    expect(alignSeries([{ label: 'a', x: [1, 3], y: [10, 30] }, { label: 'b', x: [2, 3], y: [20, 31] }])).toEqual([
      [1, 2, 3],
      [10, null, 30],
      [null, 20, 31],
    ]);
  });
  it('keeps only numeric values of the metric', () => {
    expect(pointsOf([pt(1, 0.5), { batches: 2, values: { loss: 'NaN' }, time: '' }, { batches: 3, values: { acc: 1 }, time: '' }], 'loss')).toEqual({ x: [1], y: [0.5] });
  });
  it('appends only newer points when following', () => {
    const old: TrialSeries[] = [{ trial: trial(1), metrics: [{ group: 'training', type: '', data: [pt(1, 1), pt(2, 2)] }] }];
    const fresh: TrialSeries[] = [
      { trial: trial(1), metrics: [{ group: 'training', type: '', data: [pt(2, 2), pt(3, 3)] }] },
      { trial: trial(2), metrics: [{ group: 'training', type: '', data: [pt(1, 5)] }] },
    ];
    const merged = mergeSeries(old, fresh);
    expect(merged.map((t) => t.trial.id)).toEqual([1, 2]);
    expect(merged[0]!.metrics[0]!.data.map((p) => p.batches)).toEqual([1, 2, 3]);
    expect(nextStartBatches(merged, [1, 2])).toBe(2);
    expect(nextStartBatches(merged, [1, 2, 3])).toBe(0);
  });
});
