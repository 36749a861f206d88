"""Programs that run inside tasks: the notebook, shell and TensorBoard runners."""
