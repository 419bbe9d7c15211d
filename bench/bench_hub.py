"""A class at a lab's start, on a real hub on this machine: how long servers take to start and
`%%check` takes to answer when N students arrive at once, beside one student alone, and what
each student costs in memory and CPU.

The hub is `agentlab hub demo`'s, laid out in a folder of its own with accounts of this run's
own (removed at the end, as `--clean` does). The instructor generates and releases lesson1
through the formgrader's API. Then one student goes through the lab alone, and after them N
students arriving within --spread seconds, each through the hub's REST API and their server's
APIs (agentlab_magics/hub/visitor.py): log in, start the server, fetch lesson1 (the
Assignments tab's API), open a kernel, run the notebook's cells up to its `%%check` cell,
run that cell with a wrong harness and then with the right one, save the notebook and submit.

Printed: spawn time, each check's latency (p50, p95, max) for the crowd beside the one alone;
memory per idle student (the server alone: the sum of the proportional set sizes of the
student's processes) and per active one (with its kernel after the checks); CPU seconds per
student's whole visit; what the machine had free before and with the whole class in; and
every failure (there must be none). Asserts nothing. When any student fails (or with --keep),
the hub's folder stays, with its log (the hub's, the proxy's and every server's and kernel's
output), and each failure says what its server was doing at that moment.

Run as root, with the shared environment's Python (the hub's users run it):
    sudo /opt/agentlab-hub/bin/python bench/bench_hub.py --students 40 [--spread 20]
"""

from __future__ import annotations

import argparse
import os
import pwd
import random
import secrets
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "instructor"))  # the reference harness, held back from students

from agentlab_magics.course import find_lab  # noqa: E402
from agentlab_magics.demos import hub as demo  # noqa: E402
from agentlab_magics.hub import recipe  # noqa: E402
from agentlab_magics.hub.bounds import ServerGroup, mechanism  # noqa: E402
from agentlab_magics.hub.plan import HubPlan  # noqa: E402
from agentlab_magics.hub.visitor import Visitor  # noqa: E402

LAB = "lesson1"
NOTEBOOK = f"{LAB}/{LAB}.ipynb"
FORGETFUL = "model.complete(system, [messages[-1]], [])"  # sends only the new message
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Visit:
    """One student's way through the lab: seconds per step, memory, and what failed."""

    name: str
    seconds: dict[str, float] = field(default_factory=dict)
    idle_mb: float = 0.0
    active_mb: float = 0.0
    cpu_s: float = 0.0
    failure: str | None = None


def harnesses() -> tuple[str, str]:
    """The wrong harness (it sends the model only the new message), then the right one."""
    right = find_lab(LAB).reference
    wrong = right.replace("model.complete(system, messages, [])", FORGETFUL)
    assert wrong != right
    return wrong, right


def visit(url: str, name: str, password: str, delay: float) -> Visit:
    """One student through the lab, after `delay` seconds; a failure ends the visit and is
    kept as a sentence."""
    time.sleep(delay)
    done = Visit(name)
    step = "logging in"
    try:
        started = time.monotonic()
        student = Visitor(url, name, password)
        done.seconds["login"] = time.monotonic() - started
        step = "starting the server"
        done.seconds["spawn"] = student.start_server()
        done.idle_mb = _memory_mb(name)
        step = "fetching"
        student.assignment("fetch", LAB)
        notebook = student.server("GET", f"api/contents/{NOTEBOOK}").json()
        cells = notebook["content"]["cells"]
        checked = next(index for index, cell in enumerate(cells)
                       if "".join(cell["source"]).startswith(f"%%check {LAB}"))
        step = "running the notebook"
        kernel = student.kernel()
        for cell in cells[:checked]:
            if cell["cell_type"] == "code":
                ran = kernel.run("".join(cell["source"]))
                if ran.error or ran.died:
                    raise RuntimeError(f"a cell before the check failed: {ran}")
        wrong, right = harnesses()
        for label, harness in (("check wrong", wrong), ("check right", right)):
            step = label
            ran = kernel.run(f"%%check {LAB}\n{harness}")
            passed = "7 of 7 tests passed" in ran.text
            if ran.died or "of 7 tests passed" not in ran.text or passed != (harness == right):
                raise RuntimeError(f"the check said: {ran.text[-300:]!r}")
            done.seconds[label] = ran.seconds
        done.active_mb = _memory_mb(name)
        done.cpu_s = _cpu_seconds(name)
        step = "submitting"
        cells[checked]["source"] = f"%%check {LAB}\n{right}"
        student.server("PUT", f"api/contents/{NOTEBOOK}", json={
            "type": "notebook", "format": "json", "content": notebook["content"]})
        student.assignment("submit", LAB)
        kernel.close()
    except Exception as problem:  # every failure is counted, and none ends the run
        done.failure = (f"{step}: {type(problem).__name__}: {problem}\n"
                        f"    at that moment: {_server_status(name)}")
    return done


def _server_status(user: str) -> str:
    """Whether `user`'s server and kernels run, and what their memory cgroup says of the
    limit (how often it was hit, whether its OOM killer killed), or that it has none."""
    commands = []
    for entry in _processes(user):
        try:
            commands.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    server = sum("jupyterhub-singleuser" in command for command in commands)
    kernels = sum("ipykernel_launcher" in command for command in commands)
    said = f"{len(commands)} processes ({server} server, {kernels} kernels)"
    group = ServerGroup(user).folder("memory")
    try:
        failcnt = (group / "memory.failcnt").read_text().strip()
        peak_mb = int((group / "memory.max_usage_in_bytes").read_text()) >> 20
        oom = " ".join((group / "memory.oom_control").read_text().split())
    except OSError:
        return f"{said}; no memory cgroup at {group}"
    return f"{said}; its cgroup: failcnt {failcnt}, peak {peak_mb} MB, {oom}"


def _processes(user: str) -> list[Path]:
    uid = pwd.getpwnam(user).pw_uid
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                found.append(entry)
        except OSError:
            continue
    return found


def _memory_mb(user: str) -> float:
    """The proportional set size of all of `user`'s processes (shared pages divided among
    the processes that share them), in MB."""
    total = 0
    for entry in _processes(user):
        try:
            for line in (entry / "smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def _cpu_seconds(user: str) -> float:
    """CPU seconds `user`'s processes have used, with their reaped children's."""
    total = 0
    for entry in _processes(user):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def _available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):6.2f} {p95:6.2f} {ordered[-1]:6.2f}"


def report(alone: Visit, crowd: list[Visit], free_before: float, free_with_class: float,
           wall_s: float) -> None:
    good = [one for one in crowd if one.failure is None]
    print(f"\n{len(crowd)} students arriving together, beside one alone "
          f"(seconds: p50 p95 max; {os.cpu_count()} cores, servers held by {mechanism()})")
    print(f"{'':14}{'alone':>8}   {'crowd p50    p95    max':>22}")
    for step in ("login", "spawn", "check wrong", "check right"):
        print(f"{step:14}{alone.seconds.get(step, float('nan')):8.2f}   "
              f"{_spread([one.seconds[step] for one in good if step in one.seconds])}")
    for label, values in (("idle MB", [one.idle_mb for one in good]),
                          ("active MB", [one.active_mb for one in good]),
                          ("CPU s", [one.cpu_s for one in good])):
        alone_value = {"idle MB": alone.idle_mb, "active MB": alone.active_mb,
                       "CPU s": alone.cpu_s}[label]
        print(f"{label:14}{alone_value:8.1f}   {_spread(values)}")
    print(f"the whole class in {wall_s:.0f} s; the machine's available memory went from "
          f"{free_before:.0f} MB to {free_with_class:.0f} MB "
          f"({(free_before - free_with_class) / max(1, len(crowd) + 1):.0f} MB per student, "
          "the hub's share included)")
    failures = [one for one in [alone, *crowd] if one.failure]
    print(f"failures: {len(failures)}")
    for one in failures:
        print(f"  {one.name}: {one.failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--spread", type=float, default=20.0,
                        help="the crowd arrives within this many seconds (default 20)")
    parser.add_argument("--memory", type=int, default=1024, help="MB per student's server")
    parser.add_argument("--keep", action="store_true",
                        help="keep the hub's folder and users even when every student passes")
    args = parser.parse_args()
    run = secrets.token_hex(2)
    students = [f"bench{run}-{number:03d}" for number in range(args.students + 1)]
    plan = HubPlan(folder=Path(tempfile.mkdtemp(prefix="agentlab-bench-hub-")),
                   port=demo.free_port(), instructor=f"bench{run}-teacher", students=students,
                   instructor_package=REPO / "instructor", memory_mb=args.memory)
    free_before = _available_mb()
    plan, hub = demo.start(plan)
    keep = True  # until the class has passed: whatever ends the run early keeps what says why
    try:
        if not demo.answers(plan, hub):
            print(f"the hub did not start; its log: {plan.state / demo.HUB_LOG}")
            return 1
        url = f"http://127.0.0.1:{plan.port}/"
        teacher = Visitor(url, plan.instructor, plan.password)
        teacher.start_server()
        for action in ("assign", "release"):
            said = teacher.server("POST", f"formgrader/api/assignment/{LAB}/{action}").json()
            assert said["success"], said
        alone = visit(url, students[0], plan.password, 0)
        started = time.monotonic()
        with ThreadPoolExecutor(args.students) as pool:
            crowd = list(pool.map(
                lambda name: visit(url, name, plan.password, random.uniform(0, args.spread)),
                students[1:]))
        wall_s = time.monotonic() - started
        report(alone, crowd, free_before, _available_mb(), wall_s)
        keep = args.keep or any(one.failure for one in [alone, *crowd])
    finally:
        demo.stop(hub)
        if keep:
            print(f"the hub's folder is kept: {plan.folder}; its log (the hub's, the proxy's, "
                  f"every server's and kernel's): {plan.state / demo.HUB_LOG}; `agentlab hub "
                  f"demo --clean {plan.folder}` removes it and its users")
        else:
            recipe.clean(plan.folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
