-- Workspaces and projects (upstream's): the immutable "Uncategorized" workspace 1 and its project 1,
-- where every experiment is unless moved. Times are Unix microseconds; user ids are plain (the
-- users' rows come and go with a copy of the cluster).
CREATE TABLE workspaces (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  archived BIGINT NOT NULL DEFAULT 0,
  immutable BIGINT NOT NULL DEFAULT 0,
  user_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  agent_user_group TEXT,
  checkpoint_storage_config TEXT,
  default_compute_pool TEXT NOT NULL DEFAULT '',
  default_aux_pool TEXT NOT NULL DEFAULT ''
);
CREATE TABLE projects (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  workspace_id BIGINT NOT NULL REFERENCES workspaces(id),
  description TEXT NOT NULL DEFAULT '',
  archived BIGINT NOT NULL DEFAULT 0,
  immutable BIGINT NOT NULL DEFAULT 0,
  user_id BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  notes TEXT NOT NULL DEFAULT '[]',
  key TEXT NOT NULL UNIQUE,
  UNIQUE (workspace_id, name)
);
INSERT INTO workspaces (id, name, immutable, user_id, created_at) VALUES (1, 'Uncategorized', 1, 1, 0);
INSERT INTO projects (id, name, workspace_id, immutable, user_id, created_at, key)
  VALUES (1, 'Uncategorized', 1, 1, 1, 0, 'UNCAT');
ALTER TABLE experiments ADD COLUMN project_id BIGINT NOT NULL DEFAULT 1;
CREATE INDEX experiments_project ON experiments(project_id);
SELECT setval(pg_get_serial_sequence('workspaces', 'id'), 1);
SELECT setval(pg_get_serial_sequence('projects', 'id'), 1);
