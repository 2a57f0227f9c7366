"""The shared read service: one Deployment that watches the cluster-scoped objects once (nodes, the pods that hold
resources, Kueue's cluster objects) and serves them, with per-node allocations summed from the pods, to every
workbench that is configured with `AccelConfig.read_service_url`, each caller with its own token and rights.

Run it with `python -m jupyter_accel.readservice`. Modules: `keys` (what is served and who may read it, light: the
workbench side imports it), `store` (revisions and changes of one key, pure), `publish` (the caches to the store),
`auth` (TokenReview and SubjectAccessReview, cached), `handlers` and `server` (HTTP).
"""
