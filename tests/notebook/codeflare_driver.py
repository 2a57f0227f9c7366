"""Run by the CodeFlare interop test in CodeFlare SDK's own virtualenv (scripts/interop-venv.sh codeflare), with
KUBECONFIG naming the notebook user: the SDK as a user runs it, beside jupyter-accel. One command per run; the
last line printed is a JSON answer.

  make NAME NAMESPACE QUEUE [IMAGE]   a head-only RayCluster, as ClusterConfiguration builds it
  list NAMESPACE                      list_all_clusters, then the view_clusters widgets on every cluster
  delete NAME NAMESPACE
"""

from __future__ import annotations

import json
import sys


def make(name: str, namespace: str, queue: str, image: str | None = None) -> dict:
    from codeflare_sdk import Cluster, ClusterConfiguration

    config = ClusterConfiguration(
        name=name,
        namespace=namespace,
        num_workers=0,
        head_cpu_requests="250m",
        head_cpu_limits=1,
        head_memory_requests=1,
        head_memory_limits=2,
        local_queue=queue,
        image=image or "",
        verify_tls=False,
    )
    cluster = Cluster(config)
    rc = cluster.resource_yaml
    if image:
        # The SDK pulls its images with policy Always; the real node's image is in its store only and has no
        # registry to pull from. The one change made to what the SDK built.
        for c in rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"]:
            c["imagePullPolicy"] = "IfNotPresent"
    cluster.up()
    return {"name": name, "image": rc["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"]}


def listing(namespace: str) -> dict:
    from codeflare_sdk import list_all_clusters
    from codeflare_sdk.common.widgets.widgets import RayClusterManagerWidgets, _fetch_cluster_data

    clusters = list_all_clusters(namespace, print_to_console=True)
    # view_clusters() without its "only in a notebook" guard: the same data, the same widgets
    frame = _fetch_cluster_data(namespace)
    shown = []
    if not frame.empty:
        manager = RayClusterManagerWidgets(ray_clusters_df=frame, namespace=namespace)
        for name in frame["Name"].tolist():
            manager._on_cluster_click({"new": name})
            shown.append(name)
        manager.display_widgets()
    return {
        "clusters": {c.name: {"status": c.status.name, "workers": c.num_workers} for c in clusters},
        "widgets": shown,
    }


def delete(name: str, namespace: str) -> dict:
    from codeflare_sdk import get_cluster

    get_cluster(name, namespace, verify_tls=False).down()
    return {"deleted": name}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    answer = {"make": make, "list": listing, "delete": delete}[command](*args)
    print(json.dumps(answer))
