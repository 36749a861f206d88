-- A job's place in its pool's queue set by `det job update --ahead-of/--behind-of` (job_queue.h),
-- kept so a restarted master restores the queue as it was. NULL: submission order.
ALTER TABLE experiments ADD COLUMN queue_position REAL;
