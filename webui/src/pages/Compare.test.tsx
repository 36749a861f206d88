import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { plots } from '../test/uplotMock';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Compare, { parseIds } from './Compare';

const trial = (id: number, exp: number) => ({ id, experimentId: exp, state: 'STATE_COMPLETED', hparams: { lr: id }, totalBatchesProcessed: 10,
  summaryMetrics: { avg_metrics: { loss: {} } }, startTime: '', endTime: null, restarts: 0, bestValidation: null, latestValidation: null, taskId: '', checkpointCount: 0 });

describe('Compare', () => {
  it('puts the trials of several experiments on one chart', async () => {
    const calls = mockFetch((c) => {
      const m = c.url.match(/^\/api\/v1\/experiments\/(\d+)\/trials/);
      if (m) return { body: { trials: [trial(Number(m[1]) * 10, Number(m[1]))] } };
      if (c.url.startsWith('/api/v1/trials/time-series'))
        return { body: { trials: [10, 20].map((id) => ({ trial: { id }, metrics: [{ group: 'training', type: '', data: [{ batches: 1, values: { loss: 1 }, time: '' }] }] })) } };
      return undefined;
    });
    renderAt('/compare', '/compare?experiments=1,2', <Compare />);
    await waitFor(() => expect(screen.getByRole('img', { name: /2 series/ })).toBeInTheDocument());
    // uPlot is made in an effect, which may run after the commit that waitFor saw.
    await waitFor(() => expect(plots[plots.length - 1]!.series.map((s) => s.label)).toEqual(['Batches', 'Exp 1 · Trial 10', 'Exp 2 · Trial 20']));
    expect(calls.some((c) => c.url.includes('trialIds=10&trialIds=20&metricIds=training.loss'))).toBe(true);
  });

  it('parses id lists', () => {
    expect(parseIds('3, 1,x,3,-2')).toEqual([3, 1]);
    expect(parseIds(null)).toEqual([]);
  });
});
