"""The only package that imports `kubernetes`: identity, caches, writes, log streams."""
