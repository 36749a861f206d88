import { Link } from 'react-router-dom';

// Tabs as links (/experiments/7/trials), so each tab has a URL people can share.
export function Tabs({ base, tabs, current }: { base: string; tabs: { id: string; label: string }[]; current: string }) {
  return (
    <nav className="tabs" aria-label="Sections">
      {tabs.map((t) => (
        <Link key={t.id} to={`${base}/${t.id}`} aria-current={t.id === current ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
