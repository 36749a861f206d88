import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StaticAuthProvider } from '../auth';
import { experiment, mockFetch, project } from '../test/fetchMock';
import { renderAt } from '../test/render';
import { ExperimentList, listQuery, readParams } from './ExperimentList';
import { bestMetricCacheForTest } from './bestMetric';

const me = { id: 2, username: 'determined', admin: true, active: true };

function renderList(path = '/experiments') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <StaticAuthProvider user={me}>
        <ExperimentList />
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

afterEach(() => vi.restoreAllMocks());
beforeEach(() => bestMetricCacheForTest().clear());

describe('listQuery', () => {
  it('maps the URL to the master query', () => {
    const q = listQuery(readParams(new URLSearchParams('state=PAUSED&user=alice&label=l1&name=mn&sort=name&order=asc&page=3&limit=50')));
    expect(q).toEqual({
      name: 'mn', states: ['STATE_PAUSED'], users: ['alice'], labels: ['l1'], archived: 'false',
      sortBy: 'SORT_BY_NAME', orderBy: 'ORDER_BY_ASC', offset: 100, limit: 50,
    });
  });
  it('ignores values it does not know', () => {
    const p = readParams(new URLSearchParams('sort=bogus&limit=7&page=-1&order=sideways'));
    expect(p).toMatchObject({ sort: 'id', limit: 100, page: 1, order: 'desc' });
  });
});

describe('ExperimentList', () => {
  it('shows rows from the server and sorts by a column on the server', async () => {
    const calls = mockFetch((c) =>
      c.url.startsWith('/api/v1/experiments?')
        ? { body: { experiments: [experiment(1), experiment(2, { state: 'STATE_COMPLETED', progress: 1 })], pagination: { total: 2 } } }
        : undefined,
    );
    renderList();
    expect(await screen.findByText('exp-1')).toBeInTheDocument();
    expect(screen.getByText('2 experiments')).toBeInTheDocument();
    expect(screen.getByText('Completed')).toBeInTheDocument();
    expect(calls[0]!.url).toContain('sortBy=SORT_BY_ID&orderBy=ORDER_BY_DESC&offset=0&limit=100');
    await userEvent.click(screen.getByRole('button', { name: /Name/ }));
    await waitFor(() => expect(calls[calls.length - 1]!.url).toContain('sortBy=SORT_BY_NAME&orderBy=ORDER_BY_ASC'));
  });

  it('shows each row\'s best searcher metric', async () => {
    mockFetch((c) => {
      if (c.url.startsWith('/api/v1/experiments?')) return { body: { experiments: [experiment(1), experiment(2, { state: 'STATE_COMPLETED' })], pagination: { total: 2 } } };
      if (c.url === '/api/v1/experiments/2/searcher/best_searcher_validation_metric') return { body: { metric: 0.125 } };
      if (c.url === '/api/v1/experiments/1/searcher/best_searcher_validation_metric') return { status: 404, body: { error: { error: 'experiment 1 has no validation metrics yet' } } };
      return undefined;
    });
    renderList();
    expect(await screen.findByText('loss = 0.125', { exact: false })).toBeInTheDocument();
    expect(screen.getAllByRole('row')[1]).toHaveTextContent(/loss(?! =)/);
  });

  it('filters by state on the server', async () => {
    const calls = mockFetch(() => ({ body: { experiments: [], pagination: { total: 0 } } }));
    renderList();
    await screen.findByText('No experiments match these filters.');
    await userEvent.selectOptions(screen.getByLabelText('State'), 'paused');
    await waitFor(() => expect(calls[calls.length - 1]!.url).toContain('states=STATE_PAUSED'));
  });

  it('kills the selected experiments and reports the ones that failed', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/experiments?')) return { body: { experiments: [experiment(1), experiment(2)], pagination: { total: 2 } } };
      if (c.url === '/api/v1/experiments/1/kill') return { body: {} };
      if (c.url === '/api/v1/experiments/2/kill') return { status: 403, body: { error: { error: 'only the owner or an admin may kill experiment 2' } } };
      return undefined;
    });
    renderList();
    await screen.findByText('exp-1');
    await userEvent.click(screen.getByLabelText('Select all on this page'));
    await userEvent.click(within(screen.getByRole('toolbar')).getByRole('button', { name: 'Kill' }));
    expect(await screen.findByText('Experiment 2: only the owner or an admin may kill experiment 2')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url).sort()).toEqual(['/api/v1/experiments/1/kill', '/api/v1/experiments/2/kill']);
  });

  it('shows an API error instead of a blank page', async () => {
    mockFetch(() => ({ status: 500, body: { error: { error: 'database is locked' } } }));
    renderList();
    expect(await screen.findByRole('alert')).toHaveTextContent('database is locked');
  });

  it('lists a project\'s experiments under its name, with a link to its workspace', async () => {
    const calls = mockFetch((c) => {
      if (c.url === '/api/v1/projects/5') return { body: { project: project(5, { name: 'detection', workspaceId: 2, workspaceName: 'vision', description: 'boxes' }) } };
      if (c.url.startsWith('/api/v1/experiments?'))
        return { body: { experiments: [experiment(7, { projectId: 5, projectName: 'detection', workspaceId: 2, workspaceName: 'vision' })], pagination: { total: 1 } } };
      return undefined;
    });
    renderAt('/projects/:projectId/experiments', '/projects/5/experiments', <ExperimentList />, me);
    expect(await screen.findByRole('heading', { name: 'Project: detection' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'vision' })).toHaveAttribute('href', '/workspaces/2');
    expect(screen.getByText('boxes')).toBeInTheDocument();
    expect(await screen.findByText('exp-7')).toBeInTheDocument();
    expect(calls.find((c) => c.url.startsWith('/api/v1/experiments?'))!.url).toMatch(/^\/api\/v1\/experiments\?projectId=5&/);
  });

  it('says when a project has no experiments, and when the project is missing', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/projects/6') return { status: 404, body: { error: { error: 'project 6 not found' } } };
      if (c.url.startsWith('/api/v1/experiments?')) return { body: { experiments: [], pagination: { total: 0 } } };
      return undefined;
    });
    renderAt('/projects/:projectId/experiments', '/projects/6/experiments', <ExperimentList />, me);
    expect(await screen.findByText('No experiments in this project match these filters.')).toBeInTheDocument();
    expect(await screen.findByRole('alert')).toHaveTextContent('project 6 not found');
    expect(screen.getByRole('heading', { name: 'Project 6' })).toBeInTheDocument();
  });
});
