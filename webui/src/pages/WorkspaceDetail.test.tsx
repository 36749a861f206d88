import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockFetch, project, workspace } from '../test/fetchMock';
import { renderAt } from '../test/render';
import WorkspaceDetail from './WorkspaceDetail';

const ws = workspace(2, { name: 'vision', numProjects: 2, defaultComputePool: 'gpu', checkpointStorageConfig: { type: 'shared_fs', host_path: '/ckpt' } });

describe('WorkspaceDetail', () => {
  it('shows the settings and links each project to its experiments', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/workspaces/2') return { body: { workspace: ws } };
      if (c.url.startsWith('/api/v1/workspaces/2/projects?'))
        return { body: { projects: [
          project(5, { name: 'detection', key: 'DET', description: 'boxes', numExperiments: 3, numActiveExperiments: 1, lastExperimentStartedAt: '2026-11-26T03:00:00Z' }),
          project(6, { name: 'old', archived: true }),
        ], pagination: { total: 2 } } };
      return undefined;
    });
    renderAt('/workspaces/:id', '/workspaces/2', <WorkspaceDetail />);
    expect(await screen.findByRole('heading', { name: 'Workspace: vision' })).toBeInTheDocument();
    expect(screen.getByText('gpu')).toBeInTheDocument();
    expect(screen.getByText('{"type":"shared_fs","host_path":"/ckpt"}')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'detection' })).toHaveAttribute('href', '/projects/5/experiments');
    const rows = screen.getAllByTestId('project-row');
    const cells = within(rows[0]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 5)).toEqual(['detection', 'DET', 'boxes', '3', '1']);
    expect(cells[5]).not.toBe('–');
    expect(cells[6]).toBe('No');
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['old', 'PRJ6', '–', '0', '0', '–', 'Yes']);
  });

  it('says when the workspace has no projects', async () => {
    mockFetch((c) => {
      if (c.url === '/api/v1/workspaces/2') return { body: { workspace: ws } };
      if (c.url.startsWith('/api/v1/workspaces/2/projects')) return { body: { projects: [], pagination: { total: 0 } } };
      return undefined;
    });
    renderAt('/workspaces/:id', '/workspaces/2', <WorkspaceDetail />);
    expect(await screen.findByText(/No projects in this workspace/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('says when the workspace does not exist', async () => {
    mockFetch(() => ({ status: 404, body: { error: { error: 'workspace 99 not found' } } }));
    renderAt('/workspaces/:id', '/workspaces/99', <WorkspaceDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('workspace 99 not found');
  });

  it('refuses an id that is not a number', async () => {
    const calls = mockFetch(() => undefined);
    renderAt('/workspaces/:id', '/workspaces/abc', <WorkspaceDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('"abc" is not a workspace id.');
    expect(calls).toEqual([]);
  });
});
