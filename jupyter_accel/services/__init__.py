"""What the product does, between the HTTP layer and the caches: explicit dependencies in, domain errors out
(services/errors.py; api/base.py turns each into one HTTP status)."""
