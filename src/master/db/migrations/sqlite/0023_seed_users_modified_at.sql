-- admin and determined were seeded with modified_at 0 (1970); upstream stamps them when they are
-- created. Rows never changed since get the time of this migration (microseconds since the epoch).
UPDATE users SET modified_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000000 WHERE modified_at = 0;
