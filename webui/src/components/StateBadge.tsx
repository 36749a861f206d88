// An experiment, trial, job or task state as a colored badge: STATE_RUNNING -> "Running".
export function stateLabel(state: string): string {
  const bare = state.replace(/^STATE_/, '').replace(/_/g, ' ').toLowerCase();
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

export function stateTone(state: string): string {
  const s = state.replace(/^STATE_/, '');
  if (['ACTIVE', 'RUNNING', 'STARTING', 'PULLING', 'SCHEDULED'].includes(s)) return 'active';
  if (['COMPLETED'].includes(s)) return 'ok';
  if (['ERROR', 'DELETE_FAILED'].includes(s)) return 'bad';
  if (['PAUSED', 'QUEUED'].includes(s)) return 'wait';
  return 'neutral';
}

export function StateBadge({ state }: { state: string }) {
  return <span className={`badge badge-${stateTone(state)}`}>{stateLabel(state)}</span>;
}
