import { useState, type ReactNode } from 'react';
import { NavLink } from 'react-router-dom';
import { useAuth } from '../auth';
import { canManageGroups, useAccess } from '../permissions';

// `admin`: users only; `groups`: those who may manage groups and roles (permissions.ts).
const LINKS: { to: string; label: string; admin?: boolean; groups?: boolean }[] = [
  { to: '/experiments', label: 'Experiments' },
  { to: '/workspaces', label: 'Workspaces' },
  { to: '/models', label: 'Models' },
  { to: '/jobs', label: 'Job queue' },
  { to: '/clusters', label: 'Cluster' },
  { to: '/tasks', label: 'Tasks' },
  { to: '/templates', label: 'Templates' },
  { to: '/admin/users', label: 'Users', admin: true },
  { to: '/admin/groups', label: 'Groups and roles', groups: true },
];

export function Layout({ children }: { children: ReactNode }) {
  const { user, signOut } = useAuth();
  const [open, setOpen] = useState(false);
  const access = useAccess();
  const manageGroups = canManageGroups(user, access);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand" aria-label="Determined">
          <svg width="22" height="22" viewBox="0 0 32 32" aria-hidden="true">
            <rect width="32" height="32" rx="6" fill="currentColor" />
            <path d="M9 8h7a8 8 0 0 1 0 16H9z" fill="none" stroke="#fff" strokeWidth="3" />
          </svg>
          Determined
        </span>
        <button
          className="nav-toggle"
          aria-expanded={open}
          aria-controls="main-nav"
          onClick={() => setOpen((o) => !o)}
        >
          Menu
        </button>
        <nav id="main-nav" className={open ? 'nav open' : 'nav'} aria-label="Main">
          {LINKS.filter((l) => (!l.admin || user?.admin) && (!l.groups || manageGroups)).map((l) => (
            <NavLink key={l.to} to={l.to} onClick={() => setOpen(false)}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <div className="user">
          <span title="Signed in as">{user?.displayName || user?.username}</span>
          <NavLink className="link" to="/tokens">My tokens</NavLink>
          <button className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
