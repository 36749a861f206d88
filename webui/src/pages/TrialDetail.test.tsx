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
});
