import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import AdminTemplates from './AdminTemplates';

afterEach(() => vi.restoreAllMocks());

describe('AdminTemplates', () => {
  it('shows a template as YAML and deletes it', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/templates?')) return { body: { templates: [{ name: 'gpu', config: { resources: { slots_per_trial: 2 } } }] } };
      if (c.method === 'DELETE') return { body: {} };
      return undefined;
    });
    renderAt('/templates', '/templates', <AdminTemplates />);
    await userEvent.click(await screen.findByRole('button', { name: 'Show config' }));
    await waitFor(() => expect(screen.getByText(/slots_per_trial: 2/)).toBeInTheDocument());
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/v1/templates/gpu')).toBe(true));
  });
});
