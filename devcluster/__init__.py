"""The jupyter-accel dev cluster: a real kube-apiserver + etcd, kwok nodes, and the real Kueue, KubeRay and
training operator, all on 127.0.0.1. See `python -m devcluster --help` and devcluster/README.md."""

from .cluster import Cluster, StartError

__all__ = ["Cluster", "StartError"]
