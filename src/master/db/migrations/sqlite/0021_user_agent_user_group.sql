-- A user's agent user group (`det user link-with-agent-user`): the OS user and group that the user's
-- tasks run as when their workspace names none. NULL = none.
ALTER TABLE users ADD COLUMN agent_user_group TEXT;
