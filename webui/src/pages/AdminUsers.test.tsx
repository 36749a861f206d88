import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { admin, renderAt } from '../test/render';
import AdminUsers from './AdminUsers';

describe('AdminUsers', () => {
  it('creates and deactivates users', async () => {
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/users?')) return { body: { users: [admin, { id: 3, username: 'bob', admin: false, active: true }] } };
      if (c.method !== 'GET') return { body: {} };
      return undefined;
    });
    renderAt('/admin/users', '/admin/users', <AdminUsers />);
    await screen.findByText('bob');
    const [own, bobs] = screen.getAllByRole('button', { name: 'Deactivate' });
    expect(own).toBeDisabled(); // an admin cannot lock themselves out
    await userEvent.click(bobs!);
    await userEvent.type(screen.getByLabelText('New username'), 'carol');
    await userEvent.click(screen.getByRole('button', { name: 'Create user' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ user: { username: 'carol', admin: false, active: true }, password: '', isHashed: false }));
    expect(calls.find((c) => c.method === 'PATCH')).toEqual({ method: 'PATCH', url: '/api/v1/users/3', body: { active: false } });
  });

  it('is refused to non-admins', () => {
    renderAt('/admin/users', '/admin/users', <AdminUsers />, { ...admin, admin: false });
    expect(screen.getByRole('alert')).toHaveTextContent('Only admins can manage users.');
  });
});
