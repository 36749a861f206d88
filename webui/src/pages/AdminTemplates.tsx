import { useEffect, useState } from 'react';
import { describeError, request } from '../api';
import { ErrorBanner, Empty, Spinner } from '../components/Feedback';
import { usePoll } from '../hooks';

interface Template {
  name: string;
  config: Record<string, unknown>;
  workspaceId?: number;
}

// Config templates (`det template`): their YAML, and delete.
export default function AdminTemplates() {
  const { data, error, loading, reload } = usePoll((signal) => request<{ templates: Template[] }>('/api/v1/templates', { query: { limit: 1000 }, signal }), null, []);
  const [open, setOpen] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const remove = async (name: string) => {
    if (!window.confirm(`Delete template ${name}? Experiments created from it keep their configs.`)) return;
    try {
      setActionError(null);
      await request(`/api/v1/templates/${encodeURIComponent(name)}`, { method: 'DELETE' });
      if (open === name) setOpen(null);
      reload();
    } catch (e) {
      setActionError(describeError(e));
    }
  };
  const list = data?.templates ?? [];
  return (
    <div className="page">
      <div className="page-head"><h1>Templates</h1></div>
      <ErrorBanner message={actionError ?? error} onRetry={reload} />
      {loading && !data ? <Spinner label="Loading templates" /> : list.length === 0 ? <Empty>No templates. Create one with <code>det template set NAME FILE</code>.</Empty> : (
        <table className="table card" aria-label="Templates" style={{ maxWidth: 720 }}>
          <thead><tr><th>Name</th><th>Actions</th></tr></thead>
          <tbody>
            {list.map((t) => (
              <tr key={t.name}>
                <td>{t.name}</td>
                <td>
                  <button className="link" aria-expanded={open === t.name} onClick={() => setOpen(open === t.name ? null : t.name)}>{open === t.name ? 'Hide' : 'Show'} config</button>
                  <button className="link danger" onClick={() => void remove(t.name)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && <TemplateYaml config={list.find((t) => t.name === open)?.config ?? {}} name={open} />}
    </div>
  );
}

function TemplateYaml({ config, name }: { config: Record<string, unknown>; name: string }) {
  const [text, setText] = useState('');
  useEffect(() => {
    let live = true;
    void import('yaml').then((yaml) => live && setText(yaml.stringify(config)));
    return () => {
      live = false;
    };
  }, [config]);
  return (
    <section aria-label={`Template ${name}`}>
      <h2>{name}</h2>
      <pre className="code">{text}</pre>
    </section>
  );
}
