-- The events given to an experiment's searcher since its last snapshot (searcher/searcher_journal.h):
-- a search writes these, tens of bytes each, instead of its whole state after every event. Writing a
-- snapshot deletes the experiment's events in the same transaction; seq counts from 0 again after it.
CREATE TABLE searcher_events (
  experiment_id INTEGER NOT NULL REFERENCES experiments(id),
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (experiment_id, seq)
);
