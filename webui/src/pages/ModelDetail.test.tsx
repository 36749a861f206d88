import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockFetch, model, modelVersion } from '../test/fetchMock';
import { renderAt } from '../test/render';
import ModelDetail from './ModelDetail';

const m = model(3, { name: 'mnist cnn', description: 'digits', numVersions: 2, labels: ['prod'], metadata: { team: 'cv' } });

describe('ModelDetail', () => {
  it('shows the model and links each version to its page, experiment and trial', async () => {
    const calls = mockFetch((c) =>
      c.url.startsWith('/api/v1/models/mnist%20cnn/versions')
        ? { body: { model: m, modelVersions: [
          modelVersion(2, m, { name: 'best', comment: 'lowest loss', labels: ['candidate'] }),
          modelVersion(1, m, { checkpoint: null }),
        ], pagination: { total: 2 } } }
        : undefined,
    );
    renderAt('/models/:name', '/models/mnist%20cnn', <ModelDetail />);
    expect(await screen.findByRole('heading', { name: 'Model: mnist cnn' })).toBeInTheDocument();
    expect(screen.getByText('digits')).toBeInTheDocument();
    expect(screen.getByText('{"team":"cv"}')).toBeInTheDocument();
    expect(calls[0]!.url).toBe('/api/v1/models/mnist%20cnn/versions?orderBy=ORDER_BY_DESC');
    const rows = screen.getAllByTestId('version-row');
    expect(within(rows[0]!).getByRole('link', { name: 'Version 2' })).toHaveAttribute('href', '/models/mnist%20cnn/versions/2');
    expect(within(rows[0]!).getByRole('link', { name: '1' })).toHaveAttribute('href', '/experiments/1');
    expect(within(rows[0]!).getByRole('link', { name: '10' })).toHaveAttribute('href', '/trials/10');
    const cells = within(rows[0]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells[1]).toBe('best');
    expect(cells[2]).toBe('ckpt-2');
    expect(cells.slice(6)).toEqual(['candidate', 'lowest loss']);
    // A version whose checkpoint is gone still lists.
    expect(within(rows[1]!).getAllByRole('cell')[2]).toHaveTextContent('deleted');
  });

  it('says when the model has no versions', async () => {
    mockFetch((c) => (c.url.startsWith('/api/v1/models/mnist%20cnn/versions') ? { body: { model: { ...m, numVersions: 0 }, modelVersions: [], pagination: { total: 0 } } } : undefined));
    renderAt('/models/:name', '/models/mnist%20cnn', <ModelDetail />);
    expect(await screen.findByText(/No versions/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('says when the model does not exist', async () => {
    mockFetch(() => ({ status: 404, body: { error: { error: 'model "nope" not found' } } }));
    renderAt('/models/:name', '/models/nope', <ModelDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('model "nope" not found');
  });
});
