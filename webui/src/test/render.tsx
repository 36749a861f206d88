import { render } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import type { ReactElement } from 'react';
import { StaticAuthProvider } from '../auth';

export const admin = { id: 1, username: 'admin', admin: true, active: true };

// Renders `element` at `path` matched by `pattern`, signed in as `user`.
export function renderAt(pattern: string, path: string, element: ReactElement, user = admin) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <StaticAuthProvider user={user}>
        <Routes>
          <Route path={pattern} element={element} />
        </Routes>
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}
