"""`agentlab hub demo`: lay the hub out, run JupyterHub on 127.0.0.1 until Ctrl-C, then stop it
and every server it started. Where to log in is said only once the hub answers there."""

from __future__ import annotations

import importlib.resources
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import TextIO

from agentlab_magics.hub.bounds import mechanism
from agentlab_magics.hub.plan import PLAN, HubPlan
from agentlab_magics.hub.recipe import prepare

STOP_S = 30  # how long JupyterHub may take to stop its servers and proxy after Ctrl-C
HUB_LOG = "jupyterhub.log"


def config_file() -> Path:
    """The hub's configuration file, as the package holds it."""
    found = importlib.resources.files("agentlab_magics.hub").joinpath(
        "template", "jupyterhub_config.py")
    return Path(str(found))


def start(plan: HubPlan) -> tuple[HubPlan, subprocess.Popen]:
    """Lay the hub out and start JupyterHub (in a session of its own, logging to the hub's
    folder); returns the plan as laid out and the running hub."""
    plan = plan.model_copy(update={"hub_port": plan.hub_port or free_port(),
                                   "proxy_api_port": plan.proxy_api_port or free_port()})
    plan = prepare(plan)
    # the proxy's folder too: an npm install's `node` is beside it
    proxy_folder = f"{plan.proxy.parent}:" if plan.proxy is not None else ""
    environment = {"PATH": f"{plan.prefix / 'bin'}:{proxy_folder}/usr/local/bin:/usr/bin:/bin",
                   "LANG": os.environ.get("LANG", "C.UTF-8"),
                   "AGENTLAB_HUB_PLAN": str(plan.state / PLAN)}
    with open(plan.state / HUB_LOG, "ab") as log:  # the hub keeps its own copy of the file
        hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config_file())],
                               cwd=plan.state, env=environment, stdout=log, stderr=log,
                               stdin=subprocess.DEVNULL, start_new_session=True,
                               preexec_fn=_interruptible)
    return plan, hub


def stop(hub: subprocess.Popen) -> None:
    """Stop JupyterHub as Ctrl-C would: it stops every user's server and the proxy first."""
    if hub.poll() is None:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(STOP_S)
        except subprocess.TimeoutExpired:
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait()


def run(plan: HubPlan, out: TextIO) -> int:
    """Run the hub until Ctrl-C (0) or until JupyterHub exits by itself (its exit code)."""
    plan, hub = start(plan)
    # Ctrl-C, and `kill`, stop the hub, even where a shell started this with Ctrl-C ignored.
    previous = {number: signal.signal(number, _interrupt)
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        if answers(plan, hub):
            _say_where(plan, out)
            while hub.poll() is None:
                time.sleep(0.5)
    except KeyboardInterrupt:
        stop(hub)
        out.write("The hub stopped, and every server it started with it. `agentlab hub demo "
                  f"--clean {plan.folder}` removes its users and folder.\n")
        return 0
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    out.write(f"JupyterHub exited with {hub.returncode}; its log says why: "
              f"{plan.state / HUB_LOG}\n")
    return hub.returncode or 1


def _say_where(plan: HubPlan, out: TextIO) -> None:
    if plan.instructor_package is not None and plan.instructor_package.is_relative_to(
            plan.prefix.resolve()):
        out.write(f"Warning: the instructor package is installed in the environment every user "
                  f"runs ({plan.instructor_package}), so students can read the held-back "
                  "tests. Install it elsewhere and pass that folder with "
                  "--instructor-package.\n")
    out.write(f"The course's hub is at http://127.0.0.1:{plan.port}/\n"
              f"Log in as {plan.instructor} (the instructor) or {_listed(plan.students)} "
              f"(students), password {plan.password} (one shared password: this is a demo; "
              "docs/instructors.md says how a real hub logs people in)\n"
              f"Each student's server may use {plan.memory_mb} MB and {plan.cpus:g} "
              f"CPU{'' if plan.cpus == 1 else 's'}, held "
              f"by {HELD_BY[mechanism()]}; a server idle for {plan.cull_after_s} s is stopped.\n"
              f"JupyterHub's log: {plan.state / HUB_LOG}. Ctrl-C stops it.\n")
    out.flush()


HELD_BY = {"systemd": "a systemd unit each", "cgroup": "a cgroup each",
           "rlimit": "rlimits (memory per process; CPU is not held: no writable cgroups here)"}


def _listed(students: list[str]) -> str:
    return ", ".join(students) if len(students) <= 4 else \
        f"{students[0]} ... {students[-1]} ({len(students)})"


def answers(plan: HubPlan, hub: subprocess.Popen) -> bool:
    """Wait until the hub answers where people log in (True), or exits first (False)."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while hub.poll() is None:
        try:
            with direct.open(f"http://127.0.0.1:{plan.port}/hub/api", timeout=2):
                return True
        except OSError:
            time.sleep(0.3)
    return False


def _interruptible() -> None:
    """In the hub's process, before it runs: Ctrl-C's signal does its default again, where a
    shell started the demo with it ignored (`&`, nohup). JupyterHub stops its services and
    servers with it first; ignored, each of them would take JupyterHub's whole wait."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(number: int, frame) -> None:
    raise KeyboardInterrupt


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
