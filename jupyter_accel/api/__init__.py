"""Tornado handlers of the REST API: thin, authenticated, JSON in and out."""
