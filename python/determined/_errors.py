class InvalidHP(Exception):
    """
    Raise ``InvalidHP`` inside ``with det.core.init() ...`` to tell the searcher that this trial's
    hyperparameters are invalid: the early exit is reported to the master and the process exits 0.
    """

    def __init__(self, msg: str = "...") -> None:
        super().__init__(msg)
        self.msg = msg
