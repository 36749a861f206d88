import enum


class TensorboardMode(enum.Enum):
    """
    How TensorBoard files are handled. Files written under
    ``core_context.train.get_tensorboard_path()`` (by any library) go to the experiment's checkpoint
    storage under ``tensorboard/experiment/E/trial/T/``, where ``det tensorboard start`` reads them.

    ``AUTO``: the chief uploads its new or changed files after every metric report and when the
    context closes; other workers' files are uploaded only by ``upload_tensorboard_files()``.
    ``MANUAL``: nothing is uploaded unless ``upload_tensorboard_files()`` is called.

    Unlike upstream, the harness does not write reported metrics as TensorBoard scalars itself
    (that needs TensorFlow or tensorboardX); write them with the library of your choice.
    """

    AUTO = "AUTO"
    MANUAL = "MANUAL"
