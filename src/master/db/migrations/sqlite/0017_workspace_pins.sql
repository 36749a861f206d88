-- A user's pinned workspaces (upstream's pin/unpin): shown first in their lists.
CREATE TABLE workspace_pins (
  workspace_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);
