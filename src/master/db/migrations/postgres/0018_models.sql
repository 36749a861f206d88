-- The model registry (upstream's): models in workspaces, and their numbered versions, each a
-- registered checkpoint. Times are Unix microseconds; labels are JSON arrays, metadata JSON objects.
CREATE TABLE models (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  labels TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  workspace_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  archived BIGINT NOT NULL DEFAULT 0,
  creation_time BIGINT NOT NULL,
  last_updated_time BIGINT NOT NULL,
  last_version BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX models_workspace ON models(workspace_id);
CREATE TABLE model_versions (
  id BIGSERIAL PRIMARY KEY,
  model_id BIGINT NOT NULL REFERENCES models(id),
  version BIGINT NOT NULL,
  checkpoint_uuid TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  comment TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  labels TEXT NOT NULL DEFAULT '[]',
  notes TEXT NOT NULL DEFAULT '',
  user_id BIGINT NOT NULL,
  creation_time BIGINT NOT NULL,
  last_updated_time BIGINT NOT NULL,
  UNIQUE (model_id, version)
);
CREATE INDEX model_versions_checkpoint ON model_versions(checkpoint_uuid);
