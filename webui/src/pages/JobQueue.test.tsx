import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import JobQueue from './JobQueue';

const job = (n: number, state: string) => ({ jobId: `job-${n}`, type: 'TYPE_EXPERIMENT', name: `exp-${n}`, entityId: String(n), summary: { state, jobsAhead: n - 1 },
  submissionTime: '2026-11-26T03:00:00Z', username: 'determined', resourcePool: 'default', priority: 42, weight: 1, requestedSlots: 1, allocatedSlots: state === 'STATE_SCHEDULED' ? 1 : 0 });

function routes() {
  return mockFetch((c) => {
    if (c.url === '/api/v1/resource-pools') return { body: { resourcePools: [{ name: 'default', defaultComputePool: true, schedulerType: 'SCHEDULER_TYPE_PRIORITY' }] } };
    if (c.url.startsWith('/api/v1/job-queues-v2')) return { body: { jobs: [job(1, 'STATE_SCHEDULED'), job(2, 'STATE_QUEUED'), job(3, 'STATE_QUEUED')].map((full) => ({ full })) } };
    if (c.url === '/api/v1/job-queues' && c.method === 'POST') return { body: {} };
    return undefined;
  });
}

describe('JobQueue', () => {
  it('shows a job of another workspace only where it stands', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/resource-pools') return { body: { resourcePools: [{ name: 'default', defaultComputePool: true, schedulerType: 'SCHEDULER_TYPE_PRIORITY' }] } };
      if (c.url.startsWith('/api/v1/job-queues-v2')) {
        const { name: _n, entityId: _e, submissionTime: _s, username: _u, ...limited } = job(2, 'STATE_QUEUED');
        return { body: { jobs: [{ full: job(1, 'STATE_SCHEDULED') }, { limited: { ...limited, workspaceId: 3 } }] } };
      }
      return undefined;
    });
    renderAt('/jobs', '/jobs', <JobQueue />);
    expect(await screen.findByText('A job of another workspace')).toBeInTheDocument();
    expect(screen.getAllByTestId('job-row')).toHaveLength(2);
    expect(screen.getAllByRole('button', { name: /^Move/ })).toHaveLength(2);  // only the full job's
  });


  it('moves a job ahead of the one before it', async () => {
    const calls = routes();
    renderAt('/jobs', '/jobs', <JobQueue />);
    await userEvent.click(await screen.findByRole('button', { name: 'Move exp-3 up' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ updates: [{ jobId: 'job-3', aheadOf: 'job-2' }] }));
    expect(screen.getByRole('button', { name: 'Move exp-1 up' })).toBeDisabled();
  });

  it('edits a priority inline', async () => {
    const calls = routes();
    renderAt('/jobs', '/jobs', <JobQueue />);
    await userEvent.click(await screen.findByRole('button', { name: 'Priority of exp-2: 42, edit' }));
    const input = screen.getByLabelText('Priority of exp-2');
    await userEvent.clear(input);
    await userEvent.type(input, '10{Enter}');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ updates: [{ jobId: 'job-2', priority: 10 }] }));
  });
});
