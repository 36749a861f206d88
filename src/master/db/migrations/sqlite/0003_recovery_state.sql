-- The searcher's state (searcher::Searcher::Snapshot), written after every searcher event so a
-- restarted master continues the same search.
CREATE TABLE searcher_snapshots (
  experiment_id INTEGER PRIMARY KEY REFERENCES experiments(id),
  snapshot TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);

-- The slots an allocation holds on its agent, as a JSON list, so a restarted master knows them.
ALTER TABLE allocations ADD COLUMN slot_ids TEXT NOT NULL DEFAULT '[]';
