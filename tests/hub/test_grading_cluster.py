"""The grading cluster of docs/scaling.md as the objects that judge it see it, offline: the
DaskCluster of grading.yaml under the openAPIV3Schema of the CRD that the installed
dask-kubernetes ships in its Helm chart (validated, and pruned as the API server prunes a
custom resource); the DaskWorkerGroup and worker Deployment the operator makes from it, built
with the operator's own functions along its handlers' code path (the handlers themselves need
a cluster), checked against their CRD and the Kubernetes client's models; and the scheduler's
service name the docs give. No cluster is needed; nothing here has run on one."""

from __future__ import annotations

import copy
import functools
import json
import re
from pathlib import Path
from typing import Any

import dask_kubernetes
import jsonschema
import kopf
import kubernetes.client
import yaml
from dask_kubernetes.operator.controller import controller

from agentlab_magics.grading.kubernetes import cluster_spec, main
from tests.hub.test_scaling import DOC, GRADING, INGRESS, _selects, _yaml, user_pod

CRDS = (Path(dask_kubernetes.__file__).parent
        / "operator" / "deployment" / "helm" / "dask-kubernetes-operator" / "crds")
# What the API server keeps at a custom resource's root whatever its schema says.
ROOT = ("apiVersion", "kind", "metadata")
UNKNOWN: dict[str, Any] = {"x-kubernetes-preserve-unknown-fields": True}
APPARMOR = "container.apparmor.security.beta.kubernetes.io/"


@functools.cache
def schema(kind: str) -> dict[str, Any]:
    """The openAPIV3Schema of the CRD for `kind` ("daskcluster", ...) the operator's chart
    installs: the schema the API server judges that kind by."""
    text = (CRDS / f"{kind}.yaml").read_text(encoding="utf-8")
    crd = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    [version] = [given for given in crd["spec"]["versions"] if given["storage"]]
    return version["schema"]["openAPIV3Schema"]


def pruned(value: Any, node: dict[str, Any]) -> Any:
    """`value` as the API server keeps it under the structural schema `node`: an object keeps
    the fields its `properties` name (every key of an additionalProperties map; unknown fields
    too where it preserves them), and no null the schema does not call nullable."""
    if isinstance(value, list):
        return [pruned(item, node.get("items", UNKNOWN)) for item in value]
    if not isinstance(value, dict):
        return value
    if isinstance(node.get("additionalProperties"), dict):
        fields = dict.fromkeys(value, node["additionalProperties"])
    else:
        fields = node.get("properties", {})
    if node.get("x-kubernetes-preserve-unknown-fields"):
        fields = dict.fromkeys(value, UNKNOWN) | fields
    return {key: item if fields[key] is UNKNOWN else pruned(item, fields[key])
            for key, item in value.items()
            if key in fields and (item is not None or fields[key].get("nullable", False)
                                  or fields[key] is UNKNOWN)}


def stored(made: dict[str, Any], kind: str) -> dict[str, Any]:
    """The custom resource `made` as the API server stores it: valid under its CRD's schema
    (else jsonschema raises), pruned by it, its root's apiVersion, kind and metadata kept."""
    body = {key: value for key, value in made.items() if key not in ROOT}
    kept = pruned(body, schema(kind)) | {key: made[key] for key in ROOT if key in made}
    jsonschema.Draft4Validator(schema(kind)).validate(kept)
    return kept


def core(made: dict[str, Any], model: str) -> dict[str, Any]:
    """`made` read as the Kubernetes client's `model` and written back: only what the core
    API knows survives, and a missing required field raises."""
    with kubernetes.client.ApiClient() as client:
        read = client.deserialize(json.dumps(made), model, "application/json")
        return client.sanitize_for_serialization(read)


def _inherited(owner: dict[str, Any], worker: dict[str, Any], field: str) -> dict[str, str]:
    """The `field` ("annotations" or "labels") the operator's handlers give what they make for
    `owner`'s `worker`: the owner's own (less kopf's), then the worker's metadata over them."""
    meta = kopf.Body(owner).meta
    own = (controller._get_annotations if field == "annotations" else controller._get_labels)(meta)
    return own | worker.get("metadata", {}).get(field, {})


def worker_deployment(cluster: dict[str, Any], namespace: str = "NAMESPACE") -> dict[str, Any]:
    """The worker Deployment the operator makes for the stored DaskCluster `cluster`, as
    daskcluster_create_components makes its default DaskWorkerGroup (stored under its CRD) and
    daskworkergroup_replica_update makes a worker of that group."""
    name, worker = cluster["metadata"]["name"], cluster["spec"]["worker"]
    group = stored(controller.build_default_worker_group_spec(
        name, worker, _inherited(cluster, worker, "annotations"),
        _inherited(cluster, worker, "labels")), "daskworkergroup")
    worker = group["spec"]["worker"]
    return controller.build_worker_deployment_spec(
        worker_group_name=group["metadata"]["name"], namespace=namespace, cluster_name=name,
        uuid="0", pod_spec=worker["spec"], annotations=_inherited(group, worker, "annotations"),
        labels=_inherited(group, worker, "labels"))


def _within(part: Any, whole: Any) -> bool:
    """Whether `whole` says all `part` says: a dict's keys alike, each dict in a list of dicts
    within one of `whole`'s, any other value equal."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            key in whole and _within(value, whole[key]) for key, value in part.items())
    if isinstance(part, list) and part and all(isinstance(item, dict) for item in part):
        return isinstance(whole, list) and all(
            any(_within(item, given) for given in whole) for item in part)
    return part == whole


CLUSTER = cluster_spec(GRADING)


def test_the_crd_keeps_all_of_the_grading_cluster():
    assert stored(CLUSTER, "daskcluster") == CLUSTER


def test_the_crd_would_drop_an_apparmor_field_which_is_why_the_profile_is_an_annotation():
    made = copy.deepcopy(CLUSTER)
    pod = made["spec"]["worker"]["spec"]
    pod["containers"][0]["securityContext"]["appArmorProfile"] = {"type": "Unconfined"}
    pod["securityContext"] = {"appArmorProfile": {"type": "Unconfined"}}
    kept = stored(made, "daskcluster")["spec"]["worker"]["spec"]
    assert kept["containers"][0]["securityContext"] == \
        CLUSTER["spec"]["worker"]["spec"]["containers"][0]["securityContext"]
    assert kept["securityContext"] == {}


def test_the_worker_pod_the_operator_makes_runs_without_apparmor_on_the_grading_pool():
    deployment = core(worker_deployment(stored(CLUSTER, "daskcluster")), "V1Deployment")
    pod = deployment["spec"]["template"]
    [container] = pod["spec"]["containers"]
    assert pod["metadata"]["annotations"] == {APPARMOR + container["name"]: "unconfined"}
    assert container["securityContext"]["capabilities"] == {"add": ["SYS_ADMIN", "NET_ADMIN"]}
    assert container["securityContext"]["seccompProfile"] == {"type": "Unconfined"}
    assert pod["spec"]["nodeSelector"] == {"agentlab/pool": "grading"}
    assert _selects(INGRESS["spec"]["ingress"][0]["from"][1]["podSelector"],
                    pod["metadata"]["labels"])  # network.yaml lets it reach the scheduler


def test_the_grading_workers_pod_in_the_instructors_guide_is_the_operators():
    [documented] = [yaml.safe_load(block) for block in _yaml(DOC.parent / "instructors.md")
                    if block.startswith("# a grading worker's pod")]
    made = worker_deployment(stored(CLUSTER, "daskcluster"))["spec"]["template"]
    assert _within(documented, made)


def test_every_scheduler_address_in_the_docs_is_the_service_the_operator_makes():
    scheduler = CLUSTER["spec"]["scheduler"]
    service = core(controller.build_scheduler_service_spec(
        CLUSTER["metadata"]["name"], scheduler["service"], {}, {}), "V1Service")
    pages = "".join((DOC.parent / page).read_text(encoding="utf-8")
                    for page in ("scaling.md", "instructors.md"))
    hosts = re.findall(r"tcp://([\w.-]*scheduler[\w.-]*):8786", pages)
    assert hosts
    assert {host.split(".")[0] for host in hosts} == {service["metadata"]["name"]}


def test_the_administrator_makes_the_cluster_and_no_user_pod_holds_a_credential(
        tmp_path, capsys):
    grading = tmp_path / "grading.yaml"
    grading.write_text(yaml.safe_dump(GRADING), encoding="utf-8")
    assert main([str(grading)]) == 0
    assert json.loads(capsys.readouterr().out) == CLUSTER  # what kubectl apply is given
    page = DOC.read_text(encoding="utf-8")
    assert "python -m agentlab_magics.grading.kubernetes grading.yaml | kubectl apply" in page
    for slug in ("student", "instructor"):
        spec = user_pod(slug)["spec"]
        assert spec["automountServiceAccountToken"] is False
        assert "serviceAccountName" not in spec
    for page in ("scaling.md", "instructors.md"):  # nor does a page start one from a user pod
        assert "KubeCluster(" not in (DOC.parent / page).read_text(encoding="utf-8")
