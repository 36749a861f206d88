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

// A workspace, project, model and model version as the master's JSON has them.
export function workspace(id: number, over: Record<string, unknown> = {}) {
  return {
    id,
    name: `ws-${id}`,
    archived: false,
    username: 'determined',
    immutable: false,
    numProjects: 1,
    pinned: false,
    userId: 2,
    numExperiments: 3,
    state: 'WORKSPACE_STATE_UNSPECIFIED',
    errorMessage: '',
    defaultComputePool: '',
    defaultAuxPool: '',
    ...over,
  };
}

export function project(id: number, over: Record<string, unknown> = {}) {
  return {
    id,
    name: `proj-${id}`,
    workspaceId: 2,
    workspaceName: 'ws-2',
    description: '',
    notes: [],
    numExperiments: 0,
    numActiveExperiments: 0,
    numRuns: 0,
    archived: false,
    username: 'determined',
    immutable: false,
    userId: 2,
    state: 'WORKSPACE_STATE_UNSPECIFIED',
    errorMessage: '',
    key: `PRJ${id}`,
    ...over,
  };
}

export function model(id: number, over: Record<string, unknown> = {}) {
  return {
    id,
    name: `model-${id}`,
    description: '',
    metadata: {},
    creationTime: '2026-11-26T03:00:00Z',
    lastUpdatedTime: '2026-11-26T04:00:00Z',
    numVersions: 0,
    labels: [],
    username: 'determined',
    userId: 2,
    workspaceId: 1,
    archived: false,
    notes: '',
    ...over,
  };
}

export function checkpoint(uuid: string, over: Record<string, unknown> = {}) {
  return {
    taskId: 'trial-1-task',
    allocationId: 'trial-1-task.0',
    uuid,
    reportTime: '2026-11-26T03:30:00Z',
    resources: { state: '7', 'model.bin': '2041' },
    metadata: { steps_completed: 200 },
    state: 'STATE_COMPLETED',
    training: {
      trialId: 10,
      experimentId: 1,
      experimentConfig: null,
      hparams: {},
      trainingMetrics: null,
      validationMetrics: { avgMetrics: { loss: 0.05, accuracy: 0.9 }, batchMetrics: [] },
      searcherMetric: 0.05,
    },
    storageId: 1,
    ...over,
  };
}

export function modelVersion(version: number, m: ReturnType<typeof model>, over: Record<string, unknown> = {}) {
  return {
    id: version + 100,
    model: m,
    checkpoint: checkpoint(`ckpt-${version}`),
    version,
    creationTime: '2026-11-26T05:00:00Z',
    lastUpdatedTime: '2026-11-26T05:00:00Z',
    name: '',
    metadata: {},
    comment: '',
    username: 'determined',
    userId: 2,
    labels: [],
    notes: '',
    ...over,
  };
}
