import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { ApiError, onUnauthorized, request } from './api';
import type { User } from './types';

interface AuthState {
  // undefined while the first /api/v1/me is in flight, null when signed out.
  user: User | null | undefined;
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside <AuthProvider>');
  return ctx;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    let live = true;
    request<{ user: User }>('/api/v1/me')
      .then((r) => live && setUser(r.user))
      .catch((e: unknown) => {
        // A master that cannot be reached is shown on the sign-in page, where the error surfaces.
        if (live && (!(e instanceof ApiError) || e.status === 401 || e.status >= 400)) setUser(null);
      });
    const off = onUnauthorized(() => setUser(null));
    return () => {
      live = false;
      off();
    };
  }, []);

  const signIn = useCallback(async (username: string, password: string) => {
    const r = await request<{ user: User }>('/api/v1/auth/login', {
      method: 'POST',
      body: { username, password },
    });
    setUser(r.user);
  }, []);

  const signOut = useCallback(async () => {
    try {
      await request('/api/v1/auth/logout', { method: 'POST' });
    } finally {
      setUser(null);
    }
  }, []);

  return <AuthContext.Provider value={{ user, signIn, signOut }}>{children}</AuthContext.Provider>;
}

// For tests: a provider with a fixed user.
export function StaticAuthProvider({ user, children }: { user: User | null; children: ReactNode }) {
  const noop = async () => {};
  return <AuthContext.Provider value={{ user, signIn: noop, signOut: noop }}>{children}</AuthContext.Provider>;
}
