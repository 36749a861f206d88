"""A fake Kubernetes API server for tests: see fake_apiserver.py for what it implements and what it does not."""
