import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import '../test/uplotMock';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import TrialDetail from './TrialDetail';

const trial = { id: 5, experimentId: 2, startTime: '2026-11-26T03:00:00Z', endTime: '2026-11-26T03:05:00Z', state: 'STATE_COMPLETED', restarts: 0,
  hparams: { lr: 0.1 }, totalBatchesProcessed: 10, bestValidation: null, latestValidation: null, taskId: 't', checkpointCount: 0,
  summaryMetrics: { avg_metrics: { loss: { last: 1 } } } };
const log = (id: number, message: string, level = 'LOG_LEVEL_INFO') => JSON.stringify({ result: { id: String(id), timestamp: '2026-11-26T03:00:01Z', message, level, stdtype: 'stdout' } });

describe('TrialDetail', () => {
  it('shows the logs and sends filters to the server', async () => {
    const calls = mockFetch((c) => {
      if (c.url === '/api/v1/trials/5') return { body: { trial } };
      if (c.url.startsWith('/api/v1/trials/5/logs')) return { text: [log(1, 'hello from the trial'), log(2, 'bad thing', 'LOG_LEVEL_ERROR')].join('\n') + '\n' };
      return undefined;
    });
    renderAt('/trials/:id/:tab?', '/trials/5/logs', <TrialDetail />);
    expect(await screen.findByText('hello from the trial')).toBeInTheDocument();
    expect(screen.getByText('2 lines')).toBeInTheDocument();
    // A finished trial's logs are read once, without follow.
    expect(calls.find((c) => c.url.startsWith('/api/v1/trials/5/logs'))!.url).not.toContain('follow');
    await userEvent.click(screen.getByLabelText('error'));
    await waitFor(() => expect(calls[calls.length - 1]!.url).toContain('levels=LOG_LEVEL_ERROR'));
  });

  it('charts the reported metrics', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/trials/5') return { body: { trial } };
      if (c.url.startsWith('/api/v1/trials/time-series'))
        return { body: { trials: [{ trial: { id: 5 }, metrics: [{ group: 'training', type: '', data: [{ batches: 1, values: { loss: 2 }, time: '' }, { batches: 2, values: { loss: 1 }, time: '' }] }] }] } };
      return undefined;
    });
    renderAt('/trials/:id/:tab?', '/trials/5', <TrialDetail />);
    expect(await screen.findByRole('img', { name: /loss \(training\) by batches: 1 series, 2 points/ })).toBeInTheDocument();
  });

  it('charts each profiler group over time, a line per agent or GPU', async () => {
    const report = (s: number, group: string, values: Record<string, unknown>) =>
      ({ endTime: `2026-11-26T03:00:${String(s).padStart(2, '0')}Z`, group, metrics: { avg_metrics: { 'agent-0': values } } });
    const calls = mockFetch((c) => {
      if (c.url === '/api/v1/trials/5') return { body: { trial } };
      if (c.url.startsWith('/api/v1/trials/metrics/trial_metrics')) {
        const group = new URL(c.url, 'http://x').searchParams.get('group');
        if (group === 'cpu') return { text: JSON.stringify({ result: { metrics: [report(10, 'cpu', { cpu_util_simple: 50 }), report(20, 'cpu', { cpu_util_simple: 70 })] } }) + '\n' };
        if (group === 'gpu') return { text: JSON.stringify({ result: { metrics: [report(10, 'gpu', { 'GPU-a': { gpu_util: 90, gpu_free_memory: 2 ** 30 } }, ), report(10, 'gpu', { 'GPU-b': { gpu_util: 10, gpu_free_memory: 2 ** 31 } })] } }) + '\n' };
        return { text: JSON.stringify({ result: { metrics: [] } }) + '\n' };
      }
      return undefined;
    });
    renderAt('/trials/:id/:tab?', '/trials/5/profiler', <TrialDetail />);
    expect(await screen.findByRole('img', { name: 'cpu_util_simple (cpu) over time: 1 series, 2 points' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'gpu_util (gpu) over time: 2 series, 1 points' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'gpu_free_memory (gpu) over time: 2 series, 1 points' })).toBeInTheDocument();
    expect(screen.getAllByTestId('profiler-group')).toHaveLength(2);
    expect(screen.queryByText('No profiler data for this trial')).toBeNull();
    const asked = calls.filter((c) => c.url.startsWith('/api/v1/trials/metrics/trial_metrics')).map((c) => c.url);
    expect(asked).toContain('/api/v1/trials/metrics/trial_metrics?trialIds=5&group=cpu');
    expect(asked).toHaveLength(6);
  });

  it('says how to turn the profiler on when a trial has no profiler data', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/trials/5') return { body: { trial } };
      if (c.url.startsWith('/api/v1/trials/metrics/trial_metrics')) return { text: JSON.stringify({ result: { metrics: [] } }) + '\n' };
      return undefined;
    });
    renderAt('/trials/:id/:tab?', '/trials/5/profiler', <TrialDetail />);
    expect(await screen.findByText('No profiler data for this trial')).toBeInTheDocument();
    expect(screen.getByText('profiling: {enabled: true}')).toBeInTheDocument();
    expect(screen.getByText('trainer.fit(..., profiling_enabled=True)')).toBeInTheDocument();
    expect(screen.getByText('core_context.profiler.on()')).toBeInTheDocument();
    expect(screen.queryByRole('img')).toBeNull();
  });
});
