"""The grading workers on Kubernetes: a DaskCluster resource of the dask-kubernetes operator,
built by the operator's own `make_cluster_spec`, whose worker pods get what the grading sandbox
needs there (docs/scaling.md: root, SYS_ADMIN and NET_ADMIN, no runtime seccomp or AppArmor
profile in bubblewrap's way, a node pool of their own). `agentlab course autograde --scheduler`
then grades on it. Needs `pip install dask-kubernetes`; builds without a cluster."""

from __future__ import annotations

from typing import Any


def cluster_spec(settings: dict[str, Any]) -> dict[str, Any]:
    """The DaskCluster of `settings` (the grading.yaml of docs/scaling.md): its "cluster" as
    make_cluster_spec's arguments, its "worker_pod" given to every worker: "securityContext"
    to the worker's container, "pod" (node selector, tolerations, runtime class) to its pod."""
    from dask_kubernetes.operator import make_cluster_spec

    spec = make_cluster_spec(**settings["cluster"])
    pod = spec["spec"]["worker"]["spec"]
    pod["containers"][0]["securityContext"] = settings["worker_pod"]["securityContext"]
    pod.update(settings["worker_pod"].get("pod", {}))
    return spec
