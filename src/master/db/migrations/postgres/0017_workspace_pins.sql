-- A user's pinned workspaces (upstream's pin/unpin): shown first in their lists.
CREATE TABLE workspace_pins (
  workspace_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  pinned_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
