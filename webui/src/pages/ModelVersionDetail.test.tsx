import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { checkpoint, mockFetch, model, modelVersion } from '../test/fetchMock';
import { renderAt } from '../test/render';
import ModelVersionDetail from './ModelVersionDetail';

const m = model(3, { name: 'mnist cnn', numVersions: 1 });
const PATTERN = '/models/:name/versions/:version';

describe('ModelVersionDetail', () => {
  it('shows the version, its checkpoint and the checkpoint\'s validation metrics', async () => {
    const calls = mockFetch((c) =>
      c.url === '/api/v1/models/mnist%20cnn/versions/1'
        ? { body: { modelVersion: modelVersion(1, m, { name: 'first', comment: 'baseline', labels: ['prod'] }) } }
        : undefined,
    );
    renderAt(PATTERN, '/models/mnist%20cnn/versions/1', <ModelVersionDetail />);
    expect(await screen.findByRole('heading', { name: 'mnist cnn version 1' })).toBeInTheDocument();
    expect(calls).toHaveLength(1);
    expect(screen.getByRole('link', { name: 'model mnist cnn' })).toHaveAttribute('href', '/models/mnist%20cnn');
    expect(screen.getByText('baseline')).toBeInTheDocument();
    expect(screen.getByText('ckpt-1')).toBeInTheDocument();
    expect(screen.getByText('Completed')).toBeInTheDocument();
    expect(screen.getByText('200')).toBeInTheDocument(); // steps
    expect(screen.getByText('2.0 KB')).toBeInTheDocument(); // 7 + 2041 bytes
    expect(screen.getByRole('link', { name: 'Experiment 1' })).toHaveAttribute('href', '/experiments/1');
    expect(screen.getByRole('link', { name: 'Trial 10' })).toHaveAttribute('href', '/trials/10');
    const metrics = within(screen.getByRole('table', { name: 'Validation metrics' })).getAllByRole('row').slice(1);
    expect(metrics.map((r) => within(r).getAllByRole('cell').map((c) => c.textContent))).toEqual([['accuracy', '0.9'], ['loss', '0.05']]);
  });

  it('says when the checkpoint has no validation metrics', async () => {
    const ckpt = checkpoint('ckpt-9');
    const bare = { ...ckpt, training: { ...ckpt.training, validationMetrics: null } };
    mockFetch(() => ({ body: { modelVersion: modelVersion(1, m, { checkpoint: bare }) } }));
    renderAt(PATTERN, '/models/mnist%20cnn/versions/1', <ModelVersionDetail />);
    expect(await screen.findByText(/reported no validation metrics/)).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('says when the checkpoint is gone', async () => {
    mockFetch(() => ({ body: { modelVersion: modelVersion(1, m, { checkpoint: null }) } }));
    renderAt(PATTERN, '/models/mnist%20cnn/versions/1', <ModelVersionDetail />);
    expect(await screen.findByText(/no longer stored/)).toBeInTheDocument();
  });

  it('says when the version does not exist', async () => {
    mockFetch(() => ({ status: 404, body: { error: { error: 'model "mnist cnn" has no version 7' } } }));
    renderAt(PATTERN, '/models/mnist%20cnn/versions/7', <ModelVersionDetail />);
    expect(await screen.findByRole('alert')).toHaveTextContent('model "mnist cnn" has no version 7');
  });
});
