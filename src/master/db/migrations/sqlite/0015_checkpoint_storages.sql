-- Upstream's storage backends: each distinct checkpoint_storage config a checkpoint was stored with,
-- by id (a checkpoint's storageId).
CREATE TABLE checkpoint_storages (
  id INTEGER PRIMARY KEY,
  config TEXT NOT NULL UNIQUE
);
ALTER TABLE checkpoints ADD COLUMN storage_id INTEGER;
