import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Tasks from './Tasks';

describe('Tasks', () => {
  it('lists running notebooks with a link that opens them', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/notebooks') return { body: { notebooks: [{ id: 'nb1', description: 'Notebook (happy-cat)', state: 'STATE_RUNNING', startTime: '2026-11-26T03:00:00Z', username: 'u', resourcePool: 'aux', serviceAddress: '/proxy/nb1/?token=x' }] } };
      if (c.url.startsWith('/api/v1/')) return { body: {} };
      return undefined;
    });
    renderAt('/tasks', '/tasks', <Tasks />);
    expect(await screen.findByText('Notebook (happy-cat)')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open' })).toHaveAttribute('href', '/proxy/nb1/?token=x');
  });
});
