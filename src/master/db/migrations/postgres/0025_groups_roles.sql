-- User groups and role assignments (upstream's RBAC). A group with user_id set is that user's personal
-- group: it holds the roles assigned to the user directly, and is never listed. A role assignment gives a
-- built-in role (master/rbac/roles.h, ids 1-10) to a group in one workspace, or cluster-wide
-- (scope_workspace_id 0). authz_state records when the rbac rule first ran (its one-time seeding).
CREATE TABLE groups (
  id BIGSERIAL PRIMARY KEY,
  group_name TEXT NOT NULL UNIQUE,
  user_id BIGINT UNIQUE
);
CREATE TABLE user_group_membership (
  user_id BIGINT NOT NULL,
  group_id BIGINT NOT NULL,
  PRIMARY KEY (user_id, group_id)
);
CREATE INDEX user_group_membership_by_group ON user_group_membership (group_id);
CREATE TABLE role_assignments (
  group_id BIGINT NOT NULL,
  role_id BIGINT NOT NULL,
  scope_workspace_id BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (group_id, role_id, scope_workspace_id)
);
CREATE INDEX role_assignments_by_workspace ON role_assignments (scope_workspace_id);
CREATE TABLE authz_state (
  id BIGINT PRIMARY KEY CHECK (id = 1),
  rbac_seeded_at BIGINT
);
