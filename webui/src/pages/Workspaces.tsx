import { Link } from 'react-router-dom';
import { request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { usePoll } from '../hooks';
import type { Pagination, Workspace } from '../types';

export const WORKSPACES_REFRESH_MS = 10000;

// Workspaces (`det workspace list`): each with its projects' and experiments' counts.
export default function Workspaces() {
  const { data, error, loading, reload } = usePoll(
    (signal) => request<{ workspaces: Workspace[]; pagination: Pagination }>('/api/v1/workspaces', { query: { sortBy: 'SORT_BY_NAME', orderBy: 'ORDER_BY_ASC' }, signal }),
    WORKSPACES_REFRESH_MS,
    [],
  );
  const list = data?.workspaces ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Workspaces</h1>
        {data && <span className="muted">{list.length} workspace{list.length === 1 ? '' : 's'}</span>}
      </div>
      <ErrorBanner message={error} onRetry={reload} />
      {loading && !data ? <Spinner label="Loading workspaces" /> : !data ? null : list.length === 0 ? <Empty>No workspaces. Create one with <code>det workspace create NAME</code>.</Empty> : (
        <div className="table-scroll short">
          <table className="table" aria-label="Workspaces">
            <thead><tr><th>Name</th><th className="num">Projects</th><th className="num">Experiments</th><th>Owner</th><th>Archived</th></tr></thead>
            <tbody>
              {list.map((w) => (
                <tr key={w.id} data-testid="workspace-row">
                  <td className="name">
                    <Link to={`/workspaces/${w.id}`}>{w.name}</Link>
                    {w.pinned && <span className="tag">pinned</span>}
                  </td>
                  <td className="num">{w.numProjects}</td>
                  <td className="num">{w.numExperiments}</td>
                  <td>{w.username || '–'}</td>
                  <td>{w.archived ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
