"""What `agentlab hub demo` says on a machine that cannot run the hub, before it touches it."""

import os
from pathlib import Path

import pytest

from agentlab_magics.cli import main
from agentlab_magics.hub import bounds, recipe
from agentlab_magics.hub.plan import HubPlan

REPO = Path(__file__).resolve().parents[2]


def plan(tmp_path, **given) -> HubPlan:
    return HubPlan(folder=tmp_path / "hub", password="pw", **given)


def test_each_missing_piece_is_a_sentence_that_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(recipe.shutil, "which", lambda name, **kw: None)
    monkeypatch.setattr(recipe, "closed_ancestor", lambda path: "/root")
    find = recipe.importlib.util.find_spec
    monkeypatch.setattr(recipe.importlib.util, "find_spec",
                        lambda name: None if name == "jupyterhub" else find(name))
    found = recipe.problems(plan(tmp_path, instructor_package=tmp_path))
    assert [sentence.split(":")[0] for sentence in found] == [
        "The hub makes Unix users and starts each one's server as that user, so it must run "
        "as root",
        "JupyterHub's proxy (configurable-http-proxy) is not installed",
        "JupyterHub is not installed in this Python",
        f"The hub's users could not run this Python ({os.path.realpath(recipe.sys.executable)}",
        "The instructor package (agentlab_instructor, the held-back tests) is not in "
        f"{tmp_path}",
    ]
    assert "npm install -g configurable-http-proxy" in found[1]
    assert "/usr/bin/python3 -m venv /opt/agentlab-hub" in found[3]


def test_a_home_too_long_for_a_kernels_socket_is_a_sentence_that_names_its_user(tmp_path):
    long = "b" * (recipe.HOME_ROOM - len("/home/") + 1)
    short = "a" * (recipe.HOME_ROOM - len("/home/"))
    found = recipe.problems(plan(tmp_path, instructor_package=tmp_path, students=[short, long]))
    (sentence,) = [line for line in found if "socket" in line]
    assert f"the home of {long} is longer: choose shorter user names." in sentence
    assert short not in sentence


def test_the_instructor_package_is_found_where_given_or_where_python_finds_it(tmp_path):
    assert recipe._instructor_package(plan(tmp_path, instructor_package=REPO / "instructor")) \
        == (REPO / "instructor").resolve()
    assert recipe._instructor_package(plan(tmp_path)) == (REPO / "instructor").resolve()
    assert recipe._instructor_package(plan(tmp_path, instructor_package=tmp_path)) is None


def test_in_a_checkout_the_hub_environment_of_the_docs_finds_the_instructor_package(
        tmp_path, monkeypatch):
    """docs/instructors.md installs the hub's environment without the instructor package and
    runs the demo in a checkout: its instructor/ folder is the package's; elsewhere the
    sentence says to run it in one or name the folder."""
    monkeypatch.setattr(recipe, "instructor_package", lambda: None)  # not installed here
    monkeypatch.chdir(REPO)
    assert recipe._instructor_package(plan(tmp_path)) == REPO / "instructor"
    monkeypatch.chdir(tmp_path)
    assert recipe._instructor_package(plan(tmp_path)) is None
    (said,) = [line for line in recipe.problems(plan(tmp_path)) if "instructor package" in line]
    assert said.endswith("nor in ./instructor: run this in a checkout of the course's "
                         "repository, or pass the folder that holds it with "
                         "--instructor-package.")


def test_a_hub_started_again_keeps_the_users_an_earlier_start_made_for_clean(tmp_path,
                                                                            monkeypatch):
    """Start, stop, start again: the second start finds the demo's users already there and
    makes none, yet `clean` must still remove every user the demo ever made in that folder."""
    first = plan(tmp_path, made_users=["agentlab-x1", "agentlab-x2"])
    first.state.mkdir(parents=True)
    (first.state / "plan.json").write_text(first.model_dump_json())
    assert recipe._made_before(plan(tmp_path)) == ["agentlab-x1", "agentlab-x2"]
    (first.state / "plan.json").write_text("{not a plan")
    assert recipe._made_before(plan(tmp_path)) == []


def test_the_command_stops_at_the_sentence_and_changes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["hub", "demo", "--folder", str(tmp_path / "hub")]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("agentlab: The hub makes Unix users")
    assert "Traceback" not in said.err and not (tmp_path / "hub").exists()


def test_an_instructor_package_every_user_can_read_is_called_out(tmp_path):
    import io
    import sys

    from agentlab_magics.demos import hub as demo

    shared = Path(sys.prefix).resolve()
    out = io.StringIO()
    demo._say_where(plan(tmp_path, instructor_package=shared / "lib"), out)
    assert "students can read the held-back tests" in out.getvalue()
    out = io.StringIO()
    demo._say_where(plan(tmp_path, instructor_package=tmp_path), out)
    assert "held-back" not in out.getvalue() and "password pw" in out.getvalue()
    assert "one shared password: this is a demo" in out.getvalue()


def test_where_to_log_in_is_said_only_once_the_hub_answers_there(tmp_path, monkeypatch):
    import io
    import socket
    import subprocess
    import sys

    from agentlab_magics.demos import hub as demo

    exited = subprocess.Popen([sys.executable, "-c", "raise SystemExit(1)"])
    exited.wait()
    monkeypatch.setattr(demo, "start", lambda given: (given, exited))
    out = io.StringIO()
    assert demo.run(plan(tmp_path), out) == 1
    assert out.getvalue().startswith("JupyterHub exited with 1")
    assert "http://" not in out.getvalue() and "password" not in out.getvalue()

    (tmp_path / "site" / "hub").mkdir(parents=True)
    (tmp_path / "site" / "hub" / "api").write_text("{}")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answering = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                                  "127.0.0.1", "--directory", str(tmp_path / "site")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert demo.answers(plan(tmp_path, port=port), answering)
    finally:
        answering.kill()
        answering.wait()


def configured(tmp_path, monkeypatch, **given):
    """The configuration JupyterHub reads for a hub of `plan(tmp_path, **given)`."""
    from traitlets.config import Config

    from agentlab_magics.demos.hub import config_file

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan(tmp_path, **given).model_dump_json())
    monkeypatch.setenv("AGENTLAB_HUB_PLAN", str(plan_file))
    config = Config()
    exec(compile(config_file().read_text(), str(config_file()), "exec"),
         {"get_config": lambda: config})
    return config


def test_the_hub_runs_the_proxy_the_pre_start_check_found(tmp_path, monkeypatch):
    found = tmp_path / "npm" / "bin" / "configurable-http-proxy"
    assert configured(tmp_path, monkeypatch, proxy=found).ConfigurableHTTPProxy.command == [
        str(found)]


def test_students_servers_are_bounded_and_the_instructors_is_not(tmp_path, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(bounds, "mechanism", lambda: "cgroup")
    config = configured(tmp_path, monkeypatch, instructor="teach", students=["ada"],
                        memory_mb=512, cpus=0.5)
    assert config.JupyterHub.spawner_class == "agentlab_magics.hub.spawner.BoundedSpawner"
    assert config.BoundedSpawner.mechanism == "cgroup"
    spawned = {}
    for name in ("teach", "ada"):
        spawner = SimpleNamespace(user=SimpleNamespace(name=name), environment={},
                                  mem_limit=None, cpu_limit=None)
        config.Spawner.pre_spawn_hook(spawner)
        spawned[name] = spawner
    assert (spawned["ada"].mem_limit, spawned["ada"].cpu_limit) == (512 << 20, 0.5)
    assert spawned["ada"].environment["JUPYTER_PATH"] == str(tmp_path / "hub" / "jupyter" /
                                                             "student-data")
    assert (spawned["teach"].mem_limit, spawned["teach"].cpu_limit) == (None, None)
    assert "JUPYTER_PATH" not in spawned["teach"].environment
    monkeypatch.setattr(bounds, "mechanism", lambda: "systemd")
    assert configured(tmp_path, monkeypatch).JupyterHub.spawner_class == \
        "systemdspawner.SystemdSpawner"


def test_the_culler_is_a_hub_service_looking_often_enough_for_its_idle_time(tmp_path,
                                                                              monkeypatch):
    config = configured(tmp_path, monkeypatch, cull_after_s=60)
    [culler] = config.JupyterHub.services
    assert culler["command"][1:] == ["-m", "jupyterhub_idle_culler", "--timeout=60",
                                     "--cull-every=20"]
    assert config.JupyterHub.last_activity_interval == 20
    assert config.Spawner.environment == {"JUPYTERHUB_ACTIVITY_INTERVAL": "20"}
    [role] = config.JupyterHub.load_roles
    assert role["services"] == ["idle-culler"] and "delete:servers" in role["scopes"]
    assert configured(tmp_path, monkeypatch).JupyterHub.last_activity_interval == 300


def test_a_servers_kernel_starts_though_another_process_took_the_port_it_was_given(
        tmp_path, monkeypatch):
    """As in bench_hub's class of 40: the port a server found free for its kernel was bound
    by another process before the kernel could bind it."""
    import socket

    from jupyter_client.localinterfaces import localhost
    from jupyter_client.manager import KernelManager
    from jupyter_client.provisioning.local_provisioner import LocalPortCache
    from traitlets.config.loader import KVArgParseConfigLoader

    server_args = configured(tmp_path, monkeypatch).Spawner.args
    taken = socket.socket()
    taken.bind((localhost(), 0))
    taken.listen()
    monkeypatch.setattr(LocalPortCache, "find_available_port",
                        lambda cache, ip: taken.getsockname()[1])
    kernel = KernelManager(config=KVArgParseConfigLoader(server_args).load_config(),
                           connection_file=str(tmp_path / "kernel.json"))
    kernel.start_kernel()
    try:
        client = kernel.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)  # raises where the kernel died instead
        client.stop_channels()
    finally:
        kernel.shutdown_kernel(now=True)
        taken.close()


def test_a_students_kernel_loads_the_memory_share_it_keeps_to(tmp_path):
    argv = recipe.student_kernel(plan(tmp_path))["argv"]
    assert argv[-1] == "--IPKernelApp.extensions=agentlab_magics.hub.kernel_memory"
    assert argv[0] == f"{recipe.sys.prefix}/bin/python"


def test_what_holds_a_server_is_the_strongest_thing_the_machine_gives(tmp_path):
    cgroups, systemd = tmp_path / "cgroup", tmp_path / "systemd"
    assert bounds.mechanism(cgroups, systemd) == "rlimit"
    (cgroups / "memory").mkdir(parents=True)
    assert bounds.mechanism(cgroups, systemd) == "rlimit"  # memory alone: CPU not held
    (cgroups / "cpu").mkdir()
    assert bounds.mechanism(cgroups, systemd) == "cgroup"
    systemd.mkdir()
    assert bounds.mechanism(cgroups, systemd) == "systemd"


def test_a_servers_cgroup_holds_its_memory_and_its_share_of_cpu_time():
    assert bounds.limits(768 << 20, 1.5) == {
        "memory": {"memory.limit_in_bytes": str(768 << 20)},
        "cpu": {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "150000"}}
    assert bounds.limits(None, None) == {
        "memory": {"memory.limit_in_bytes": "-1"},
        "cpu": {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": "-1"}}


def test_students_given_as_a_count_are_numbered_and_limits_must_be_above_zero(capsys):
    from agentlab_magics.cli import _students

    assert _students("3") == ["student1", "student2", "student3"]
    assert _students("12")[::11] == ["student01", "student12"]
    assert _students("ada,,grace") == ["ada", "grace"]
    with pytest.raises(SystemExit):
        main(["hub", "demo", "--memory", "0"])
    assert "argument --memory: 0 is not above 0" in capsys.readouterr().err


def test_clean_refuses_a_folder_no_hub_was_laid_out_in(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("mine")
    assert main(["hub", "demo", "--clean", str(tmp_path)]) == 2
    said = capsys.readouterr()
    assert said.err == (f"agentlab: {tmp_path} holds no hub that `agentlab hub demo` made "
                        f"({tmp_path / 'state' / 'plan.json'} is missing); name the folder you "
                        "gave it with --folder.\n")
    assert (tmp_path / "mine.txt").read_text() == "mine"


def test_clean_removes_the_hubs_folder_and_only_the_users_it_made(tmp_path, monkeypatch,
                                                                    capsys):
    made = []
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(recipe.subprocess, "run", lambda command, **kw: made.append(command))
    laid_out = plan(tmp_path, made_users=["agentlab-x1"])
    laid_out.state.mkdir(parents=True)
    (laid_out.state / "plan.json").write_text(laid_out.model_dump_json())
    assert main(["hub", "demo", "--clean", str(laid_out.folder)]) == 0
    assert not laid_out.folder.exists()
    assert [command[1:] for command in made] == [
        ["-KILL", "-u", "agentlab-x1"], ["--remove", "agentlab-x1"], ["agentlab-x1"]]
    assert capsys.readouterr().out == (f"removed user agentlab-x1 and its home\n"
                                       f"removed the folder {laid_out.folder}\n")


def test_two_servers_starting_at_once_never_get_the_same_port(monkeypatch):
    from agentlab_magics.hub import spawner

    offered = iter([5000, 5000, 5001])
    monkeypatch.setattr(spawner, "random_port", lambda: next(offered))
    monkeypatch.setattr(spawner.BoundedSpawner, "ports", set())
    first, second = spawner.BoundedSpawner(), spawner.BoundedSpawner()
    assert (first._own_port(), second._own_port()) == (5000, 5001)
    assert spawner.BoundedSpawner.ports == {5000, 5001}


def test_a_server_that_ended_by_itself_leaves_neither_its_cgroup_nor_its_port(monkeypatch):
    import asyncio
    from types import SimpleNamespace

    from agentlab_magics.hub import spawner

    removed = []
    monkeypatch.setattr(spawner.ServerGroup, "remove", lambda group: removed.append(group.user))
    monkeypatch.setattr(spawner.BoundedSpawner, "ports", {5000})
    ended = spawner.BoundedSpawner(mechanism="cgroup", mem_limit=1 << 30, port=5000,
                                   user=SimpleNamespace(name="ada"))
    assert asyncio.run(ended.poll()) == 0  # no process: it has ended
    assert removed == ["ada"] and spawner.BoundedSpawner.ports == set()


def test_the_hub_serves_others_while_a_stopped_servers_cgroup_empties(monkeypatch):
    """Emptying a cgroup waits for its last processes; the hub's event loop does not."""
    import asyncio
    import time
    from types import SimpleNamespace

    from agentlab_magics.hub import spawner

    monkeypatch.setattr(spawner.ServerGroup, "remove", lambda group: time.sleep(0.5))
    monkeypatch.setattr(spawner.BoundedSpawner, "ports", {5000})
    ended = spawner.BoundedSpawner(mechanism="cgroup", mem_limit=1 << 30, port=5000,
                                   user=SimpleNamespace(name="ada"))

    async def meanwhile() -> int:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.create_task(tick())
        await ended.poll()
        ticking.cancel()
        return ticks

    assert asyncio.run(meanwhile()) >= 10  # about 50 while the removal slept 0.5 s


def test_the_hub_may_be_interrupted_where_the_demo_was_started_with_ctrl_c_ignored():
    import signal
    import subprocess

    from agentlab_magics.demos import hub as demo

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `agentlab hub demo &` has it
    try:
        child = subprocess.Popen(["sleep", "30"], preexec_fn=demo._interruptible)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        status = Path(f"/proc/{child.pid}/status").read_text().splitlines()
        ignored = int(next(line for line in status if line.startswith("SigIgn:")).split()[1], 16)
    finally:
        child.kill()
        child.wait()
    assert not ignored & (1 << (signal.SIGINT - 1))
