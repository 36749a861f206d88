-- Ids are never given twice. PostgreSQL's sequences already never do; the table SQLite keeps for it
-- (see sqlite/0012) exists here too, empty, so both schemas hold the same tables for `db copy`.
CREATE TABLE id_high_water (
  table_name TEXT PRIMARY KEY,
  max_id BIGINT NOT NULL
);
