-- Checkpoint GC (reference §9): set when an experiment ends, cleared once every checkpoint its policy lets go
-- is deleted from storage, so a master that restarts finishes what it had not.
ALTER TABLE experiments ADD COLUMN checkpoint_gc_pending INTEGER NOT NULL DEFAULT 0;
