import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { describeError, streamResults } from '../api';
import type { LogEntry } from '../types';
import { ErrorBanner } from './Feedback';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'];
const LINE_HEIGHT = 20;
const MAX_LINES = 100_000; // older lines drop off the top past this

export interface LogFilter {
  levels: string[];
  stdtype: string; // '' | stdout | stderr
  search: string;
}

// A task's or trial's logs from `path` (GET .../logs, NDJSON), streamed with follow: new lines
// arrive as the master writes them. Filters go to the server (levels, stdtypes, searchText).
export function LogViewer({ path, live }: { path: string; live: boolean }) {
  const [filter, setFilter] = useState<LogFilter>({ levels: [], stdtype: '', search: '' });
  const [search, setSearch] = useState('');
  const [lines, setLines] = useState<LogEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [streaming, setStreaming] = useState(false);
  const [follow, setFollow] = useState(true);
  const scrollRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const t = setTimeout(() => setFilter((f) => ({ ...f, search })), 300);
    return () => clearTimeout(t);
  }, [search]);

  useEffect(() => {
    const ctl = new AbortController();
    setLines([]);
    setError(null);
    setStreaming(true);
    streamResults<LogEntry>(
      path,
      { follow: live ? 'true' : undefined, levels: filter.levels.length ? filter.levels.map((l) => `LOG_LEVEL_${l}`) : undefined,
        stdtypes: filter.stdtype ? [filter.stdtype] : undefined, searchText: filter.search || undefined },
      (items) => setLines((old) => {
        const next = old.concat(items);
        return next.length > MAX_LINES ? next.slice(next.length - MAX_LINES) : next;
      }),
      ctl.signal,
    )
      .catch((e: unknown) => {
        const msg = describeError(e);
        if (msg) setError(msg);
      })
      .finally(() => !ctl.signal.aborted && setStreaming(false));
    return () => ctl.abort();
  }, [path, live, filter]);

  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => LINE_HEIGHT,
    overscan: 20,
  });

  useEffect(() => {
    if (follow && lines.length) virtualizer.scrollToIndex(lines.length - 1, { align: 'end' });
  }, [lines.length, follow, virtualizer]);

  // Following stops only when the reader scrolls up; scrolls the viewer makes itself go down (and
  // lines measured taller than estimated may leave them short of the bottom for a moment).
  const lastTop = useRef(0);
  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < LINE_HEIGHT * 2;
    const movedUp = el.scrollTop < lastTop.current - 1;
    lastTop.current = el.scrollTop;
    if (atBottom && !follow) setFollow(true);
    else if (movedUp && !atBottom && follow) setFollow(false);
  };

  const toggleLevel = (l: string) =>
    setFilter((f) => ({ ...f, levels: f.levels.includes(l) ? f.levels.filter((x) => x !== l) : [...f.levels, l] }));

  return (
    <section aria-label="Logs">
      <div className="chart-controls">
        <label>
          Search
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="text in the line" />
        </label>
        <label>
          Output
          <select value={filter.stdtype} onChange={(e) => setFilter((f) => ({ ...f, stdtype: e.target.value }))}>
            <option value="">stdout and stderr</option>
            <option value="stdout">stdout</option>
            <option value="stderr">stderr</option>
          </select>
        </label>
        <fieldset className="levels" style={{ border: 'none', padding: 0, margin: 0, display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center' }}>
          <legend className="muted" style={{ fontSize: 12, float: 'left', marginRight: 6 }}>Levels</legend>
          {LEVELS.map((l) => (
            <label key={l} className="inline">
              <input type="checkbox" checked={filter.levels.includes(l)} onChange={() => toggleLevel(l)} />
              {l.toLowerCase()}
            </label>
          ))}
        </fieldset>
        <span className="muted" aria-live="polite">
          {lines.length} line{lines.length === 1 ? '' : 's'}
          {streaming && live ? ' · following' : ''}
        </span>
        {!follow && (
          <button onClick={() => setFollow(true)}>Jump to latest</button>
        )}
      </div>
      <ErrorBanner message={error} />
      <div className="logs" ref={scrollRef} onScroll={onScroll} tabIndex={0} role="log" aria-label="Log lines" data-testid="logs">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const l = lines[v.index]!;
            return (
              <div key={v.key} data-index={v.index} ref={virtualizer.measureElement}
                className={`log-line lvl-${(l.level ?? '').replace('LOG_LEVEL_', '')} ${l.stdtype ?? ''}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}>
                <span className="ts">{l.timestamp?.slice(0, 19).replace('T', ' ')}</span>
                <span className="lvl">{(l.level ?? '').replace('LOG_LEVEL_', '')}</span>
                <span className="msg">{(l.log ?? l.message).replace(/\n$/, '')}</span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
