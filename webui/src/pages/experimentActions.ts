import { request } from '../api';
import type { Experiment } from '../types';

export type ExperimentAction = 'activate' | 'pause' | 'kill' | 'archive' | 'unarchive' | 'delete';

export const ACTION_LABELS: Record<ExperimentAction, string> = {
  activate: 'Activate',
  pause: 'Pause',
  kill: 'Kill',
  archive: 'Archive',
  unarchive: 'Unarchive',
  delete: 'Delete',
};

const TERMINAL = ['STATE_COMPLETED', 'STATE_CANCELED', 'STATE_ERROR', 'STATE_DELETE_FAILED'];

export function isTerminal(state: string): boolean {
  return TERMINAL.includes(state);
}

// Whether `action` makes sense for `e` (the master decides; this only greys out buttons).
export function canApply(action: ExperimentAction, e: Experiment): boolean {
  const terminal = isTerminal(e.state);
  switch (action) {
    case 'activate':
      return e.state === 'STATE_PAUSED';
    case 'pause':
      return !terminal && e.state !== 'STATE_PAUSED' && !e.state.startsWith('STATE_STOPPING') && e.state !== 'STATE_DELETING';
    case 'kill':
      return !terminal && e.state !== 'STATE_DELETING' && e.state !== 'STATE_STOPPING_CANCELED';
    case 'archive':
      return terminal && !e.archived;
    case 'unarchive':
      return e.archived;
    case 'delete':
      return terminal;
  }
}

export async function applyAction(action: ExperimentAction, id: number): Promise<void> {
  if (action === 'delete') await request(`/api/v1/experiments/${id}`, { method: 'DELETE' });
  else await request(`/api/v1/experiments/${id}/${action}`, { method: 'POST' });
}

// Runs `action` on every id; returns a sentence per failure ("Experiment 7: not found").
export async function applyToAll(action: ExperimentAction, ids: number[]): Promise<string[]> {
  const results = await Promise.allSettled(ids.map((id) => applyAction(action, id)));
  const errors: string[] = [];
  results.forEach((r, i) => {
    if (r.status === 'rejected') {
      const reason = r.reason instanceof Error ? r.reason.message : String(r.reason);
      errors.push(`Experiment ${ids[i]}: ${reason}`);
    }
  });
  return errors;
}
