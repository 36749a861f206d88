import enum


class TensorboardMode(enum.Enum):
    """
    How TensorBoard data is handled. ``AUTO``: the harness writes and uploads metrics;
    ``MANUAL``: the user does. (This harness does not write TensorBoard files yet; both are
    accepted.)
    """

    AUTO = "AUTO"
    MANUAL = "MANUAL"
