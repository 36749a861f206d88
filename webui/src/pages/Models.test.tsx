import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { mockFetch, model } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Models from './Models';

describe('Models', () => {
  it('lists the models, newest first, with links to each', async () => {
    const calls = mockFetch((c) =>
      c.url.startsWith('/api/v1/models?')
        ? { body: { models: [
          model(3, { name: 'mnist cnn', description: 'digits', numVersions: 2, labels: ['prod', 'cv'], workspaceId: 2 }),
          model(1, { name: 'old-one', archived: true }),
        ], pagination: { offset: 0, limit: 100, startIndex: 0, endIndex: 2, total: 2 } } }
        : undefined,
    );
    renderAt('/models', '/models', <Models />);
    expect(await screen.findByRole('link', { name: 'mnist cnn' })).toHaveAttribute('href', '/models/mnist%20cnn');
    expect(screen.getByText('2 models')).toBeInTheDocument();
    const rows = screen.getAllByTestId('model-row');
    const cells = within(rows[0]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(0, 5)).toEqual(['mnist cnn', 'digits', '2', 'prodcv', '2']);
    expect(cells[6]).toBe('No');
    expect(within(rows[0]!).getByRole('link', { name: '2' })).toHaveAttribute('href', '/workspaces/2');
    expect(within(rows[1]!).getAllByRole('cell').at(-1)!.textContent).toBe('Yes');
    expect(calls[0]!.url).toBe('/api/v1/models?sortBy=SORT_BY_LAST_UPDATED_TIME&orderBy=ORDER_BY_DESC&offset=0&limit=100');
  });

  it('filters by name on the server', async () => {
    const calls = mockFetch(() => ({ body: { models: [], pagination: { total: 0 } } }));
    renderAt('/models', '/models', <Models />);
    expect(await screen.findByText(/No models\. Create one/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Name'), 'mni');
    await waitFor(() => expect(calls[calls.length - 1]!.url).toContain('name=mni&'));
    expect(await screen.findByText('No models match this name.')).toBeInTheDocument();
  });

  it('shows an API error instead of a blank page', async () => {
    mockFetch(() => ({ status: 403, body: { error: { error: 'permission denied' } } }));
    renderAt('/models', '/models', <Models />);
    expect(await screen.findByRole('alert')).toHaveTextContent('permission denied');
    expect(screen.queryByText(/No models/)).not.toBeInTheDocument();
  });
});
