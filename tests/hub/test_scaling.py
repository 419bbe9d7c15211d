"""docs/scaling.md's YAML, built offline into the objects it makes: KubeSpawner's make_pod for
a student's and the instructor's pod (the z2jh values, read as z2jh hands them to KubeSpawner),
dask-kubernetes' make_cluster_spec for the grading cluster, and the network policies beside
them. No cluster is needed; the YAML is read from the page itself, so the page cannot drift."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path

import yaml
from jupyterhub.traitlets import ByteSpecification
from kubernetes_asyncio.client import ApiClient
from kubespawner import objects

from agentlab_magics.grading.kubernetes import cluster_spec
from agentlab_magics.grading.limits import LIMITS
from agentlab_magics.hub import defaults

DOC = Path(__file__).resolve().parents[2] / "docs" / "scaling.md"
EXCHANGE = "/srv/nbgrader/exchange"


def _yaml(page: Path) -> list[str]:
    """The texts of a page's YAML blocks."""
    return re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def _blocks() -> dict:
    """The page's YAML blocks, by the file name their first line gives."""
    return {text.split(":", 1)[0].lstrip("# "): yaml.safe_load(text) for text in _yaml(DOC)}


BLOCKS = _blocks()
VALUES, GRADING = BLOCKS["config.yaml"], BLOCKS["grading.yaml"]
EGRESS, INGRESS = BLOCKS["network.yaml"]


def _plain(made) -> dict:
    """`made` as the JSON Kubernetes is sent (its client needs an event loop to exist)."""
    async def sent():
        async with ApiClient() as client:
            return client.sanitize_for_serialization(made)

    return asyncio.run(sent())


def user_pod(slug: str) -> dict:
    """The pod KubeSpawner makes for a user of profile `slug`: z2jh's singleuser values under
    KubeSpawner's names, the profile's kubespawner_override over them."""
    single = VALUES["singleuser"]
    settings = {
        "image": f"{single['image']['name']}:{single['image']['tag']}",
        "uid": single["uid"], "fs_gid": single["fsGid"],
        "mem_limit": single["memory"]["limit"], "mem_guarantee": single["memory"]["guarantee"],
        "cpu_limit": single["cpu"]["limit"], "cpu_guarantee": single["cpu"]["guarantee"],
        "volumes": single["storage"]["extraVolumes"],
        "volume_mounts": single["storage"]["extraVolumeMounts"],
        "labels": {"component": "singleuser-server"},
        "service_account": single.get("serviceAccountName"),
    }
    [profile] = [given for given in single["profileList"] if given["slug"] == slug]
    override = dict(profile.get("kubespawner_override", {}))
    settings["labels"] |= override.pop("extra_labels", {})
    settings |= override
    for name in ("mem_limit", "mem_guarantee"):
        settings[name] = ByteSpecification().validate(None, settings[name])
    return _plain(objects.make_pod(name=f"jupyter-{slug}", cmd=["jupyterhub-singleuser"],
                                   port=8888, **settings))


def _selects(selector: dict, labels: dict) -> bool:
    return selector["matchLabels"].items() <= labels.items()


def test_a_students_pod_is_bounded_unprivileged_and_mounts_the_exchange():
    pod = user_pod("student")
    [container] = pod["spec"]["containers"]
    assert container["resources"]["limits"] == {"cpu": 1, "memory": defaults.MEMORY_MB << 20}
    assert container["resources"]["requests"] == {"cpu": 0.1, "memory": 256 << 20}
    assert container["securityContext"] == {"runAsUser": 1000, "allowPrivilegeEscalation": False}
    assert pod["spec"]["securityContext"] == {"fsGroup": 100}
    assert {"name": "exchange", "mountPath": EXCHANGE} in container["volumeMounts"]
    assert {"name": "exchange", "persistentVolumeClaim": {"claimName": "agentlab-exchange"}} \
        in pod["spec"]["volumes"]
    assert not _selects(EGRESS["spec"]["podSelector"], pod["metadata"]["labels"])
    assert "networkPolicy" not in VALUES["singleuser"]  # students keep z2jh's closed default


def test_the_instructors_pod_has_more_room_its_own_image_and_alone_reaches_grading():
    pod = user_pod("instructor")
    [container] = pod["spec"]["containers"]
    assert container["resources"]["limits"] == {"cpu": 2, "memory": 4 << 30}
    assert container["image"].startswith("registry.example.edu/agentlab-instructor:")
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert {"name": "exchange", "mountPath": EXCHANGE} in container["volumeMounts"]
    assert _selects(EGRESS["spec"]["podSelector"], pod["metadata"]["labels"])
    assert any(_selects(source["podSelector"], pod["metadata"]["labels"])
               for source in INGRESS["spec"]["ingress"][0]["from"])


def test_the_grading_workers_may_build_the_sandbox_on_their_own_nodes():
    spec = cluster_spec(GRADING)["spec"]
    pod = spec["worker"]["spec"]
    [container] = pod["containers"]
    assert container["securityContext"] == {
        "runAsUser": 0, "capabilities": {"add": ["SYS_ADMIN", "NET_ADMIN"]},
        "seccompProfile": {"type": "Unconfined"}}  # AppArmor: test_grading_cluster.py
    assert pod["nodeSelector"] == {"agentlab/pool": "grading"}
    assert pod["tolerations"][0]["effect"] == "NoSchedule"
    memory = ByteSpecification().validate(None, container["resources"]["limits"]["memory"][:-1])
    assert memory > LIMITS["RLIMIT_AS"]  # a submission's whole address space, and the worker
    preload = container["args"][container["args"].index("--preload") + 1]
    assert importlib.util.find_spec(preload) is not None
    assert spec["worker"]["replicas"] == GRADING["cluster"]["n_workers"]


def test_the_scheduler_takes_the_instructor_and_its_workers_and_no_one_else():
    scheduler = cluster_spec(GRADING)["spec"]["scheduler"]
    labels = scheduler["service"]["selector"]  # the labels the operator gives its pod
    [comm] = [port for port in scheduler["service"]["ports"] if port["name"] == "tcp-comm"]
    to_scheduler = EGRESS["spec"]["egress"][0]
    assert _selects(to_scheduler["to"][0]["podSelector"], labels)
    assert to_scheduler["ports"] == [{"port": comm["port"], "protocol": "TCP"}]
    assert _selects(INGRESS["spec"]["podSelector"], labels)
    assert INGRESS["spec"]["ingress"][0]["ports"] == [{"port": comm["port"], "protocol": "TCP"}]
    sources = INGRESS["spec"]["ingress"][0]["from"]
    assert not any(_selects(source["podSelector"], user_pod("student")["metadata"]["labels"])
                   for source in sources)


def test_state_lives_in_postgresql_which_the_instructor_reaches_and_idle_pods_stop():
    assert VALUES["hub"]["db"]["type"] == "postgres"
    assert VALUES["hub"]["db"]["url"].startswith("postgresql+psycopg2://jupyterhub@agentlab-postgres:")
    to_postgres = EGRESS["spec"]["egress"][1]
    assert to_postgres["ports"] == [{"port": 5432, "protocol": "TCP"}]
    assert VALUES["cull"] == {"enabled": True, "timeout": defaults.CULL_AFTER_S, "every": 600}


def test_no_page_opens_the_grading_scheduler_to_every_user_pod():
    """A rule under z2jh's singleuser.networkPolicy is every user pod's, students' too; the
    scheduler is opened to the instructor's pod alone (network.yaml)."""
    for page in ("instructors.md", "scaling.md"):
        for block in _yaml(DOC.parent / page):
            made = yaml.safe_load(block)
            single = made.get("singleuser", {}) if isinstance(made, dict) else {}
            assert "networkPolicy" not in single, page
