import { vi } from 'vitest';

export interface MockCall {
  method: string;
  url: string;
  body: unknown;
}

type Route = (call: MockCall) => { status?: number; body?: unknown; text?: string } | undefined;

// Replaces fetch with `route`, which answers each call (undefined: a 404). Returns the calls seen.
export function mockFetch(route: Route): MockCall[] {
  const calls: MockCall[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const call = {
        method: init?.method ?? 'GET',
        url: String(input),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      };
      calls.push(call);
      const r = route(call) ?? { status: 404, body: { error: { error: 'not found' } } };
      const text = r.text ?? JSON.stringify(r.body ?? {});
      return new Response(text, { status: r.status ?? 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return calls;
}

export function experiment(id: number, over: Record<string, unknown> = {}) {
  return {
    id,
    name: `exp-${id}`,
    description: '',
    labels: [],
    startTime: '2026-11-26T03:00:00Z',
    endTime: null,
    state: 'STATE_ACTIVE',
    archived: false,
    numTrials: 1,
    trialIds: [id * 10],
    username: 'determined',
    userId: 2,
    resourcePool: 'default',
    searcherType: 'single',
    searcherMetric: 'loss',
    progress: 0.5,
    jobId: `job-${id}`,
    config: null,
    ...over,
  };
}
