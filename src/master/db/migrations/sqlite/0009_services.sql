-- What a ready allocation serves through the master's proxy (host:port on its agent, and the OS
-- user it runs as: the one a shell's sshd lets in), so a
-- restarted master registers it again; and what an interactive task was made with (a notebook's
-- token, a shell's key pair, a TensorBoard's sources), as JSON.
ALTER TABLE allocations ADD COLUMN is_ready INTEGER NOT NULL DEFAULT 0;
ALTER TABLE allocations ADD COLUMN service_address TEXT NOT NULL DEFAULT '';
ALTER TABLE allocations ADD COLUMN service_user TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN service TEXT NOT NULL DEFAULT '{}';
