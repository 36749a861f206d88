-- The model registry (upstream's): models in workspaces, and their numbered versions, each a
-- registered checkpoint. Times are Unix microseconds; labels are JSON arrays, metadata JSON objects.
CREATE TABLE models (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  labels TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  workspace_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  creation_time INTEGER NOT NULL,
  last_updated_time INTEGER NOT NULL,
  last_version INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX models_workspace ON models(workspace_id);
CREATE TABLE model_versions (
  id INTEGER PRIMARY KEY,
  model_id INTEGER NOT NULL REFERENCES models(id),
  version INTEGER NOT NULL,
  checkpoint_uuid TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  comment TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  labels TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  user_id INTEGER NOT NULL,
  creation_time INTEGER NOT NULL,
  last_updated_time INTEGER NOT NULL,
  UNIQUE (model_id, version)
);
CREATE INDEX model_versions_checkpoint ON model_versions(checkpoint_uuid);
