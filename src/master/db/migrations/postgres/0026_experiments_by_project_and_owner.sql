-- A workspace-narrowed experiment list (rbac: the workspaces a user may see) finds its rows, and counts
-- them, from this index alone; it also serves every lookup by project that experiments_project served.
CREATE INDEX experiments_project_owner ON experiments(project_id, owner_id);
DROP INDEX experiments_project;
