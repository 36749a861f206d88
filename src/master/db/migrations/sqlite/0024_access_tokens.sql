-- Access tokens (POST /api/v1/tokens) are rows of user_sessions, as upstream keeps them: token_type
-- tells them from login sessions, and they carry an id (shown to users; AUTOINCREMENT never gives
-- one twice), when they were made, when they were revoked (NULL = not) and a description. SQLite
-- cannot add a primary key to a table, so the table is made anew; the old sessions stay valid.
-- The columns are in PostgreSQL's order (where they are added to the end), so that a copy between
-- the two (determined-master db copy) and its check compare like with like.
CREATE TABLE user_sessions_new (
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id),
  expiry INTEGER NOT NULL,
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  token_type TEXT NOT NULL DEFAULT 'USER_SESSION' CHECK (token_type IN ('USER_SESSION', 'ACCESS_TOKEN')),
  created_at INTEGER NOT NULL DEFAULT 0,
  revoked_at INTEGER,
  description TEXT
);
INSERT INTO user_sessions_new (token_hash, user_id, expiry, token_type, created_at)
  SELECT token_hash, user_id, expiry, 'USER_SESSION', CAST(strftime('%s', 'now') AS INTEGER) * 1000000
  FROM user_sessions;
DROP TABLE user_sessions;
ALTER TABLE user_sessions_new RENAME TO user_sessions;
CREATE INDEX user_sessions_user ON user_sessions(user_id, token_type);
