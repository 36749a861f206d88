-- Experiment notes (PATCH /api/v1/experiments/{id}) and indexes for the experiment and user lists:
-- filters on owner, state and archived, and the common sort keys.
ALTER TABLE experiments ADD COLUMN notes TEXT NOT NULL DEFAULT '';
CREATE INDEX experiments_owner ON experiments(owner_id, id);
CREATE INDEX experiments_state ON experiments(state, id);
CREATE INDEX experiments_archived ON experiments(archived, id);
CREATE INDEX experiments_start_time ON experiments(start_time);
CREATE INDEX experiments_end_time ON experiments(end_time);
CREATE INDEX experiments_name ON experiments(name);
CREATE INDEX user_sessions_user ON user_sessions(user_id);
