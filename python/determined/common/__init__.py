"""Pieces shared by the Python SDK (``determined.experimental.client``): the REST session to a
master (``determined.common.api``), the model-definition packer (``determined.common.context``)
and the SDK's objects (``determined.common.experimental``)."""
