-- Resource pools bound to workspaces (upstream's workspace bindings): a bound pool serves only the
-- workspaces it is bound to; an unbound pool serves every workspace.
CREATE TABLE pool_bindings (
  pool_name TEXT NOT NULL,
  workspace_id INTEGER NOT NULL,
  PRIMARY KEY (pool_name, workspace_id)
);
