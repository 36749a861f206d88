import { Link, useParams } from 'react-router-dom';
import { request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Model, ModelVersion, Pagination } from '../types';
import { MODELS_REFRESH_MS, modelPath } from './Models';

// A model of the registry: its fields and its versions, newest first.
export default function ModelDetail() {
  const { name = '' } = useParams();
  const { data, error, reload } = usePoll(
    (signal) => request<{ model: Model; modelVersions: ModelVersion[]; pagination: Pagination }>(
      `/api/v1/models/${encodeURIComponent(name)}/versions`, { query: { orderBy: 'ORDER_BY_DESC' }, signal }),
    MODELS_REFRESH_MS,
    [name],
  );
  if (!data) {
    return <div className="page">{error ? <ErrorBanner message={error} onRetry={reload} /> : <Spinner label="Loading model" />}</div>;
  }
  const m = data.model;
  const versions = data.modelVersions ?? [];
  return (
    <div className="page">
      <div className="page-head">
        <h1>Model: {m.name}</h1>
        {m.archived && <span className="tag">archived</span>}
        <span className="muted"><Link to="/models">All models</Link></span>
      </div>
      <ErrorBanner message={error} onRetry={reload} />
      <section className="card" aria-labelledby="model-facts-h">
        <h2 id="model-facts-h" style={{ marginTop: 0 }}>Summary</h2>
        <ModelFacts m={m} />
      </section>
      <h2>Versions</h2>
      {versions.length === 0 ? (
        <Empty>No versions. Register a checkpoint with <code>det model register-version {m.name} UUID</code>.</Empty>
      ) : (
        <div className="table-scroll short">
          <table className="table" aria-label="Versions">
            <thead>
              <tr>
                <th className="num">Version</th><th>Name</th><th>Checkpoint</th><th className="num">Experiment</th><th className="num">Trial</th>
                <th>Created</th><th>Labels</th><th>Comment</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((v) => (
                <tr key={v.id} data-testid="version-row">
                  <td className="num"><Link to={`${modelPath(m.name)}/versions/${v.version}`} aria-label={`Version ${v.version}`}>{v.version}</Link></td>
                  <td className="name">{v.name || <span className="muted">–</span>}</td>
                  <td className="mono">{v.checkpoint?.uuid ?? <span className="muted">deleted</span>}</td>
                  <td className="num">{v.checkpoint ? <Link to={`/experiments/${v.checkpoint.training.experimentId}`}>{v.checkpoint.training.experimentId}</Link> : '–'}</td>
                  <td className="num">{v.checkpoint ? <Link to={`/trials/${v.checkpoint.training.trialId}`}>{v.checkpoint.training.trialId}</Link> : '–'}</td>
                  <td>{formatTime(v.creationTime)}</td>
                  <td>{(v.labels ?? []).map((l) => <span key={l} className="tag">{l}</span>)}</td>
                  <td className="name">{v.comment || <span className="muted">–</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function ModelFacts({ m }: { m: Model }) {
  const metadata = Object.entries(m.metadata ?? {});
  return (
    <dl className="facts">
      <dt>ID</dt><dd>{m.id}</dd>
      <dt>Description</dt><dd>{m.description || <span className="muted">–</span>}</dd>
      <dt>Owner</dt><dd>{m.username || '–'}</dd>
      <dt>Workspace</dt><dd><Link to={`/workspaces/${m.workspaceId}`}>Workspace {m.workspaceId}</Link></dd>
      <dt>Versions</dt><dd>{m.numVersions}</dd>
      <dt>Created</dt><dd>{formatTime(m.creationTime)}</dd>
      <dt>Last updated</dt><dd>{formatTime(m.lastUpdatedTime)}</dd>
      <dt>Labels</dt><dd>{m.labels?.length ? m.labels.map((l) => <span key={l} className="tag">{l}</span>) : <span className="muted">–</span>}</dd>
      {metadata.length > 0 && (<><dt>Metadata</dt><dd className="mono">{JSON.stringify(m.metadata)}</dd></>)}
      {m.notes && (<><dt>Notes</dt><dd style={{ whiteSpace: 'pre-wrap' }}>{m.notes}</dd></>)}
    </dl>
  );
}
