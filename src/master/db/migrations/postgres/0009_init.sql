-- The schema SQLite reaches with migrations 0001..0009, in PostgreSQL's types: BIGINT for every
-- integer (ids, microsecond timestamps), DOUBLE PRECISION for reals, BYTEA for blobs. Tables the
-- store orders by insertion (tasks, allocations, checkpoints) have a `rowid` column, as SQLite's
-- implicit one.
CREATE TABLE users (
  id BIGSERIAL PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT,
  admin BIGINT NOT NULL DEFAULT 0,
  active BIGINT NOT NULL DEFAULT 1,
  display_name TEXT NOT NULL DEFAULT '',
  modified_at BIGINT NOT NULL
);
INSERT INTO users (id, username, password_hash, admin, active, modified_at)
  VALUES (1, 'admin', NULL, 1, 1, 0), (2, 'determined', NULL, 0, 1, 0);
SELECT setval('users_id_seq', 2);

CREATE TABLE user_sessions (
  token_hash TEXT PRIMARY KEY,
  user_id BIGINT NOT NULL REFERENCES users(id),
  expiry BIGINT NOT NULL
);
CREATE INDEX user_sessions_user ON user_sessions(user_id);

CREATE TABLE experiments (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  labels TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL,
  archived BIGINT NOT NULL DEFAULT 0,
  config TEXT NOT NULL,
  original_config TEXT NOT NULL,
  model_definition BYTEA NOT NULL,
  owner_id BIGINT NOT NULL REFERENCES users(id),
  start_time BIGINT NOT NULL,
  end_time BIGINT,
  progress DOUBLE PRECISION NOT NULL DEFAULT 0,
  job_id TEXT NOT NULL,
  notes TEXT NOT NULL DEFAULT '',
  queue_position DOUBLE PRECISION,
  checkpoint_gc_pending BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX experiments_owner ON experiments(owner_id, id);
CREATE INDEX experiments_state ON experiments(state, id);
CREATE INDEX experiments_archived ON experiments(archived, id);
CREATE INDEX experiments_start_time ON experiments(start_time);
CREATE INDEX experiments_end_time ON experiments(end_time);
CREATE INDEX experiments_name ON experiments(name);

CREATE TABLE trials (
  id BIGSERIAL PRIMARY KEY,
  experiment_id BIGINT NOT NULL REFERENCES experiments(id),
  request_id TEXT NOT NULL,
  task_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  hparams TEXT NOT NULL,
  seed BIGINT NOT NULL,
  restarts BIGINT NOT NULL DEFAULT 0,
  run_id BIGINT NOT NULL DEFAULT 0,
  start_time BIGINT NOT NULL,
  end_time BIGINT,
  total_batches BIGINT NOT NULL DEFAULT 0,
  latest_validation TEXT NOT NULL DEFAULT '',
  best_validation TEXT NOT NULL DEFAULT '',
  summary_metrics TEXT NOT NULL DEFAULT '{}',
  searcher_metric_value DOUBLE PRECISION,
  runner_state TEXT NOT NULL DEFAULT '',
  latest_checkpoint TEXT NOT NULL DEFAULT '',
  checkpoint_count BIGINT NOT NULL DEFAULT 0,
  total_checkpoint_size BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX trials_experiment ON trials(experiment_id);

CREATE TABLE allocations (
  rowid BIGSERIAL,
  allocation_id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  trial_id BIGINT,
  state TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL DEFAULT '',
  slots BIGINT NOT NULL,
  start_time BIGINT NOT NULL,
  end_time BIGINT,
  exit_code BIGINT,
  slot_ids TEXT NOT NULL DEFAULT '[]',
  resource_pool TEXT NOT NULL DEFAULT '',
  is_ready BIGINT NOT NULL DEFAULT 0,
  service_address TEXT NOT NULL DEFAULT '',
  service_user TEXT NOT NULL DEFAULT ''
);
CREATE INDEX allocations_task ON allocations(task_id);
CREATE INDEX allocations_trial ON allocations(trial_id, start_time);

CREATE TABLE metrics (
  id BIGSERIAL PRIMARY KEY,
  trial_id BIGINT NOT NULL REFERENCES trials(id),
  trial_run_id BIGINT NOT NULL,
  metric_group TEXT NOT NULL,
  total_batches BIGINT NOT NULL,
  end_time BIGINT NOT NULL,
  metrics TEXT NOT NULL,
  batch_metrics TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX metrics_trial_group ON metrics(trial_id, metric_group, total_batches);

CREATE TABLE checkpoints (
  rowid BIGSERIAL,
  uuid TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  allocation_id TEXT NOT NULL,
  trial_id BIGINT REFERENCES trials(id),
  experiment_id BIGINT REFERENCES experiments(id),
  report_time BIGINT NOT NULL,
  state TEXT NOT NULL,
  resources TEXT NOT NULL,
  metadata TEXT NOT NULL,
  steps_completed BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX checkpoints_trial ON checkpoints(trial_id);

CREATE TABLE task_logs (
  id BIGSERIAL PRIMARY KEY,
  task_id TEXT NOT NULL,
  allocation_id TEXT NOT NULL DEFAULT '',
  agent_id TEXT NOT NULL DEFAULT '',
  container_id TEXT NOT NULL DEFAULT '',
  rank_id BIGINT,
  timestamp BIGINT NOT NULL,
  level TEXT NOT NULL,
  log TEXT NOT NULL,
  source TEXT NOT NULL,
  stdtype TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_logs_task ON task_logs(task_id, id);

CREATE TABLE templates (
  name TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  workspace_id BIGINT NOT NULL DEFAULT 1
);

CREATE TABLE searcher_snapshots (
  experiment_id BIGINT PRIMARY KEY REFERENCES experiments(id),
  snapshot TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE tasks (
  rowid BIGSERIAL,
  task_id TEXT PRIMARY KEY,
  task_type TEXT NOT NULL,
  owner_id BIGINT NOT NULL REFERENCES users(id),
  job_id TEXT NOT NULL DEFAULT '',
  workspace_id BIGINT NOT NULL DEFAULT 1,
  description TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}',
  state TEXT NOT NULL,
  start_time BIGINT NOT NULL,
  end_time BIGINT,
  exit_status TEXT NOT NULL DEFAULT '',
  exit_code BIGINT,
  queue_position DOUBLE PRECISION,
  forked_from TEXT NOT NULL DEFAULT '',
  context BYTEA NOT NULL DEFAULT ''::bytea,
  service TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX tasks_type_state ON tasks(task_type, state);
