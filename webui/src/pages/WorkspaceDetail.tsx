import { Link, useParams } from 'react-router-dom';
import { request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { Tabs } from '../components/Tabs';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Pagination, Project, Workspace } from '../types';
import { WorkspaceMembers } from './WorkspaceMembers';
import { WORKSPACES_REFRESH_MS } from './Workspaces';

const TABS = [
  { id: 'projects', label: 'Projects' },
  { id: 'members', label: 'Members' },
];

// A workspace: its settings, then its projects or its members (who holds which role in it).
export default function WorkspaceDetail() {
  const { id = '', tab = 'projects' } = useParams();
  const wsId = Number(id);
  const valid = Number.isInteger(wsId) && wsId > 0;
  const ws = usePoll(
    (signal) => (valid ? request<{ workspace: Workspace }>(`/api/v1/workspaces/${wsId}`, { signal }) : Promise.resolve(undefined)),
    WORKSPACES_REFRESH_MS,
    [wsId],
  );
  const projects = usePoll(
    (signal) => (valid ? request<{ projects: Project[]; pagination: Pagination }>(`/api/v1/workspaces/${wsId}/projects`, { query: { sortBy: 'SORT_BY_NAME', orderBy: 'ORDER_BY_ASC' }, signal }) : Promise.resolve(undefined)),
    WORKSPACES_REFRESH_MS,
    [wsId],
  );
  if (!valid) return <div className="page"><ErrorBanner message={`"${id}" is not a workspace id.`} /></div>;
  if (!ws.data) {
    return <div className="page">{ws.error ? <ErrorBanner message={ws.error} onRetry={ws.reload} /> : <Spinner label="Loading workspace" />}</div>;
  }
  const w = ws.data.workspace;
  const list = projects.data?.projects ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Workspace: {w.name}</h1>
        {w.archived && <span className="tag">archived</span>}
        {w.pinned && <span className="tag">pinned</span>}
        <span className="muted"><Link to="/workspaces">All workspaces</Link></span>
      </div>
      <ErrorBanner message={ws.error ?? projects.error} onRetry={() => { ws.reload(); projects.reload(); }} />
      <section className="card" aria-labelledby="ws-settings-h">
        <h2 id="ws-settings-h" style={{ marginTop: 0 }}>Settings</h2>
        <dl className="facts">
          <dt>ID</dt><dd>{w.id}</dd>
          <dt>Owner</dt><dd>{w.username || '–'}</dd>
          <dt>Projects</dt><dd>{w.numProjects}</dd>
          <dt>Experiments</dt><dd>{w.numExperiments}</dd>
          <dt>Default compute pool</dt><dd>{w.defaultComputePool || <span className="muted">the cluster's default</span>}</dd>
          <dt>Default aux pool</dt><dd>{w.defaultAuxPool || <span className="muted">the cluster's default</span>}</dd>
          <dt>Checkpoint storage</dt>
          <dd className="mono">{w.checkpointStorageConfig ? JSON.stringify(w.checkpointStorageConfig) : <span className="muted">the cluster's default</span>}</dd>
          {w.agentUserGroup && (<><dt>Agent user group</dt><dd className="mono">{JSON.stringify(w.agentUserGroup)}</dd></>)}
          <dt>Archived</dt><dd>{w.archived ? 'Yes' : 'No'}</dd>
          <dt>Immutable</dt><dd>{w.immutable ? 'Yes' : 'No'}</dd>
        </dl>
      </section>
      <Tabs base={`/workspaces/${w.id}`} tabs={TABS} current={tab} />
      {tab === 'members' ? <WorkspaceMembers workspaceId={w.id} workspaceName={w.name} /> : tab !== 'projects' ? (
        <ErrorBanner message={`This workspace has no "${tab}" tab.`} />
      ) : <>
      <h2>Projects</h2>
      {projects.loading && !projects.data ? <Spinner label="Loading projects" /> : !projects.data ? null : list.length === 0 ? (
        <Empty>No projects in this workspace. Create one with <code>det project create {w.name} NAME</code>.</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Projects">
            <thead>
              <tr>
                <th>Name</th><th>Key</th><th>Description</th><th className="num">Experiments</th><th className="num">Active</th>
                <th>Last experiment started</th><th>Archived</th>
              </tr>
            </thead>
            <tbody>
              {list.map((p) => (
                <tr key={p.id} data-testid="project-row">
                  <td className="name"><Link to={`/projects/${p.id}/experiments`}>{p.name}</Link></td>
                  <td className="mono">{p.key || '–'}</td>
                  <td className="name">{p.description || <span className="muted">–</span>}</td>
                  <td className="num">{p.numExperiments}</td>
                  <td className="num">{p.numActiveExperiments}</td>
                  <td>{formatTime(p.lastExperimentStartedAt)}</td>
                  <td>{p.archived ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      </>}
    </div>
  );
}
