import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockFetch, workspace } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Workspaces from './Workspaces';

describe('Workspaces', () => {
  it('lists the workspaces with their counts, owners and links', async () => {
    const calls = mockFetch((c) =>
      c.url.startsWith('/api/v1/workspaces?')
        ? { body: { workspaces: [workspace(1, { name: 'Uncategorized', immutable: true, numProjects: 1, numExperiments: 4 }),
          workspace(2, { name: 'vision', username: 'alice', numProjects: 3, numExperiments: 12, archived: true, pinned: true })],
          pagination: { offset: 0, limit: 0, startIndex: 0, endIndex: 2, total: 2 } } }
        : undefined,
    );
    renderAt('/workspaces', '/workspaces', <Workspaces />);
    expect(await screen.findByRole('link', { name: 'vision' })).toHaveAttribute('href', '/workspaces/2');
    expect(screen.getByRole('link', { name: 'Uncategorized' })).toHaveAttribute('href', '/workspaces/1');
    expect(screen.getByText('2 workspaces')).toBeInTheDocument();
    const rows = screen.getAllByTestId('workspace-row');
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['visionpinned', '3', '12', 'alice', 'Yes']);
    expect(within(rows[0]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['Uncategorized', '1', '4', 'determined', 'No']);
    expect(calls[0]!.url).toBe('/api/v1/workspaces?sortBy=SORT_BY_NAME&orderBy=ORDER_BY_ASC');
  });

  it('says when there are none', async () => {
    mockFetch(() => ({ body: { workspaces: [], pagination: { total: 0 } } }));
    renderAt('/workspaces', '/workspaces', <Workspaces />);
    expect(await screen.findByText(/No workspaces/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows an API error instead of a blank page', async () => {
    mockFetch(() => ({ status: 500, body: { error: { error: 'database is locked' } } }));
    renderAt('/workspaces', '/workspaces', <Workspaces />);
    expect(await screen.findByRole('alert')).toHaveTextContent('database is locked');
    expect(screen.queryByText(/No workspaces/)).not.toBeInTheDocument();
  });
});
