"""Pure functions over plain dicts (Kubernetes objects as JSON, camelCase): no I/O, unit-testable."""
