"""Root pytest configuration: pytest-jupyter's server fixtures, ours, and the devcluster session fixtures."""

pytest_plugins = ["pytest_jupyter.jupyter_server", "accel_fixtures", "devcluster.pytest_plugin"]
