import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { renderAt } from '../test/render';
import Tokens, { tokenState } from './Tokens';

const token = (id: number, over: Record<string, unknown> = {}) => ({
  id, userId: 1, createdAt: '2026-11-20T10:00:00Z', expiry: '2099-01-01T00:00:00Z', tokenType: 'TOKEN_TYPE_ACCESS_TOKEN',
  revoked: false, description: `token ${id}`, ...over,
});

afterEach(() => vi.restoreAllMocks());

describe('Tokens', () => {
  it('tells revoked, expired and active tokens apart', () => {
    const now = Date.parse('2026-11-28T00:00:00Z');
    expect(tokenState(token(1), now)).toBe('active');
    expect(tokenState(token(1, { expiry: '2026-11-27T00:00:00Z' }), now)).toBe('expired');
    expect(tokenState(token(1, { revoked: true }), now)).toBe('revoked');
  });

  it("lists the user's own tokens, revoked ones too, and offers actions on active ones only", async () => {
    const calls = mockFetch((c) => (c.url.startsWith('/api/v1/tokens?')
      ? { body: { tokenInfo: [token(5), token(4, { revoked: true }), token(3, { expiry: '2020-01-01T00:00:00Z', description: '' })] } }
      : undefined));
    renderAt('/tokens', '/tokens', <Tokens />);
    const rows = await screen.findAllByTestId('token-row');
    expect(rows.map((r) => within(r).getAllByRole('cell')[4]!.textContent)).toEqual(['active', 'revoked', 'expired']);
    expect(within(rows[0]!).getByRole('button', { name: 'Revoke token 5' })).toBeInTheDocument();
    expect(within(rows[1]!).queryByRole('button')).not.toBeInTheDocument();
    const q = new URL(calls[0]!.url, 'http://x').searchParams;
    expect([q.get('username'), q.get('showInactive')]).toEqual(['admin', 'true']);
  });

  it('creates a token and shows it once with a copy button', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/tokens?')) return { body: { tokenInfo: [] } };
      if (c.url === '/api/v1/tokens' && c.method === 'POST') return { body: { token: 'v2.secret-token', tokenId: 9 } };
      return undefined;
    });
    renderAt('/tokens', '/tokens', <Tokens />);
    expect(await screen.findByText(/You have no access tokens yet/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Description'), 'ci job');
    await userEvent.selectOptions(screen.getByLabelText('Lifespan'), '7 days');
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByTestId('new-token')).toHaveTextContent('v2.secret-token');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ userId: 1, lifespan: '168h', description: 'ci job' });
    await userEvent.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('v2.secret-token');
    expect(await screen.findByText('Copied to the clipboard.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByTestId('new-token')).not.toBeInTheDocument();
  });

  it('revokes a token and edits a description', async () => {
    vi.spyOn(window, 'confirm').mockReturnValue(true);
    vi.spyOn(window, 'prompt').mockReturnValue('nightly');
    const calls = mockFetch((c) => {
      if (c.url.startsWith('/api/v1/tokens?')) return { body: { tokenInfo: [token(5)] } };
      if (c.method === 'PATCH') return { body: { tokenInfo: token(5) } };
      return undefined;
    });
    renderAt('/tokens', '/tokens', <Tokens />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit description of token 5' }));
    await userEvent.click(screen.getByRole('button', { name: 'Revoke token 5' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PATCH')).toEqual([
      { method: 'PATCH', url: '/api/v1/tokens/5', body: { description: 'nightly', setRevoked: false } },
      { method: 'PATCH', url: '/api/v1/tokens/5', body: { setRevoked: true } },
    ]));
    expect(await screen.findByText('Token 5 revoked.')).toBeInTheDocument();
  });

  it("shows the master's refusal", async () => {
    mockFetch((c) => {
      if (c.url.startsWith('/api/v1/tokens?')) return { body: { tokenInfo: [] } };
      if (c.method === 'POST') return { status: 400, body: { error: { error: 'lifespan: 2160h is longer than security.token.max_lifespan_days allows (30 days, 720h)' } } };
      return undefined;
    });
    renderAt('/tokens', '/tokens', <Tokens />);
    await screen.findByText(/no access tokens yet/);
    await userEvent.selectOptions(screen.getByLabelText('Lifespan'), '90 days');
    await userEvent.click(screen.getByRole('button', { name: 'Create token' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('lifespan: 2160h is longer than');
    expect(screen.queryByTestId('new-token')).not.toBeInTheDocument();
  });
});
