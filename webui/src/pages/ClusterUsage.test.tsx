import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { plots } from '../test/uplotMock';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import ClusterUsage from './ClusterUsage';

afterEach(() => vi.restoreAllMocks());

const day = (periodStart: string, seconds: number) => ({
  periodStart,
  period: 'RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY',
  seconds,
  byUsername: { ann: seconds },
  byExperimentLabel: {},
  byResourcePool: { default: seconds },
  byWorkspace: { Uncategorized: seconds },
});

describe('ClusterUsage', () => {
  it('charts slot-hours by user, workspace, label and pool, and asks again for another period', async () => {
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/resources/allocation/aggregated'))
        return { body: { resourceEntries: [day('2024-03-01', 7200), day('2024-03-02', 3600)] } };
      return undefined;
    });
    renderAt('/clusters', '/clusters', <ClusterUsage />);
    expect(await screen.findByText('3.00 slot-hours in total (UTC days)')).toBeInTheDocument();
    for (const name of ['user', 'workspace', 'experiment label', 'resource pool'])
      expect(screen.getByRole('img', { name: new RegExp(`^Slot-hours by ${name}:`) })).toBeInTheDocument();
    await waitFor(() => expect(plots.some((p) => p.series.map((s) => s.label).join() === 'Date,Total,ann')).toBe(true));
    expect(calls[0]!.url).toMatch(/startDate=\d{4}-\d\d-\d\d&endDate=\d{4}-\d\d-\d\d&period=RESOURCE_ALLOCATION_AGGREGATION_PERIOD_DAILY/);
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'Monthly');
    await waitFor(() => expect(calls.some((c) => c.url.includes('period=RESOURCE_ALLOCATION_AGGREGATION_PERIOD_MONTHLY'))).toBe(true));
  });

  it('downloads the raw allocations of the range as CSV', async () => {
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/resources/allocation/aggregated')) return { body: { resourceEntries: [] } };
      if (c.url.startsWith('/api/v1/resources/allocation/raw'))
        return { body: { resourceEntries: [{ allocationId: 'a.1', kind: 'COMMAND', username: 'ann', slots: 2, seconds: 90 }] } };
      return undefined;
    });
    const blobs: Blob[] = [];
    URL.createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return 'blob:usage';
    });
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderAt('/clusters', '/clusters', <ClusterUsage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    const raw = calls.find((c) => c.url.startsWith('/api/v1/resources/allocation/raw'))!;
    expect(raw.url).toMatch(/timestampAfter=\d{4}-\d\d-\d\dT00%3A00%3A00Z&timestampBefore=/);
    // jsdom's Blob has no text(): read it as a browser without one would.
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(blobs[0]!);
    });
    expect(text.split('\r\n')[1]).toBe('a.1,COMMAND,ann,,,,,2,,,90,0.05');
  });

  it('shows the master\'s error', async () => {
    mockFetch((c) => {
      if (c.url.startsWith('/api/v1/resources/allocation/aggregated'))
        return { status: 400, body: { error: { error: 'endDate: must not be before startDate' } } };
      return undefined;
    });
    renderAt('/clusters', '/clusters', <ClusterUsage />);
    expect(await screen.findByText(/endDate: must not be before startDate/)).toBeInTheDocument();
  });
});
