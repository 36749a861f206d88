-- Tasks of every type (trials, commands, generic tasks, ...) with their own table; allocations name
-- their task only. Existing trials become TRIAL tasks owned by their experiment's owner.
CREATE TABLE tasks (
  task_id TEXT PRIMARY KEY,
  task_type TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  job_id TEXT NOT NULL DEFAULT '',
  workspace_id INTEGER NOT NULL DEFAULT 1,
  description TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}',
  state TEXT NOT NULL,
  start_time INTEGER NOT NULL,
  end_time INTEGER,
  exit_status TEXT NOT NULL DEFAULT '',
  exit_code INTEGER,
  queue_position REAL,
  forked_from TEXT NOT NULL DEFAULT '',
  context BLOB NOT NULL DEFAULT x''
);
CREATE INDEX tasks_type_state ON tasks(task_type, state);

INSERT INTO tasks (task_id, task_type, owner_id, job_id, state, start_time, end_time)
  SELECT t.task_id, 'TRIAL', e.owner_id, e.job_id,
         CASE WHEN t.state IN ('COMPLETED', 'CANCELED', 'ERROR') THEN t.state ELSE 'ACTIVE' END,
         t.start_time, t.end_time
  FROM trials t JOIN experiments e ON e.id = t.experiment_id;

-- Where an allocation runs, so a restarted master puts it back in its pool's snapshot.
ALTER TABLE allocations ADD COLUMN resource_pool TEXT NOT NULL DEFAULT '';
