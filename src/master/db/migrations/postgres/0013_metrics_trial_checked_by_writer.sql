-- A metric row's trial is checked by the one writer that inserts metrics (it reads every trial of a
-- batch in the same transaction and refuses a batch for a trial that does not exist), and experiments'
-- deletion removes their metrics first. The foreign key's per-row check was a third of the server's
-- work at ingest (an SPI query per row), so it goes. SQLite's check is one B-tree probe; it stays.
ALTER TABLE metrics DROP CONSTRAINT IF EXISTS metrics_trial_id_fkey;
