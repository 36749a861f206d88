-- Trials that used a checkpoint (upstream's trial source infos): an inference or fine-tuning run
-- linked to the checkpoint it loaded, and to the model version that holds it when it named one, so
-- that the metrics it reports can be found from the checkpoint or the version.
CREATE TABLE trial_source_infos (
  trial_id BIGINT NOT NULL,
  checkpoint_uuid TEXT NOT NULL,
  model_id BIGINT,
  model_version BIGINT,
  trial_source_info_type TEXT NOT NULL
);
CREATE INDEX trial_source_infos_checkpoint ON trial_source_infos(checkpoint_uuid);
CREATE INDEX trial_source_infos_model_version ON trial_source_infos(model_id, model_version);
