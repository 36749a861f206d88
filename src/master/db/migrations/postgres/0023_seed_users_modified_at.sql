-- admin and determined were seeded with modified_at 0 (1970); upstream stamps them when they are
-- created. Rows never changed since get the time of this migration (microseconds since the epoch).
UPDATE users SET modified_at = (EXTRACT(EPOCH FROM now()) * 1000000)::BIGINT WHERE modified_at = 0;
