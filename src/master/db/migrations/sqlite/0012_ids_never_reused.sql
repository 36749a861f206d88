-- Ids are never given twice. An INTEGER PRIMARY KEY gives a new row one more than the highest id in
-- the table, so deleting the newest experiment gave its id (and its trials' ids) to the next one, and
-- outside records pointed at the wrong run. The highest id ever deleted is kept here, and new
-- experiments and trials start above it (NeverReusedId in sql_dialect.h).
CREATE TABLE id_high_water (
  table_name TEXT PRIMARY KEY,
  max_id INTEGER NOT NULL
);
CREATE TRIGGER experiments_id_high_water AFTER DELETE ON experiments BEGIN
  INSERT INTO id_high_water (table_name, max_id) VALUES ('experiments', OLD.id)
    ON CONFLICT (table_name) DO UPDATE SET max_id = max(max_id, excluded.max_id);
END;
CREATE TRIGGER trials_id_high_water AFTER DELETE ON trials BEGIN
  INSERT INTO id_high_water (table_name, max_id) VALUES ('trials', OLD.id)
    ON CONFLICT (table_name) DO UPDATE SET max_id = max(max_id, excluded.max_id);
END;
