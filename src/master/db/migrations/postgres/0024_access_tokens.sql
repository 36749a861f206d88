-- Access tokens (POST /api/v1/tokens) are rows of user_sessions, as upstream keeps them: token_type
-- tells them from login sessions, and they carry an id (shown to users; a sequence never gives one
-- twice), when they were made, when they were revoked (NULL = not) and a description.
ALTER TABLE user_sessions ADD COLUMN id BIGSERIAL NOT NULL UNIQUE;
ALTER TABLE user_sessions ADD COLUMN token_type TEXT NOT NULL DEFAULT 'USER_SESSION'
  CHECK (token_type IN ('USER_SESSION', 'ACCESS_TOKEN'));
ALTER TABLE user_sessions ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE user_sessions SET created_at = (EXTRACT(EPOCH FROM now()) * 1000000)::BIGINT;
ALTER TABLE user_sessions ADD COLUMN revoked_at BIGINT;
ALTER TABLE user_sessions ADD COLUMN description TEXT;
DROP INDEX user_sessions_user;
CREATE INDEX user_sessions_user ON user_sessions(user_id, token_type);
