import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router-dom';
import { request, takePrefetched, type Query } from '../api';
import { ErrorBanner, Empty } from '../components/Feedback';
import { StateBadge } from '../components/StateBadge';
import { durationBetween, formatNumber, formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Experiment, ExperimentList as ListResponse, Project } from '../types';
import { useBestMetrics } from './bestMetric';
import { ACTION_LABELS, applyToAll, canApply, type ExperimentAction } from './experimentActions';

// Columns the master can sort by (upstream's SORT_BY_* names).
const SORTS: Record<string, string> = {
  id: 'SORT_BY_ID',
  name: 'SORT_BY_NAME',
  state: 'SORT_BY_STATE',
  progress: 'SORT_BY_PROGRESS',
  trials: 'SORT_BY_NUM_TRIALS',
  user: 'SORT_BY_USER',
  start: 'SORT_BY_START_TIME',
  end: 'SORT_BY_END_TIME',
  pool: 'SORT_BY_RESOURCE_POOL',
};

const STATES = ['ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELED', 'ERROR', 'STOPPING_CANCELED', 'DELETE_FAILED'];
const PAGE_SIZES = [50, 100, 500];
const ROW_HEIGHT = 37;
export const LIST_REFRESH_MS = 5000;

export interface ListParams {
  name: string;
  state: string;
  user: string;
  label: string;
  archived: string; // '' (hide archived) | 'all' | 'only'
  sort: string;
  order: 'asc' | 'desc';
  page: number;
  limit: number;
}

export function readParams(p: URLSearchParams): ListParams {
  const limit = Number(p.get('limit'));
  const page = Number(p.get('page'));
  const order = p.get('order');
  const sort = p.get('sort') ?? 'id';
  return {
    name: p.get('name') ?? '',
    state: p.get('state') ?? '',
    user: p.get('user') ?? '',
    label: p.get('label') ?? '',
    archived: p.get('archived') ?? '',
    sort: sort in SORTS ? sort : 'id',
    order: order === 'asc' ? 'asc' : 'desc',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    limit: PAGE_SIZES.includes(limit) ? limit : 100,
  };
}

// The GET /api/v1/experiments query for the list's parameters (and, on a project's page, its id).
export function listQuery(p: ListParams, projectId?: number): Query {
  return {
    projectId,
    name: p.name.trim() || undefined,
    states: p.state ? [`STATE_${p.state}`] : undefined,
    users: p.user.trim() ? [p.user.trim()] : undefined,
    labels: p.label.trim() ? [p.label.trim()] : undefined,
    archived: p.archived === 'all' ? undefined : p.archived === 'only' ? 'true' : 'false',
    sortBy: SORTS[p.sort],
    orderBy: p.order === 'asc' ? 'ORDER_BY_ASC' : 'ORDER_BY_DESC',
    offset: (p.page - 1) * p.limit,
    limit: p.limit,
  };
}

// All experiments at /experiments; a project's at /projects/:projectId/experiments.
export function ExperimentList() {
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const { projectId: rawProjectId } = useParams();
  const projectId = rawProjectId === undefined ? undefined : Number(rawProjectId);
  const badProject = projectId !== undefined && !(Number.isInteger(projectId) && projectId > 0);
  const params = readParams(search);
  const query = listQuery(params, badProject ? undefined : projectId);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [busy, setBusy] = useState(false);
  const [actionErrors, setActionErrors] = useState<string[]>([]);

  const { data, error, loading, reload } = usePoll(
    (signal) => {
      if (badProject) return Promise.reject(new Error(`"${rawProjectId}" is not a project id.`));
      return takePrefetched<ListResponse>('/api/v1/experiments', query) ?? request<ListResponse>('/api/v1/experiments', { query, signal });
    },
    LIST_REFRESH_MS,
    [JSON.stringify(query), badProject],
  );
  const project = usePoll(
    (signal) => (projectId === undefined || badProject ? Promise.resolve(undefined) : request<{ project: Project }>(`/api/v1/projects/${projectId}`, { signal })),
    null,
    [projectId],
  );
  const p = project.data?.project;
  const experiments = useMemo(() => data?.experiments ?? [], [data]);
  const total = data?.pagination.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / params.limit));

  const update = (changes: Partial<Record<keyof ListParams, string | number>>, resetPage = true) => {
    const next = new URLSearchParams(search);
    for (const [k, v] of Object.entries(changes)) {
      if (v === '' || v === undefined) next.delete(k);
      else next.set(k, String(v));
    }
    if (resetPage && !('page' in changes)) next.delete('page');
    setSearch(next, { replace: true });
    setSelected(new Set());
  };

  const sortBy = (key: string) => {
    if (params.sort === key) update({ order: params.order === 'asc' ? 'desc' : 'asc' });
    else update({ sort: key, order: key === 'name' || key === 'user' ? 'asc' : 'desc' });
  };

  const chosen = experiments.filter((e) => selected.has(e.id));
  const run = async (action: ExperimentAction) => {
    const targets = chosen.filter((e) => canApply(action, e)).map((e) => e.id);
    if (!targets.length) return;
    if (action === 'delete' || action === 'kill') {
      const verb = action === 'delete' ? 'Delete' : 'Kill';
      if (!window.confirm(`${verb} ${targets.length} experiment${targets.length > 1 ? 's' : ''} (${targets.join(', ')})?`)) return;
    }
    setBusy(true);
    setActionErrors(await applyToAll(action, targets));
    setBusy(false);
    setSelected(new Set());
    reload();
  };

  const allOnPage = experiments.length > 0 && experiments.every((e) => selected.has(e.id));
  const toggleAll = () => setSelected(allOnPage ? new Set() : new Set(experiments.map((e) => e.id)));
  const toggle = (id: number) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return (
    <div className="page page-wide">
      <div className="page-head">
        {projectId === undefined ? <h1>Experiments</h1> : (
          <>
            <h1>{p ? `Project: ${p.name}` : `Project ${rawProjectId}`}</h1>
            {p?.archived && <span className="tag">archived</span>}
            {p && (
              <span className="muted">
                in workspace <Link to={`/workspaces/${p.workspaceId}`}>{p.workspaceName || `Workspace ${p.workspaceId}`}</Link>
              </span>
            )}
          </>
        )}
        <span className="muted" aria-live="polite">
          {loading && !data ? 'Loading…' : `${total} experiment${total === 1 ? '' : 's'}`}
        </span>
      </div>

      <form className="filters" role="search" aria-label="Filter experiments" onSubmit={(e) => e.preventDefault()}>
        <label>
          Name
          <input type="search" defaultValue={params.name} placeholder="contains…"
            onChange={(e) => debounced(() => update({ name: e.target.value }))} />
        </label>
        <label>
          State
          <select value={params.state} onChange={(e) => update({ state: e.target.value })}>
            <option value="">Any</option>
            {STATES.map((s) => (
              <option key={s} value={s}>{s.replace(/_/g, ' ').toLowerCase()}</option>
            ))}
          </select>
        </label>
        <label>
          User
          <input defaultValue={params.user} placeholder="username" onChange={(e) => debounced(() => update({ user: e.target.value }))} />
        </label>
        <label>
          Label
          <input defaultValue={params.label} placeholder="label" onChange={(e) => debounced(() => update({ label: e.target.value }))} />
        </label>
        <label>
          Archived
          <select value={params.archived} onChange={(e) => update({ archived: e.target.value })}>
            <option value="">Hide</option>
            <option value="all">Show</option>
            <option value="only">Only archived</option>
          </select>
        </label>
      </form>

      <div className="toolbar" role="toolbar" aria-label="Actions on selected experiments">
        <span className="muted">{selected.size ? `${selected.size} selected` : 'Select experiments for actions'}</span>
        {(Object.keys(ACTION_LABELS) as ExperimentAction[]).map((a) => (
          <button key={a} className={a === 'kill' || a === 'delete' ? 'danger' : ''}
            disabled={busy || !chosen.some((e) => canApply(a, e))} onClick={() => void run(a)}>
            {ACTION_LABELS[a]}
          </button>
        ))}
        <button disabled={selected.size < 2} onClick={() => navigate(`/compare?experiments=${[...selected].sort((x, y) => x - y).join(',')}`)}>
          Compare
        </button>
      </div>

      <ErrorBanner message={error} onRetry={reload} />
      <ErrorBanner message={project.error} onRetry={project.reload} />
      {p?.description && <p className="muted">{p.description}</p>}
      {actionErrors.length > 0 && (
        <div className="error-banner" role="alert">
          <ul>{actionErrors.map((m) => <li key={m}>{m}</li>)}</ul>
          <button className="link" onClick={() => setActionErrors([])}>Dismiss</button>
        </div>
      )}

      <ExperimentTable experiments={experiments} selected={selected} onToggle={toggle} allSelected={allOnPage}
        onToggleAll={toggleAll} sort={params.sort} order={params.order} onSort={sortBy} />
      {!loading && experiments.length === 0 && !error && (
        <Empty>{projectId === undefined ? 'No experiments match these filters.' : 'No experiments in this project match these filters.'}</Empty>
      )}

      <nav className="pager" aria-label="Pages">
        <button disabled={params.page <= 1} onClick={() => update({ page: params.page - 1 }, false)}>Previous</button>
        <span>Page {params.page} of {pages}</span>
        <button disabled={params.page >= pages} onClick={() => update({ page: params.page + 1 }, false)}>Next</button>
        <label>
          Rows
          <select value={params.limit} onChange={(e) => update({ limit: e.target.value })}>
            {PAGE_SIZES.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
      </nav>
    </div>
  );
}

let debounceTimer: ReturnType<typeof setTimeout> | undefined;
function debounced(fn: () => void) {
  if (debounceTimer) clearTimeout(debounceTimer);
  debounceTimer = setTimeout(fn, 300);
}

interface TableProps {
  experiments: Experiment[];
  selected: Set<number>;
  allSelected: boolean;
  onToggle: (id: number) => void;
  onToggleAll: () => void;
  sort: string;
  order: 'asc' | 'desc';
  onSort: (key: string) => void;
}

const COLUMNS: { key: string; label: string; sortable?: boolean; className?: string }[] = [
  { key: 'id', label: 'ID', sortable: true, className: 'num' },
  { key: 'name', label: 'Name', sortable: true },
  { key: 'state', label: 'State', sortable: true },
  { key: 'progress', label: 'Progress', sortable: true },
  { key: 'trials', label: 'Trials', sortable: true, className: 'num' },
  { key: 'metric', label: 'Best searcher metric' },
  { key: 'user', label: 'User', sortable: true },
  { key: 'start', label: 'Started', sortable: true },
  { key: 'duration', label: 'Duration' },
  { key: 'pool', label: 'Resource pool', sortable: true },
];

// The rows are virtualized: only those in view are in the DOM, so a page of 500 scrolls smoothly.
function ExperimentTable(p: TableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: p.experiments.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    initialRect: { width: 1200, height: 600 },
  });
  const items = virtualizer.getVirtualItems();
  const best = useBestMetrics(items.map((v) => p.experiments[v.index]!).filter(Boolean));
  const top = items[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const now = Date.now();
  return (
    <div className="table-scroll" ref={scrollRef}>
      <table className="table" aria-label="Experiments" aria-rowcount={p.experiments.length + 1}>
        <thead>
          <tr>
            <th className="check">
              <input type="checkbox" aria-label="Select all on this page" checked={p.allSelected} onChange={p.onToggleAll} />
            </th>
            {COLUMNS.map((c) => (
              <th key={c.key} className={c.className}
                aria-sort={p.sort === c.key ? (p.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                {c.sortable ? (
                  <button className="sort" onClick={() => p.onSort(c.key)}>
                    {c.label}
                    <span aria-hidden="true">{p.sort === c.key ? (p.order === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                  </button>
                ) : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {top > 0 && <tr style={{ height: top }} aria-hidden="true" />}
          {items.map((v) => {
            const e = p.experiments[v.index]!;
            return (
              <tr key={e.id} style={{ height: ROW_HEIGHT }} className={p.selected.has(e.id) ? 'selected' : ''} data-testid="experiment-row">
                <td className="check">
                  <input type="checkbox" aria-label={`Select experiment ${e.id}`} checked={p.selected.has(e.id)} onChange={() => p.onToggle(e.id)} />
                </td>
                <td className="num">{e.id}</td>
                <td className="name">
                  <Link to={`/experiments/${e.id}`}>{e.name || `Experiment ${e.id}`}</Link>
                  {e.archived && <span className="tag">archived</span>}
                  {e.labels.map((l) => <span key={l} className="tag">{l}</span>)}
                </td>
                <td><StateBadge state={e.state} /></td>
                <td><Progress value={e.progress} /></td>
                <td className="num">{e.numTrials}</td>
                <td>
                  {e.searcherMetric || '–'}
                  {typeof best.get(e.id) === 'number' && <> = {formatNumber(best.get(e.id))}</>}
                </td>
                <td>{e.username}</td>
                <td>{formatTime(e.startTime)}</td>
                <td>{durationBetween(e.startTime, e.endTime, now)}</td>
                <td>{e.resourcePool}</td>
              </tr>
            );
          })}
          {bottom > 0 && <tr style={{ height: bottom }} aria-hidden="true" />}
        </tbody>
      </table>
    </div>
  );
}

export function Progress({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">–</span>;
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <span className="progress" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100} aria-label="Progress">
      <span className="progress-bar" style={{ width: `${pct}%` }} />
      <span className="progress-text">{pct}%</span>
    </span>
  );
}
