import { useState, type FormEvent } from 'react';
import { describeError } from '../api';
import { useAuth } from '../auth';
import { ErrorBanner } from '../components/Feedback';

export function SignIn() {
  const { signIn } = useAuth();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // Signed in, the app leaves /login for ?redirect (App.tsx).
      await signIn(username.trim(), password);
    } catch (err) {
      const msg = describeError(err);
      setError(msg === 'invalid credentials' ? 'The username or password is not correct.' : msg);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="signin">
      <form className="card signin-card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Determined</h1>
        <ErrorBanner message={error} />
        <label>
          Username
          <input autoFocus autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button className="primary" type="submit" disabled={busy || !username.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
