import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from './api';

// Runs `fn` now and every `ms` while the tab is visible (a hidden tab does not poll); a new `key`
// restarts it. Errors become `error` (a sentence) and the last good value stays.
export function usePoll<T>(fn: (signal: AbortSignal) => Promise<T>, ms: number | null, key: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      if (stopped) return;
      if (typeof document !== 'undefined' && document.hidden && ms !== null) {
        timer = setTimeout(run, ms);
        return;
      }
      try {
        const v = await fnRef.current(ctl.signal);
        if (stopped) return;
        setData(v);
        setError(null);
      } catch (e) {
        if (stopped) return;
        const msg = describeError(e);
        if (msg) setError(msg);
      } finally {
        if (!stopped) setLoading(false);
      }
      if (!stopped && ms !== null) timer = setTimeout(run, ms);
    };
    setLoading(true);
    void run();
    return () => {
      stopped = true;
      ctl.abort();
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...key, ms, tick]);

  return { data, error, loading, reload, setData };
}

// A button's request: `run(what, done)` clears the last outcome, awaits `what`, then shows `done`
// as a notice (and calls `after`) or the master's error as a sentence. Resolves true on success.
export function useAction(after?: () => void) {
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const afterRef = useRef(after);
  afterRef.current = after;
  const run = useCallback(async (what: () => Promise<unknown>, done: string): Promise<boolean> => {
    setError(null);
    setNotice(null);
    try {
      await what();
      setNotice(done);
      afterRef.current?.();
      return true;
    } catch (e) {
      setError(describeError(e) || 'The request was cancelled.');
      return false;
    }
  }, []);
  return { error, notice, run };
}
