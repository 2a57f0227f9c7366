"""Root pytest configuration: pytest-jupyter's server fixtures, ours, and the devcluster session fixtures."""

# devcluster's plugin comes with its package (the pytest11 entry point of devcluster/pyproject.toml)
pytest_plugins = ["pytest_jupyter.jupyter_server", "accel_fixtures"]
