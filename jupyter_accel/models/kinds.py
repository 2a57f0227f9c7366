"""The job kinds the wire knows: one enum, free of pydantic, so the kernel reads it without loading the models
(`%load_ext jupyter_accel` imports no pydantic). What each kind is lives in domain/kinds/."""

from __future__ import annotations

from enum import StrEnum


class JobKind(StrEnum):
    ray_cluster = "ray-cluster"  # KubeRay RayCluster, interactive
    ray_job = "ray-job"  # KubeRay RayJob, batch
    pytorch = "pytorch"  # Kubeflow Training Operator v1 PyTorchJob (legacy)
    trainjob = "trainjob"  # Kubeflow Trainer v2 TrainJob
