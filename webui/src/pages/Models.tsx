import { Link, useSearchParams } from 'react-router-dom';
import { request, type Query } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Model, Pagination } from '../types';

export const MODELS_REFRESH_MS = 10000;
export const MODELS_PAGE_SIZE = 100;

export function modelPath(name: string): string {
  return `/models/${encodeURIComponent(name)}`;
}

// The GET /api/v1/models query for the page's URL: most recently updated first.
export function modelsQuery(p: URLSearchParams): Query {
  const page = Number(p.get('page'));
  return {
    name: (p.get('name') ?? '').trim() || undefined,
    sortBy: 'SORT_BY_LAST_UPDATED_TIME',
    orderBy: 'ORDER_BY_DESC',
    offset: ((Number.isInteger(page) && page > 0 ? page : 1) - 1) * MODELS_PAGE_SIZE,
    limit: MODELS_PAGE_SIZE,
  };
}

// The model registry (`det model list`).
export default function Models() {
  const [search, setSearch] = useSearchParams();
  const query = modelsQuery(search);
  const page = Number(query.offset) / MODELS_PAGE_SIZE + 1;
  const { data, error, loading, reload } = usePoll(
    (signal) => request<{ models: Model[]; pagination: Pagination }>('/api/v1/models', { query, signal }),
    MODELS_REFRESH_MS,
    [JSON.stringify(query)],
  );
  const list = data?.models ?? [];
  const total = data?.pagination?.total ?? list.length;
  const pages = Math.max(1, Math.ceil(total / MODELS_PAGE_SIZE));
  const update = (k: string, v: string | number) => {
    const next = new URLSearchParams(search);
    if (v === '' || v === 1) next.delete(k);
    else next.set(k, String(v));
    if (k !== 'page') next.delete('page');
    setSearch(next, { replace: true });
  };
  return (
    <div className="page">
      <div className="page-head">
        <h1>Models</h1>
        {data && <span className="muted">{total} model{total === 1 ? '' : 's'}</span>}
      </div>
      <form className="filters" role="search" aria-label="Filter models" onSubmit={(e) => e.preventDefault()}>
        <label>
          Name
          <input type="search" defaultValue={search.get('name') ?? ''} placeholder="contains…"
            onChange={(e) => debounced(() => update('name', e.target.value))} />
        </label>
      </form>
      <ErrorBanner message={error} onRetry={reload} />
      {loading && !data ? <Spinner label="Loading models" /> : !data ? null : list.length === 0 ? (
        <Empty>{query.name ? 'No models match this name.' : <>No models. Create one with <code>det model create NAME</code>.</>}</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Models">
            <thead>
              <tr>
                <th>Name</th><th>Description</th><th className="num">Versions</th><th>Labels</th><th className="num">Workspace</th>
                <th>Last updated</th><th>Archived</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={m.id} data-testid="model-row">
                  <td className="name"><Link to={modelPath(m.name)}>{m.name}</Link></td>
                  <td className="name">{m.description || <span className="muted">–</span>}</td>
                  <td className="num">{m.numVersions}</td>
                  <td>{(m.labels ?? []).map((l) => <span key={l} className="tag">{l}</span>)}</td>
                  <td className="num"><Link to={`/workspaces/${m.workspaceId}`}>{m.workspaceId}</Link></td>
                  <td>{formatTime(m.lastUpdatedTime)}</td>
                  <td>{m.archived ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="pager" aria-label="Pages">
          <button disabled={page <= 1} onClick={() => update('page', page - 1)}>Previous</button>
          <span>Page {page} of {pages}</span>
          <button disabled={page >= pages} onClick={() => update('page', page + 1)}>Next</button>
        </nav>
      )}
    </div>
  );
}

let debounceTimer: ReturnType<typeof setTimeout> | undefined;
function debounced(fn: () => void) {
  if (debounceTimer) clearTimeout(debounceTimer);
  debounceTimer = setTimeout(fn, 300);
}
