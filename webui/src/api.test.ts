import { describe, expect, it } from 'vitest';
import { errorMessage, parseLines, request, withQuery, ApiError } from './api';
import { mockFetch } from './test/fetchMock';

describe('errorMessage', () => {
  it('reads the master error shapes', () => {
    expect(errorMessage(400, { error: { code: 3, reason: 'Bad Request', error: 'limit must be >= 0' } })).toBe('limit must be >= 0');
    expect(errorMessage(500, { error: { message: 'disk full' } })).toBe('disk full');
    expect(errorMessage(404, { message: 'experiment 9 not found' })).toBe('experiment 9 not found');
  });
  it('falls back to a sentence about the status', () => {
    expect(errorMessage(503, null)).toMatch(/internal error/);
    expect(errorMessage(403, 'x')).toMatch(/permission/);
    expect(errorMessage(0, null)).toMatch(/could not be reached/);
  });
});

describe('withQuery', () => {
  it('repeats arrays and drops empty values', () => {
    expect(withQuery('/a', { states: ['STATE_ACTIVE', 'STATE_PAUSED'], name: '', limit: 5, x: undefined })).toBe(
      '/a?states=STATE_ACTIVE&states=STATE_PAUSED&limit=5',
    );
  });
});

describe('parseLines', () => {
  it('collects results and stops at an error line', () => {
    const text = '{"result":{"id":"1"}}\n{"result":{"id":"2"}}\n{"error":{"message":"gone"}}\n';
    expect(parseLines<{ id: string }>(text)).toEqual({ items: [{ id: '1' }, { id: '2' }], error: 'gone' });
  });
});

describe('request', () => {
  it('throws an ApiError with the server message', async () => {
    mockFetch(() => ({ status: 400, body: { error: { error: 'sortBy: unknown sort key "X"' } } }));
    await expect(request('/api/v1/experiments')).rejects.toEqual(new ApiError('sortBy: unknown sort key "X"', 400));
  });
});

describe('streamResults', () => {
  it('delivers results as chunks arrive, lines split anywhere', async () => {
    const chunks = ['{"result":{"id":"1"}}\n{"res', 'ult":{"id":"2"}}\n', '{"result":{"id":"3"}}'];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
        c.close();
      },
    });
    const { vi } = await import('vitest');
    vi.stubGlobal('fetch', vi.fn(async () => new Response(body, { status: 200 })));
    const got: string[][] = [];
    const { streamResults } = await import('./api');
    await streamResults<{ id: string }>('/api/v1/trials/1/logs', { follow: 'true' }, (items) => got.push(items.map((i) => i.id)), new AbortController().signal);
    expect(got).toEqual([['1'], ['2'], ['3']]);
  });
});

describe('prefetch', () => {
  it('hands a good response to the first reader only, and drops a failed one', async () => {
    const { prefetch, takePrefetched } = await import('./api');
    let status = 401;
    mockFetch(() => ({ status, body: status === 200 ? { n: 1 } : { error: { error: 'unauthenticated' } } }));
    prefetch('/api/v1/experiments', { limit: 1 });
    await new Promise((r) => setTimeout(r, 10));
    expect(takePrefetched('/api/v1/experiments', { limit: 1 })).toBeUndefined();
    status = 200;
    prefetch('/api/v1/experiments', { limit: 2 });
    await expect(takePrefetched('/api/v1/experiments', { limit: 2 })).resolves.toEqual({ n: 1 });
    expect(takePrefetched('/api/v1/experiments', { limit: 2 })).toBeUndefined();
  });
});

describe('401', () => {
  it('asks the person to sign in again instead of repeating "token missing"', async () => {
    mockFetch(() => ({ status: 401, body: { error: { error: 'token missing' } } }));
    await expect(request('/api/v1/experiments')).rejects.toThrow('Your session has ended. Sign in again.');
  });
});
