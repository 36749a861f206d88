import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { App } from '../App';
import { AuthProvider } from '../auth';
import { mockFetch } from '../test/fetchMock';

function renderApp(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <AuthProvider>
        <App />
      </AuthProvider>
    </MemoryRouter>,
  );
}

describe('sign in', () => {
  it('sends a signed-out user to the sign-in page and shows a wrong password as a sentence', async () => {
    const calls = mockFetch((c) => {
      if (c.url === '/api/v1/me') return { status: 401, body: { error: { error: 'unauthenticated' } } };
      if (c.url === '/api/v1/auth/login') return { status: 401, body: { error: { error: 'invalid credentials' } } };
      return undefined;
    });
    renderApp('/experiments');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'determined');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The username or password is not correct.');
    expect(calls.find((c) => c.url === '/api/v1/auth/login')?.body).toEqual({ username: 'determined', password: 'wrong' });
  });

  it('signs in, lands where the user was going, and signs out', async () => {
    let signedIn = false;
    mockFetch((c) => {
      if (c.url === '/api/v1/me') return signedIn ? { body: { user: { id: 2, username: 'determined', admin: true, active: true } } } : { status: 401 };
      if (c.url === '/api/v1/auth/login') {
        signedIn = true;
        return { body: { token: 't', user: { id: 2, username: 'determined', admin: true, active: true } } };
      }
      if (c.url === '/api/v1/auth/logout') return { body: {} };
      if (c.url.startsWith('/api/v1/experiments')) return { body: { experiments: [], pagination: { total: 0 } } };
      return undefined;
    });
    renderApp('/experiments');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Username'), 'determined');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Experiments' })).toBeInTheDocument();
    expect(screen.getByText('determined')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(screen.getByRole('heading', { name: 'Sign in to Determined' })).toBeInTheDocument());
  });
});
