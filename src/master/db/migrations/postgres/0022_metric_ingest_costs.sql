-- Three costs of the server's at metric ingest (perf, bench/RESULTS.md), each a setting:
-- * metrics' id sequence hands each writer connection 1,000 ids at a time instead of locking the
--   sequence (and logging it every 32 ids) for each row. A connection's ids still only grow, so a
--   trial's rows (always written by one connection) keep their order; ids between connections
--   interleave as they did, and unused ids of a connection that ends are skipped.
-- * metrics_trial_group's keys are unique, so trying to deduplicate a full leaf page before it is
--   split found nothing and was wasted work (PostgreSQL 13 and later have the setting).
-- * trials' summaries are written again with every batch of reports; a summary of many metrics is
--   compressed when stored, and lz4 does that several times faster than the default pglz
--   (PostgreSQL 14 and later, when built with lz4, as Debian's is).
DO $$
BEGIN
  EXECUTE format('ALTER SEQUENCE %s CACHE 1000', pg_get_serial_sequence('metrics', 'id'));
  IF current_setting('server_version_num')::int >= 130000 THEN
    EXECUTE 'ALTER INDEX metrics_trial_group SET (deduplicate_items = off)';
  END IF;
  IF current_setting('server_version_num')::int >= 140000 THEN
    BEGIN
      EXECUTE 'ALTER TABLE trials ALTER COLUMN summary_metrics SET COMPRESSION lz4';
    EXCEPTION WHEN feature_not_supported THEN
      NULL;  -- a server built without lz4 keeps pglz
    END;
  END IF;
END $$;
