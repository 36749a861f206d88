-- How many days a trial's logs are kept after it ends (upstream's log_retention_days): its experiment
-- config's retention_policy, or what `det experiment set log-retention` set; -1 forever; NULL the
-- master's retention_policy.
ALTER TABLE trials ADD COLUMN log_retention_days INTEGER;
