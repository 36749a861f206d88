import { Link, useParams } from 'react-router-dom';
import { request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { StateBadge } from '../components/StateBadge';
import { formatBytes, formatNumber, formatTime } from '../format';
import { usePoll } from '../hooks';
import type { Checkpoint, ModelVersion } from '../types';
import { modelPath } from './Models';

// One version of a model: its fields, its checkpoint and the checkpoint's validation metrics.
export default function ModelVersionDetail() {
  const { name = '', version = '' } = useParams();
  const num = Number(version);
  const valid = Number.isInteger(num) && num > 0;
  const { data, error, reload } = usePoll(
    (signal) => (valid
      ? request<{ modelVersion: ModelVersion }>(`/api/v1/models/${encodeURIComponent(name)}/versions/${num}`, { signal })
      : Promise.resolve(undefined)),
    null,
    [name, num],
  );
  if (!valid) return <div className="page"><ErrorBanner message={`"${version}" is not a version number.`} /></div>;
  if (!data) {
    return <div className="page">{error ? <ErrorBanner message={error} onRetry={reload} /> : <Spinner label="Loading model version" />}</div>;
  }
  const v = data.modelVersion;
  const modelName = v.model?.name ?? name;
  const metadata = Object.entries(v.metadata ?? {});
  return (
    <div className="page">
      <div className="page-head">
        <h1>{modelName} version {v.version}</h1>
        {v.model?.archived && <span className="tag">archived</span>}
        <span className="muted">of <Link to={modelPath(modelName)}>model {modelName}</Link></span>
      </div>
      <div className="grid-2">
        <section className="card" aria-labelledby="version-facts-h">
          <h2 id="version-facts-h" style={{ marginTop: 0 }}>Version</h2>
          <dl className="facts">
            <dt>Version</dt><dd>{v.version}</dd>
            <dt>Name</dt><dd>{v.name || <span className="muted">–</span>}</dd>
            <dt>Owner</dt><dd>{v.username || '–'}</dd>
            <dt>Created</dt><dd>{formatTime(v.creationTime)}</dd>
            {v.lastUpdatedTime && (<><dt>Last updated</dt><dd>{formatTime(v.lastUpdatedTime)}</dd></>)}
            <dt>Labels</dt><dd>{v.labels?.length ? v.labels.map((l) => <span key={l} className="tag">{l}</span>) : <span className="muted">–</span>}</dd>
            <dt>Comment</dt><dd>{v.comment || <span className="muted">–</span>}</dd>
            {metadata.length > 0 && (<><dt>Metadata</dt><dd className="mono">{JSON.stringify(v.metadata)}</dd></>)}
            {v.notes && (<><dt>Notes</dt><dd style={{ whiteSpace: 'pre-wrap' }}>{v.notes}</dd></>)}
          </dl>
        </section>
        <section className="card" aria-labelledby="version-checkpoint-h">
          <h2 id="version-checkpoint-h" style={{ marginTop: 0 }}>Checkpoint</h2>
          {v.checkpoint ? <CheckpointFacts c={v.checkpoint} /> : <Empty>The checkpoint of this version is no longer stored.</Empty>}
        </section>
      </div>
      {v.checkpoint && <ValidationMetrics c={v.checkpoint} />}
    </div>
  );
}

function CheckpointFacts({ c }: { c: Checkpoint }) {
  const size = Object.values(c.resources ?? {}).reduce((n, x) => n + Number(x), 0);
  return (
    <dl className="facts">
      <dt>UUID</dt><dd className="mono">{c.uuid}</dd>
      <dt>State</dt><dd><StateBadge state={c.state} /></dd>
      <dt>Steps</dt><dd>{formatNumber(c.metadata?.steps_completed)}</dd>
      <dt>Size</dt><dd>{formatBytes(size)}</dd>
      <dt>Experiment</dt><dd><Link to={`/experiments/${c.training.experimentId}`}>Experiment {c.training.experimentId}</Link></dd>
      <dt>Trial</dt><dd><Link to={`/trials/${c.training.trialId}`}>Trial {c.training.trialId}</Link></dd>
      <dt>Reported</dt><dd>{formatTime(c.reportTime)}</dd>
    </dl>
  );
}

function ValidationMetrics({ c }: { c: Checkpoint }) {
  const metrics = Object.entries(c.training.validationMetrics?.avgMetrics ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section aria-labelledby="version-metrics-h">
      <h2 id="version-metrics-h">Validation metrics</h2>
      {metrics.length === 0 ? <Empty>The trial reported no validation metrics at this checkpoint.</Empty> : (
        <table className="table card" aria-label="Validation metrics" style={{ maxWidth: 640 }}>
          <thead><tr><th>Name</th><th className="num">Value</th></tr></thead>
          <tbody>
            {metrics.map(([k, x]) => (
              <tr key={k}><td>{k}</td><td className="num mono">{typeof x === 'object' && x !== null ? JSON.stringify(x) : formatNumber(x)}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
