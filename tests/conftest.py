"""Root pytest configuration: pytest-jupyter's server fixtures and the devcluster session fixtures."""

pytest_plugins = ["pytest_jupyter.jupyter_server"]
