import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { plots } from '../test/uplotMock';
import { experiment, mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import ExperimentDetail, { bestTrial, spreadTies } from './ExperimentDetail';
import type { Trial } from '../types';

const trial = (id: number, loss: number) => ({
  id, experimentId: 1, startTime: '2026-11-26T03:00:00Z', endTime: null, state: 'STATE_RUNNING', restarts: 0,
  hparams: { lr: id / 10 }, totalBatchesProcessed: 100, bestValidation: { metrics: { avgMetrics: { loss } } }, latestValidation: null,
  taskId: `t${id}`, checkpointCount: 0, summaryMetrics: { avg_metrics: { loss: { last: 1 } }, validation_metrics: { loss: { last: loss } } },
});

function routes(calls: { url: string }[] = []) {
  return mockFetch((c) => {
    calls.push(c);
    if (c.url === '/api/v1/experiments/1') return { body: { experiment: experiment(1, { config: null }), config: { searcher: { name: 'single', metric: 'loss' }, name: 'exp-1' } } };
    if (c.url.startsWith('/api/v1/experiments/1/trials')) return { body: { trials: [trial(10, 0.5), trial(11, 0.25)] } };
    if (c.url.startsWith('/api/v1/trials/time-series')) {
      const data = [1, 2, 3].map((b) => ({ batches: b * 100, values: { loss: 1 / b }, time: '' }));
      return { body: { trials: [10, 11].map((id) => ({ trial: { id }, metrics: [{ group: 'validation', type: 'METRIC_TYPE_VALIDATION', data }] })) } };
    }
    if (c.url === '/api/v1/experiments/1/kill') return { body: {} };
    return undefined;
  });
}

afterEach(() => vi.restoreAllMocks());

describe('ExperimentDetail', () => {
  it('draws every trial\'s learning curve of the searcher metric and names the best trial', async () => {
    const calls = routes();
    renderAt('/experiments/:id/:tab?', '/experiments/1', <ExperimentDetail />);
    expect(await screen.findByRole('heading', { name: 'Experiment 1: exp-1' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('img', { name: /loss \(validation\) by batches: 2 series, 3 points/ })).toBeInTheDocument());
    // uPlot is made in an effect, which may run after the commit that waitFor saw.
    await waitFor(() => expect(plots[plots.length - 1]!.series.map((s) => s.label)).toEqual(['Batches', 'Trial 10', 'Trial 11']));
    expect(calls.find((c) => c.url.startsWith('/api/v1/trials/time-series'))!.url).toContain('trialIds=10&trialIds=11&metricIds=validation.loss');
    expect(screen.getByRole('link', { name: 'Trial 11' })).toHaveAttribute('href', '/trials/11');
  });

  it('kills the experiment after asking', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const calls = routes();
    renderAt('/experiments/:id/:tab?', '/experiments/1', <ExperimentDetail />);
    await userEvent.click(await screen.findByRole('button', { name: 'Kill' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/v1/experiments/1/kill')).toBe(true));
  });

  it('shows the config as YAML', async () => {
    routes();
    renderAt('/experiments/:id/:tab?', '/experiments/1/config', <ExperimentDetail />);
    await waitFor(() => expect(screen.getByLabelText('Experiment config as YAML').textContent).toContain('metric: loss'));
  });

  it('says when the experiment does not exist', async () => {
    mockFetch(() => ({ status: 404, body: { error: { error: 'experiment 99 not found' } } }));
    renderAt('/experiments/:id/:tab?', '/experiments/99', <ExperimentDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('experiment 99 not found');
  });
});

describe('bestTrial', () => {
  it('follows smaller_is_better', () => {
    const ts = [trial(1, 0.5), trial(2, 0.2), trial(3, 0.9)] as unknown as Trial[];
    expect(bestTrial(ts, 'loss', true)!.id).toBe(2);
    expect(bestTrial(ts, 'loss', false)!.id).toBe(3);
    expect(bestTrial(ts, 'acc', true)).toBeUndefined();
  });
});

describe('spreadTies', () => {
  it('keeps every trial of a shared hyperparameter value as its own point', () => {
    const out = spreadTies([[2, 0.3], [1, 0.5], [2, 0.1], [2, 0.2]]);
    expect(out.map((p) => p[1])).toEqual([0.5, 0.3, 0.1, 0.2]);
    expect(new Set(out.map((p) => p[0])).size).toBe(4);
    expect(out.every(([x], i) => i === 0 || x > out[i - 1]![0])).toBe(true);
    expect(out[3]![0]).toBeCloseTo(2, 6);
  });
});
