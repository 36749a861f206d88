-- Configuration templates (reference §1f): a name, an arbitrary JSON object, and the workspace it
-- belongs to (1 = the default workspace).
CREATE TABLE templates (
  name TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  workspace_id INTEGER NOT NULL DEFAULT 1
);
