"""How long a warm check takes, against ipytest and against the floor, in one run.

Per lab, the median of: `%%check`'s way (`run(lab, module, source=...)` with the kernel's spare
student processes: the tests here, the reference loaded afresh in a fresh student process,
every call crossing the pipe), ipytest (`ipytest.run()` in a real IPython shell over the same
test functions and fixtures, pytest.main underneath, the code in the same process), and the
floor (the same test functions called by hand in this process, nothing isolated). Then what
the process boundary costs: one crossing's round trip (the judge calls a student function
that returns at once; the student's code calls a judge object), each with nothing and with a
dozen-message list, how many crossings each lab's check makes and the kilobytes they carry
each way. Snapshots the ratios; asserts nothing.
Run: python bench/bench_check.py [repeats]  (needs `pip install ipytest`).

`python bench/bench_check.py kernel [checks]`: one real kernel's memory after its first %%check
and after `checks` more (beside the same cell run unchecked), and what the live line and the
report's view cost a check (%%check against %%check --quiet).

`python bench/bench_check.py cold [repeats]`: a student's first check from a shell, cold, in
one run: fresh processes of `agentlab check lesson1 --harness STARTER` (the venv's own entry
point), interleaved with `python -c pass` and a program that builds one Pydantic model (the floor of
any program whose output is one: the report is) from the same interpreter, with bytecode
compiled once as an installed package has it; medians and ratios.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

from agentlab_magics.checking.cell_source import NotWrittenYet, load
from agentlab_magics.checking.one_cpu import join, judge_here
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.runner import Recorder, lab_tests, run
from agentlab_magics.checking.spares import local_spares
from agentlab_magics.course import find_lab, labs
from agentlab_magics.notebook import processes_per_check

LABS = tuple(labs())
# The floor of any program whose output is a Pydantic model, as the check's report is: import
# pydantic, find its plugins, build one model and validate one value.
PYDANTIC_FLOOR = ("from pydantic import BaseModel\n"
                  "class Report(BaseModel):\n    title: str\n    passed: int = 0\n"
                  "Report(title='lesson1')")
ECHO = ("def nothing(*_):\n    return None\n\ndef ask(handle, times, carried):\n"
        "    for _ in range(times):\n        handle(MESSAGES) if carried else handle()\n")


class InProcess:
    """The `harness` fixture without a boundary: the module's names, a missing one failing as
    the checker's does (what ipytest and the floor run against)."""

    def __init__(self, module: types.ModuleType) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        try:
            return getattr(self._module, name)
        except AttributeError:
            raise NotWrittenYet(f"{name} is not written yet.") from None

    def missing(self, names: list[str]) -> list[str]:
        return [name for name in names if not hasattr(self._module, name)]


def median_ms(action, repeats: int, before=lambda: None) -> float:
    """The median of `action`'s time, each run after `before` (not timed)."""
    before()
    action()  # warm: imports, first configuration
    times = []
    for _ in range(repeats):
        before()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def floor(lab, module) -> None:
    """The lab's test functions called by hand with the same fixtures: no isolation, no pytest."""
    student = InProcess(module)
    for test in lab_tests(lab):
        test.function(**({"harness": student, "record": Recorder()} if test.wants_record
                         else {"harness": student}))


def ipytest_shell(lab, module):
    """A real IPython shell holding the lab's tests and its fixtures, and ipytest's run."""
    import ipytest
    from IPython.core.interactiveshell import InteractiveShell

    InteractiveShell.clear_instance()
    shell = InteractiveShell.instance()
    ipytest.autoconfig(raise_on_error=False)
    namespace = shell.user_ns
    namespace["__student__"] = InProcess(module)
    shell.run_cell("import pytest\n"
                   "@pytest.fixture\ndef harness():\n    return __student__\n"
                   "from agentlab_magics.checking.runner import Recorder\n"
                   "@pytest.fixture\ndef record():\n    return Recorder()\n")
    for test in lab_tests(lab):
        namespace[test.name] = test.function
    namespace["__file__"] = "bench_notebook.py"

    # a notebook's folder, as a course team's: this repository's pytest configuration (its
    # addopts start xdist's workers at every run) is no part of what ipytest costs
    folder = tempfile.mkdtemp(prefix="bench-ipytest-")

    def quietly() -> None:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.chdir(folder):
            ipytest.run("-q", "-p", "no:cacheprovider")

    return quietly


def crossings(lab) -> tuple[int, float, float]:
    """How many frames the judge sends in one check of the lab's reference (its calls of the
    student's functions and its answers to the student's calls back), and the kilobytes of
    frames that go each way: the judge's to the student process, and back."""
    from agentlab_magics.checking.protocol import frames

    counted, sent, received = [0], [0], [0]
    send, frame = StudentProcess.send, frames.Reader.frame

    def counting(self, body):
        counted[0] += 1
        sent[0] += len(body) + frames.HEADER.size
        return send(self, body)

    def receiving(self, *args):
        body = frame(self, *args)
        received[0] += len(body) + frames.HEADER.size
        return body

    StudentProcess.send, frames.Reader.frame = counting, receiving
    try:
        run(lab.id, "", source=lab.reference)
    finally:
        StudentProcess.send, frames.Reader.frame = send, frame
    return counted[0], sent[0] / 1024, received[0] / 1024


def dozen_messages() -> list[dict]:
    """A conversation of a dozen messages as lesson 7's runs make them: a user's question,
    then the model's calls of a tool and the tool's results, each with their fields."""
    messages: list[dict] = [{"role": "user", "content": "Read notes.txt and summarise it."}]
    for turn in range(6):
        call = {"type": "toolCall", "id": f"c{turn}", "name": "read_file",
                "arguments": {"path": "notes.txt"}}
        messages.append({"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                                                          call],
                         "stop_reason": "toolUse", "usage": {"input": 120, "output": 30}})
        messages.append({"role": "toolResult", "tool_call_id": f"c{turn}",
                         "tool_name": "read_file", "is_error": False,
                         "content": [{"type": "text", "text": "line one\nline two\n" * 3}]})
    return messages[:12]


def round_trips(repeats: int = 2000, one_cpu: bool = True) -> dict[str, float]:
    """Microseconds of one crossing's round trip, by what it carries: the judge calling a
    student function that returns at once, with nothing and with a dozen-message list; the
    student's code calling a judge object that returns at once, with nothing and with a
    dozen-message list of its own. With `one_cpu`, the two held on one CPU as a check holds
    them."""
    with judge_here() if one_cpu else contextlib.nullcontext():
        return _round_trips(repeats, one_cpu)


def _round_trips(repeats: int, one_cpu: bool) -> dict[str, float]:
    process = StudentProcess.local()
    if one_cpu:
        join(process.pid)
    messages = dozen_messages()
    try:
        process.load(ECHO + f"MESSAGES = {messages!r}\n", "<bench>", "bench",
                     ["nothing", "ask"], [], 10.0)
        process.begin(600.0)
        process.call("nothing", (), {})
        times = {}
        for name, args in (("judge -> student", ()), ("judge -> student, 12 messages",
                                                      (messages,))):
            started = time.perf_counter()
            for _ in range(repeats):
                process.call("nothing", args, {})
            times[name] = (time.perf_counter() - started) / repeats * 1e6
        for name, carried in (("student -> judge", False), ("student -> judge, 12 messages",
                                                           True)):
            started = time.perf_counter()
            process.call("ask", (lambda *_: None, repeats, carried), {})
            times[name] = (time.perf_counter() - started) / repeats * 1e6
    finally:
        process.kill()
    return times


def main(repeats: int = 15) -> None:
    print(f"{'lab':18} {'tests':>5} {'%%check ms':>11} {'ipytest ms':>11} {'floor ms':>9} "
          f"{'ipytest/check':>14} {'check/floor':>12} {'crossings':>10} {'KB out':>7} "
          f"{'KB back':>8}")
    spares = local_spares()
    slowest = float("inf")
    for lab_id in LABS:
        lab = find_lab(lab_id)
        module = load(lab.reference, f"{lab.module}.py", lab.module)
        count = len(run(lab.id, "", source=lab.reference).outcomes)
        # warm, as a student's next check finds it: the processes made ahead after the last
        # check have said hello (a student takes seconds to edit a cell; a start, 50 ms)
        made = processes_per_check(lab.id)
        checked = median_ms(lambda lab=lab, module=module: run(
            lab.id, module, source=lab.reference, launch=spares.take), repeats,
            before=lambda made=made: spares.ready(made))
        called = median_ms(lambda lab=lab, module=module: floor(lab, module), repeats)
        with_ipytest = median_ms(ipytest_shell(lab, module), repeats)
        slowest = min(slowest, with_ipytest / checked)
        frames, out, back = crossings(lab)
        print(f"{lab.id:18} {count:5} {checked:11.1f} {with_ipytest:11.1f} {called:9.1f} "
              f"{with_ipytest / checked:13.1f}x {checked / called:11.1f}x {frames:10} "
              f"{out:7.0f} {back:8.0f}")
    together, apart = round_trips(), round_trips(one_cpu=False)
    print("one crossing's round trip, on one CPU as a check holds them (on two):")
    for name, micros in together.items():
        print(f"  {name:31} {micros:6.0f} us ({apart[name]:.0f} us)")
    print(f"the slowest lab is {slowest:.1f}x faster than ipytest; goal: at least 2x on every "
          "lab (aim 5x), with the process boundary in place")


def cold(repeats: int = 10) -> None:
    agentlab = str(Path(sys.executable).with_name("agentlab"))
    with tempfile.TemporaryDirectory() as folder:
        harness = Path(folder, "harness.py")
        harness.write_text(find_lab("lesson1").starter)
        commands = {"agentlab check": [agentlab, "check", "lesson1", "--harness", str(harness)],
                    "python -c pass": [sys.executable, "-c", "pass"],
                    "a Pydantic model": [sys.executable, "-c", PYDANTIC_FLOOR]}
        environment = compiled_once(folder)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for turn in range(repeats + 1):  # turn 0 writes the bytecode, and is not timed
            for name, command in commands.items():
                started = time.perf_counter()
                done = subprocess.run(command, capture_output=True, text=True, cwd=folder,
                                      env=environment, check=False)
                if turn:
                    times[name].append(time.perf_counter() - started)
                if done.returncode not in (0, 1):  # 1: the starter fails its check, as it should
                    raise SystemExit(f"{name} exited {done.returncode}: {done.stderr}")
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(f"cold, median of {repeats} fresh processes, interleaved, bytecode compiled once:")
    for name, value in median.items():
        print(f"  {name:16} {value:7.1f} ms  {value / median['python -c pass']:5.1f}x python -c pass")
    print(f"  agentlab check beyond a Pydantic model: "
          f"{median['agentlab check'] - median['a Pydantic model']:.1f} ms")


def compiled_once(folder: str) -> dict[str, str]:
    """The environment of a student's install: bytecode written once and read after (into a
    folder of the bench's own, so the source tree is left as it is), whatever
    PYTHONDONTWRITEBYTECODE this shell has."""
    environment = {name: value for name, value in os.environ.items()
                   if name != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(Path(folder, "bytecode"))
    return environment


def kernel(checks: int = 100) -> None:
    """In one real kernel, asked as JupyterLab asks it to run one cell again and again: its
    memory after the first check and after `checks` more (lesson7, the reference), beside the
    same cell run unchecked, and what the live line and the report's view cost a check
    (`%%check` against `%%check --quiet`, interleaved, medians)."""
    from jupyter_client.manager import start_new_kernel

    lab = find_lab("lesson7")
    cell = {mode: f"%%check {lab.id}{mode}\n{lab.reference}" for mode in ("", " --quiet")}
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        def execute(code: str) -> float:
            """Run `code` as JupyterLab runs one cell (allow_stdin, the cell's id), again."""
            started = time.perf_counter()
            request = client.session.msg("execute_request", {
                "code": code, "silent": False, "store_history": True, "allow_stdin": True,
                "stop_on_error": True, "user_expressions": {}}, metadata={"cellId": "lab"})
            client.shell_channel.send(request)
            while True:
                reply = client.get_shell_msg(timeout=120)
                if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                    break
            if reply["content"]["status"] != "ok":
                raise SystemExit(f"the kernel said {reply['content']}")
            return time.perf_counter() - started

        def memory() -> float:
            said: list[str] = []
            client.execute_interactive(
                "print(next(l for l in open('/proc/self/status') if l.startswith('VmRSS')))",
                timeout=60, output_hook=lambda msg: said.append(msg["content"].get("text", "")))
            return int("".join(said).split()[1]) / 1024

        execute("%load_ext agentlab_magics")
        execute(lab.reference)
        plain = memory()
        for _ in range(checks):  # the baseline: IPython keeping the same cell, unchecked
            execute(lab.reference)
        plain_grew = (memory() - plain) / checks * 1024
        execute(cell[""])
        first = memory()
        times: dict[str, list[float]] = {mode: [] for mode in cell}
        for turn in range(checks):
            times[" --quiet" if turn % 2 else ""].append(execute(cell[" --quiet" if turn % 2
                                                                     else ""]))
        last = memory()
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    live, quiet = (statistics.median(times[mode]) * 1000 for mode in ("", " --quiet"))
    print(f"one kernel, {lab.id}'s reference checked {checks + 1} times:")
    print(f"  kernel memory after 1 check: {first:.1f} MB; after {checks + 1}: {last:.1f} MB "
          f"({(last - first) / checks * 1024:+.1f} kB a check; the same cell run {checks} "
          f"times unchecked: {plain_grew:+.1f} kB a run)")
    print(f"  %%check {live:.1f} ms, %%check --quiet {quiet:.1f} ms: the live line and the "
          f"report's view cost {live - quiet:+.1f} ms a check ({live / quiet:.2f}x)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["cold"]:
        cold(int(sys.argv[2]) if len(sys.argv) > 2 else 10)
    elif sys.argv[1:2] == ["kernel"]:
        kernel(int(sys.argv[2]) if len(sys.argv) > 2 else 100)
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
