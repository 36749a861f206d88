-- Users, sessions, experiments, trials, allocations, metrics, checkpoints and task logs.
-- Times are Unix microseconds; JSON columns hold JSON text.
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT,
  admin INTEGER NOT NULL DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  display_name TEXT NOT NULL DEFAULT '',
  modified_at INTEGER NOT NULL
);
INSERT INTO users (id, username, password_hash, admin, active, modified_at)
  VALUES (1, 'admin', NULL, 1, 1, 0), (2, 'determined', NULL, 0, 1, 0);

CREATE TABLE user_sessions (
  token_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  expiry INTEGER NOT NULL
);

CREATE TABLE experiments (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  labels TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  config TEXT NOT NULL,
  original_config TEXT NOT NULL,
  model_definition BLOB NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  start_time INTEGER NOT NULL,
  end_time INTEGER,
  progress REAL NOT NULL DEFAULT 0,
  job_id TEXT NOT NULL
);

CREATE TABLE trials (
  id INTEGER PRIMARY KEY,
  experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  request_id TEXT NOT NULL,
  task_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  hparams TEXT NOT NULL,
  seed INTEGER NOT NULL,
  restarts INTEGER NOT NULL DEFAULT 0,
  run_id INTEGER NOT NULL DEFAULT 0,
  start_time INTEGER NOT NULL,
  end_time INTEGER,
  total_batches INTEGER NOT NULL DEFAULT 0,
  latest_validation TEXT NOT NULL DEFAULT '',
  best_validation TEXT NOT NULL DEFAULT '',
  summary_metrics TEXT NOT NULL DEFAULT '{}',
  searcher_metric_value REAL,
  runner_state TEXT NOT NULL DEFAULT '',
  latest_checkpoint TEXT NOT NULL DEFAULT '',
  checkpoint_count INTEGER NOT NULL DEFAULT 0,
  total_checkpoint_size INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX trials_experiment ON trials(experiment_id);

CREATE TABLE allocations (
  allocation_id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  trial_id INTEGER,
  state TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  agent_id TEXT NOT NULL DEFAULT '',
  slots INTEGER NOT NULL,
  start_time INTEGER NOT NULL,
  end_time INTEGER,
  exit_code INTEGER
);
CREATE INDEX allocations_task ON allocations(task_id);

CREATE TABLE metrics (
  id INTEGER PRIMARY KEY,
  trial_id INTEGER NOT NULL REFERENCES trials(id),
  trial_run_id INTEGER NOT NULL,
  metric_group TEXT NOT NULL,
  total_batches INTEGER NOT NULL,
  end_time INTEGER NOT NULL,
  metrics TEXT NOT NULL,
  batch_metrics TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX metrics_trial_group ON metrics(trial_id, metric_group, total_batches);

CREATE TABLE checkpoints (
  uuid TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  allocation_id TEXT NOT NULL,
  trial_id INTEGER REFERENCES trials(id),
  experiment_id INTEGER REFERENCES experiments(id),
  report_time INTEGER NOT NULL,
  state TEXT NOT NULL,
  resources TEXT NOT NULL,
  metadata TEXT NOT NULL,
  steps_completed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX checkpoints_trial ON checkpoints(trial_id);

CREATE TABLE task_logs (
  id INTEGER PRIMARY KEY,
  task_id TEXT NOT NULL,
  allocation_id TEXT NOT NULL DEFAULT '',
  agent_id TEXT NOT NULL DEFAULT '',
  container_id TEXT NOT NULL DEFAULT '',
  rank_id INTEGER,
  timestamp INTEGER NOT NULL,
  level TEXT NOT NULL,
  log TEXT NOT NULL,
  source TEXT NOT NULL,
  stdtype TEXT NOT NULL DEFAULT ''
);
CREATE INDEX task_logs_task ON task_logs(task_id, id);
