-- Workspaces and projects (upstream's): the immutable "Uncategorized" workspace 1 and its project 1,
-- where every experiment is unless moved. Times are Unix microseconds; user ids are plain (the
-- users' rows come and go with a copy of the cluster).
CREATE TABLE workspaces (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  archived INTEGER NOT NULL DEFAULT 0,
  immutable INTEGER NOT NULL DEFAULT 0,
  user_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  agent_user_group TEXT,
  checkpoint_storage_config TEXT,
  default_compute_pool TEXT NOT NULL DEFAULT '',
  default_aux_pool TEXT NOT NULL DEFAULT ''
);
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  description TEXT NOT NULL DEFAULT '',
  archived INTEGER NOT NULL DEFAULT 0,
  immutable INTEGER NOT NULL DEFAULT 0,
  user_id INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  notes TEXT NOT NULL DEFAULT '[]',
  key TEXT NOT NULL UNIQUE,
  UNIQUE (workspace_id, name)
);
INSERT INTO workspaces (id, name, immutable, user_id, created_at) VALUES (1, 'Uncategorized', 1, 1, 0);
INSERT INTO projects (id, name, workspace_id, immutable, user_id, created_at, key)
  VALUES (1, 'Uncategorized', 1, 1, 1, 0, 'UNCAT');
ALTER TABLE experiments ADD COLUMN project_id INTEGER NOT NULL DEFAULT 1;
CREATE INDEX experiments_project ON experiments(project_id);
