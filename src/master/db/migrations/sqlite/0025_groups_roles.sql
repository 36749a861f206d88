-- User groups and role assignments (upstream's RBAC). A group with user_id set is that user's personal
-- group: it holds the roles assigned to the user directly, and is never listed. A role assignment gives a
-- built-in role (master/rbac/roles.h, ids 1-10) to a group in one workspace, or cluster-wide
-- (scope_workspace_id 0). authz_state records when the rbac rule first ran (its one-time seeding).
CREATE TABLE groups (
  id INTEGER PRIMARY KEY,
  group_name TEXT NOT NULL UNIQUE,
  user_id INTEGER UNIQUE
);
CREATE TABLE user_group_membership (
  user_id INTEGER NOT NULL,
  group_id INTEGER NOT NULL,
  PRIMARY KEY (user_id, group_id)
);
CREATE INDEX user_group_membership_by_group ON user_group_membership (group_id);
CREATE TABLE role_assignments (
  group_id INTEGER NOT NULL,
  role_id INTEGER NOT NULL,
  scope_workspace_id INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (group_id, role_id, scope_workspace_id)
);
CREATE INDEX role_assignments_by_workspace ON role_assignments (scope_workspace_id);
CREATE TABLE authz_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  rbac_seeded_at INTEGER
);
