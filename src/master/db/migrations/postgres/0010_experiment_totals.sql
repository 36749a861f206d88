-- Each experiment's number of trials and checkpoint totals, kept current as trials and checkpoints
-- come and go (never recomputed by scans), so that sorting the list by them is an index walk.
ALTER TABLE experiments ADD COLUMN num_trials BIGINT NOT NULL DEFAULT 0;
ALTER TABLE experiments ADD COLUMN checkpoint_size BIGINT NOT NULL DEFAULT 0;
ALTER TABLE experiments ADD COLUMN checkpoint_count BIGINT NOT NULL DEFAULT 0;
UPDATE experiments SET
  num_trials = (SELECT count(*) FROM trials t WHERE t.experiment_id = experiments.id),
  checkpoint_size = (SELECT coalesce(sum(t.total_checkpoint_size), 0) FROM trials t WHERE t.experiment_id = experiments.id),
  checkpoint_count = (SELECT coalesce(sum(t.checkpoint_count), 0) FROM trials t WHERE t.experiment_id = experiments.id);
CREATE INDEX experiments_num_trials ON experiments(num_trials, id);
CREATE INDEX experiments_checkpoint_size ON experiments(checkpoint_size, id);
CREATE INDEX experiments_checkpoint_count ON experiments(checkpoint_count, id);
