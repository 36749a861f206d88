-- A trial's allocations, for the display-only states (QUEUED, RUNNING) of active trials and experiments.
CREATE INDEX allocations_trial ON allocations(trial_id, start_time);
