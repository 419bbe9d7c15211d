"""The grading workers on Kubernetes: a DaskCluster resource of the dask-kubernetes operator,
built by the operator's own `make_cluster_spec`, whose worker pods get what the grading sandbox
needs there (docs/scaling.md: root, SYS_ADMIN and NET_ADMIN, no runtime seccomp or AppArmor
profile in bubblewrap's way, a node pool of their own). `agentlab course autograde --scheduler`
then grades on it. Needs `pip install dask-kubernetes`; builds without a cluster.

`python -m agentlab_magics.grading.kubernetes grading.yaml | kubectl apply -f -` is how an
administrator makes the cluster with their own credentials (docs/scaling.md says why no user
pod holds any)."""

from __future__ import annotations

import json
import sys
from typing import Any

# The pod annotation that names a container's AppArmor profile. The DaskCluster CRD's pod schema
# has no appArmorProfile field (the API server would prune one), but it keeps the worker's
# metadata.annotations, which the operator copies onto every worker pod.
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/{container}"
APPARMOR_NAMES = {"Unconfined": "unconfined", "RuntimeDefault": "runtime/default"}


def cluster_spec(settings: dict[str, Any]) -> dict[str, Any]:
    """The DaskCluster of `settings` (the grading.yaml of docs/scaling.md), holding no field the
    operator's CRD prunes: its "cluster" as make_cluster_spec's arguments; its "worker_pod"
    given to every worker: "securityContext" to the worker's container (its appArmorProfile as
    the worker pod's annotation), "pod" (node selector, tolerations, runtime class) to its pod."""
    from dask_kubernetes.operator import make_cluster_spec

    spec = _without_nulls(make_cluster_spec(**settings["cluster"]))
    worker = spec["spec"]["worker"]
    [container] = worker["spec"]["containers"]
    security = dict(settings["worker_pod"]["securityContext"])
    profile = security.pop("appArmorProfile", None)
    container["securityContext"] = security
    if profile is not None:
        annotations = worker.setdefault("metadata", {}).setdefault("annotations", {})
        annotations[APPARMOR_ANNOTATION.format(container=container["name"])] = \
            apparmor_annotation(profile)
    worker["spec"].update(settings["worker_pod"].get("pod", {}))
    return spec


def apparmor_annotation(profile: dict[str, str]) -> str:
    """The annotation's value naming the same profile as the appArmorProfile field `profile`."""
    if profile["type"] == "Localhost":
        return f"localhost/{profile['localhostProfile']}"
    return APPARMOR_NAMES[profile["type"]]


def _without_nulls(made: Any) -> Any:
    """`made` without its null values, which the API server prunes from a custom resource."""
    if isinstance(made, dict):
        return {key: _without_nulls(value) for key, value in made.items() if value is not None}
    if isinstance(made, list):
        return [_without_nulls(item) for item in made]
    return made


def main(argv: list[str]) -> int:
    """Print the DaskCluster of the grading.yaml named in `argv` as JSON, for kubectl apply."""
    import yaml  # dask's own dependency, so there wherever dask-kubernetes is

    if len(argv) != 1:
        print("usage: python -m agentlab_magics.grading.kubernetes grading.yaml", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as file:
            settings = yaml.safe_load(file)
        made = cluster_spec(settings)
    except OSError as exc:
        return _refused(f"Cannot read {argv[0]} ({exc.strerror}): give the path of the "
                        "grading.yaml that docs/scaling.md describes.")
    except yaml.YAMLError as exc:
        return _refused(f"{argv[0]} is not YAML ({type(exc).__name__}): fix it as "
                        "docs/scaling.md's grading.yaml shows.")
    except (KeyError, TypeError, ValueError) as exc:
        return _refused(f"{argv[0]} lacks or misspells a setting ({exc!r}): it needs a "
                        "\"cluster\" and a \"worker_pod\" with a \"securityContext\", as "
                        "docs/scaling.md's grading.yaml shows.")
    print(json.dumps(made, indent=2))
    return 0


def _refused(sentence: str) -> int:
    print(sentence, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
