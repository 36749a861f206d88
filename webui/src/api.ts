// The master's public REST API (/api/v1, upstream's JSON shapes). Sessions ride on the `auth`
// cookie that POST /api/v1/auth/login sets (HttpOnly: the page never holds the token), the same
// cookie the master's proxy accepts for notebooks and TensorBoards.

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();
// Called when any request answers 401, so the app can show the sign-in page.
export function onUnauthorized(fn: UnauthorizedListener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

// A sentence a person understands from an error body: the master's {"error":{"error"|"reason"}},
// a stream's {"error":{"message"}}, or the HTTP status.
export function errorMessage(status: number, body: unknown): string {
  const fallback =
    status === 0
      ? 'The master could not be reached. Check that it is running and your network connection.'
      : status === 401
        ? 'Your session has ended. Sign in again.'
        : status === 403
          ? 'You do not have permission to do this.'
          : status === 404
            ? 'Not found.'
            : status >= 500
              ? `The master had an internal error (HTTP ${status}).`
              : `The request failed (HTTP ${status}).`;
  if (body && typeof body === 'object' && 'error' in body) {
    const e = (body as { error: unknown }).error;
    if (typeof e === 'string' && e) return e;
    if (e && typeof e === 'object') {
      const o = e as Record<string, unknown>;
      for (const k of ['error', 'message', 'reason']) {
        const v = o[k];
        if (typeof v === 'string' && v) return v;
      }
    }
  }
  if (body && typeof body === 'object' && 'message' in body) {
    const m = (body as { message: unknown }).message;
    if (typeof m === 'string' && m) return m;
  }
  return fallback;
}

export function describeError(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof DOMException && e.name === 'AbortError') return '';
  if (e instanceof TypeError) return errorMessage(0, null);
  if (e instanceof Error) return e.message;
  return String(e);
}

export type Query = Record<string, string | number | boolean | undefined | null | (string | number)[]>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) v.forEach((x) => params.append(k, String(x)));
    else params.append(k, String(v));
  }
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

interface RequestOptions {
  method?: string;
  body?: unknown;
  query?: Query;
  signal?: AbortSignal;
}

async function send(path: string, opts: RequestOptions): Promise<Response> {
  const init: RequestInit = {
    method: opts.method ?? 'GET',
    credentials: 'same-origin',
    signal: opts.signal,
    headers: { Accept: 'application/json' },
  };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  const resp = await fetch(withQuery(path, opts.query), init);
  if (!resp.ok) {
    let body: unknown = null;
    try {
      body = await resp.json();
    } catch {
      body = null;
    }
    if (resp.status === 401 && !path.endsWith('/auth/login')) {
      unauthorizedListeners.forEach((fn) => fn());
      // The master says "token missing" or "invalid credentials"; a person needs to sign in.
      throw new ApiError(errorMessage(401, null), 401);
    }
    throw new ApiError(errorMessage(resp.status, body), resp.status);
  }
  return resp;
}

export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const resp = await send(path, opts);
  const text = await resp.text();
  return (text ? JSON.parse(text) : {}) as T;
}

// An NDJSON stream of {"result": X} lines (log follow); `onItems` gets each chunk's results.
// Resolves when the server ends the stream; rejects on an error line or a failed request.
export async function streamResults<T>(
  path: string,
  query: Query,
  onItems: (items: T[]) => void,
  signal: AbortSignal,
): Promise<void> {
  const resp = await send(path, { query, signal });
  const reader = resp.body?.getReader();
  if (!reader) {
    onItems(parseLines<T>(await resp.text()).items);
    return;
  }
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    const cut = buffered.lastIndexOf('\n');
    if (cut < 0) continue;
    const { items, error } = parseLines<T>(buffered.slice(0, cut));
    buffered = buffered.slice(cut + 1);
    if (items.length) onItems(items);
    if (error) throw new ApiError(error, 500);
  }
  const { items, error } = parseLines<T>(buffered);
  if (items.length) onItems(items);
  if (error) throw new ApiError(error, 500);
}

export function parseLines<T>(text: string): { items: T[]; error?: string } {
  const items: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const obj = JSON.parse(line) as { result?: T; error?: unknown };
    if (obj.error) return { items, error: errorMessage(500, obj) };
    if (obj.result !== undefined) items.push(obj.result);
  }
  return { items };
}

// A GET started before React renders (main.tsx), so the landing page's data loads while the app
// checks the session instead of after. Taken once by the first reader of the same URL within
// PREFETCH_TTL_MS; a failed one is dropped (a signed-out visitor's 401 must not greet them after
// they sign in).
const PREFETCH_TTL_MS = 10_000;
const prefetched = new Map<string, { at: number; promise: Promise<unknown> }>();

export function prefetch(path: string, query: Query): void {
  const url = withQuery(path, query);
  if (prefetched.has(url)) return;
  const promise = request<unknown>(path, { query });
  promise.catch(() => prefetched.delete(url));
  prefetched.set(url, { at: Date.now(), promise });
}

export function takePrefetched<T>(path: string, query: Query): Promise<T> | undefined {
  const url = withQuery(path, query);
  const entry = prefetched.get(url);
  prefetched.delete(url);
  if (!entry || Date.now() - entry.at > PREFETCH_TTL_MS) return undefined;
  return entry.promise as Promise<T>;
}
