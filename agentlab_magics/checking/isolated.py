"""Run a lab's tests in a child process that the caller watches and kills on time.

The caller (the CLI, the notebook's kernel, the grader's scoring process) forks; the child
loads the student's code and runs the tests one by one, writing each outcome into memory
shared with the caller (an anonymous mapping: no file, no descriptor, reachable in the child
only through the checker's own local variables, which the guard keeps student code away
from). The caller alone decides: a test still running past its limit is a timeout and its
child is killed; a child that exits or crashes mid-test fails that test; the remaining tests
then run in a fresh child. Sentences come from the caller's own copy of the tests, and every
text, record and output is cut to a size, so a report is complete, honest and small whatever
the student's code does.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import resource
import select
import signal
import struct
import sys
import time
import types
from typing import Any, Callable

from agentlab_magics.checking import guard
from agentlab_magics.checking.deadline import TimedOut, deadline
from agentlab_magics.checking.report import CheckReport, TestOutcome
from agentlab_magics.checking.student import (
    CodeProblem, NotWrittenYet, StudentModule, at_line, exception_text, same_name, student_line)
from agentlab_magics.course import Lab

TEXT_CAP = 2_000          # characters of one message or string in a report
OUTPUT_CAP = 4_000        # characters of printed output kept for one test
RECORD_EDGE = 25          # messages kept at each end of a long record
REPORT_CAP = 1_000_000    # bytes of a whole report as JSON
MEMORY_CAP = 2 << 30      # bytes the child may add to what it had when it was made
GRACE = 1.0               # seconds past its limit before a test's child is killed
CHANNEL = 32 << 20        # bytes of shared memory for the outcomes
EVENT_CAP = 256 << 10     # bytes of one outcome in the channel
HEADER = struct.Struct("<Q")
LENGTH = struct.Struct("<I")
OUTCOMES = {"passed", "failed", "error", "timeout"}


def cap(text: str, limit: int = TEXT_CAP) -> str:
    """`text`, cut to `limit` characters with a note of how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters left out)"


def plain(value: Any, depth: int = 0) -> Any:
    """A copy of `value` made of plain JSON data, strings cut, anything else named by its type.

    No method of the student's objects runs: only exact builtin types are looked into."""
    kind = type(value)
    if value is None or kind in (bool, int, float):
        return value if kind is not float or math.isfinite(value) else repr(value)
    if kind is str:
        return cap(value)
    if depth > 20:
        return "<nested too deeply>"
    if kind is dict:
        return {cap(k) if type(k) is str else f"<{type(k).__name__} key>": plain(v, depth + 1)
                for k, v in list(dict.items(value))[:200]}
    if kind in (list, tuple):
        return [plain(item, depth + 1) for item in list(value)[:200]]
    return f"<{type.__dict__['__name__'].__get__(kind)} object>"


def kept_record(messages: Any) -> tuple[list | None, int]:
    """The first and last messages of a run's record, and how many were left out between."""
    if type(messages) is not list:
        return None, 0
    if len(messages) <= 2 * RECORD_EDGE:
        return plain(messages), 0
    return plain(messages[:RECORD_EDGE] + messages[-RECORD_EDGE:]), len(messages) - 2 * RECORD_EDGE


class Recorder:
    """The `record` fixture: keeps the list a test's run appended to, for the report."""

    def __init__(self) -> None:
        self.messages: list | None = None

    def __call__(self, messages: list) -> list:
        self.messages = messages
        return messages


class CappedText:
    """A stand-in for sys.stdout and sys.stderr that keeps the first OUTPUT_CAP characters."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def write(self, text: str) -> int:
        if type(text) is not str:
            raise TypeError("write() argument must be str")
        room = OUTPUT_CAP - self.size
        self.parts.append(text[:max(room, 0)])
        self.size += min(len(text), max(room, 0))
        self.dropped += max(len(text) - max(room, 0), 0)
        return len(text)

    def flush(self) -> None:
        pass

    def take(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n… ({self.dropped:,} more characters of output left out)"
        self.parts, self.size, self.dropped = [], 0, 0
        return text


def check_in_child(lab: Lab, tests: list, loader: Callable[[Callable], types.ModuleType],
                   timeout: float) -> CheckReport:
    """Every test of `tests` run against what `loader` makes, in children killed on time."""
    outcomes: list[TestOutcome] = []
    problem = None
    while problem is None and len(outcomes) < len(tests):
        pending = tests[len(outcomes):]
        events, ending = _one_child(lab, pending, loader, timeout)
        done, problem, started = _read_events(events, pending)
        outcomes += done
        if problem is None and started is not None and len(done) < len(pending):
            outcomes.append(_lost(pending[len(done)], ending, timeout))
        elif problem is None and len(done) < len(pending):
            problem = _lost_while_loading(ending, timeout)
    report = CheckReport(lab_id=lab.id, title=lab.title, outcomes=outcomes, problem=problem)
    return _within_size(report)


def _read_events(events: list[dict], pending: list) -> tuple[list[TestOutcome], str | None,
                                                                int | None]:
    """The outcomes a child reported, the problem it stopped on, and the test it started last."""
    done, problem, started = [], None, None
    for event in events:
        kind = event.get("event")
        if kind == "problem":
            problem = cap(str(event.get("text", "")))
        elif kind == "start":
            started = event.get("k")
        elif kind == "done" and event.get("k") == len(done) and len(done) < len(pending):
            done.append(_outcome(pending[len(done)], event))
    return done, problem, started


def _outcome(test: Any, event: dict) -> TestOutcome:
    """A test's outcome from the child's event, with the sentence from the caller's copy."""
    kind = event.get("outcome") if event.get("outcome") in OUTCOMES else "error"
    record = event.get("record")
    return TestOutcome(name=test.name, sentence=test.sentence, outcome=kind,
                       message=cap(str(event.get("message", ""))),
                       record=record if isinstance(record, list) else None,
                       record_omitted=int(event.get("omitted", 0) or 0),
                       output=cap(str(event.get("output", "")), OUTPUT_CAP + 100),
                       duration=float(event.get("duration", 0.0) or 0.0))


def _lost(test: Any, ending: str, timeout: float) -> TestOutcome:
    """The outcome of a test whose child never reported it."""
    if ending == "killed":
        return TestOutcome(name=test.name, sentence=test.sentence, outcome="timeout",
                           message=_too_long(timeout), duration=timeout)
    return TestOutcome(name=test.name, sentence=test.sentence, outcome="error",
                       message=f"Your code ended the process running this test ({ending}), "
                               "so the test could not finish: look for os._exit, a crash in "
                               "very deep recursion, or memory running out.")


def _lost_while_loading(ending: str, timeout: float) -> str:
    if ending == "killed":
        return (f"Loading your code took longer than {timeout:g} s: is there a loop at the "
                "top level of the file that never ends?")
    return (f"Loading your code ended the process that runs it ({ending}), so nothing could "
            "be checked: look for os._exit or sys.exit at the top level of the file.")


def _too_long(timeout: float) -> str:
    return (f"This test did not finish within {timeout:g} s: your code is probably looping "
            "forever or waiting for something.")


def _within_size(report: CheckReport) -> CheckReport:
    """Drop kept records, largest first, until the report's JSON is under REPORT_CAP bytes."""
    while len(report.model_dump_json()) > REPORT_CAP:
        with_records = [o for o in report.outcomes if o.record]
        if not with_records:
            break
        biggest = max(with_records, key=lambda o: len(json.dumps(o.record)))
        biggest.record_omitted += len(biggest.record)
        biggest.record = None
    return report


# -- the caller's side of one child ----------------------------------------------------------

def _one_child(lab: Lab, tests: list, loader: Callable[[Callable], types.ModuleType],
               timeout: float) -> tuple[list[dict], str]:
    """Fork a child for `tests`, follow it until it ends or overruns; (its events, how it ended)."""
    channel = mmap.mmap(-1, CHANNEL, flags=mmap.MAP_SHARED)
    bell_read, bell_write = os.pipe()
    sys.stdout.flush(), sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child never returns; its work is checked by results)
        os.close(bell_read)
        _child(channel, bell_write, lab, tests, loader, timeout)
    os.close(bell_write)
    try:
        return _follow(pid, channel, bell_read, timeout)
    finally:
        os.close(bell_read)
        channel.close()


def _follow(pid: int, channel: mmap.mmap, bell: int, timeout: float) -> tuple[list[dict], str]:
    events: list[dict] = []
    offset, limit_at, bell_open = HEADER.size, time.monotonic() + timeout + GRACE, True
    while True:
        ready = select.select([bell], [], [], 0.05)[0] if bell_open else time.sleep(0.01)
        if ready and not os.read(bell, 4096):
            bell_open = False
        new, offset = _new_events(channel, offset)
        for event in new:
            if event.get("event") in ("start", "load"):
                limit_at = time.monotonic() + timeout + GRACE
        events += new
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            events += _new_events(channel, offset)[0]
            return events, _ending(status)
        if time.monotonic() > limit_at:
            _kill(pid)
            events += _new_events(channel, offset)[0]
            return events, "killed"


def _new_events(channel: mmap.mmap, offset: int) -> tuple[list[dict], int]:
    end = min(HEADER.unpack_from(channel, 0)[0], CHANNEL)
    events = []
    while offset + LENGTH.size <= end:
        size = LENGTH.unpack_from(channel, offset)[0]
        body = channel[offset + LENGTH.size: offset + LENGTH.size + size]
        offset += LENGTH.size + size
        try:
            event = json.loads(body)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events, offset


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass
    os.waitpid(pid, 0)


def _ending(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"it was stopped by {signal.Signals(number).name}"
        except ValueError:
            return f"it was stopped by signal {number}"
    return f"it exited with code {os.waitstatus_to_exitcode(status)}"


# -- the child ------------------------------------------------------------------------------

def _child(channel: mmap.mmap, bell: int, lab: Lab, tests: list,
           loader: Callable[[Callable], types.ModuleType], timeout: float) -> None:
    """Load the student's code, run the tests, report each into `channel`; never returns.

    Everything the checker needs stays in this function's locals and closures, out of the
    reach of student code once the guard is on."""
    offset = HEADER.size

    def send(event: dict) -> None:
        nonlocal offset
        body = json.dumps(event).encode()
        if len(body) > EVENT_CAP:
            event.update(record=None, omitted=event.get("omitted", 0), output="")
            body = json.dumps(event).encode()[:EVENT_CAP]
        if offset + LENGTH.size + len(body) > CHANNEL:
            return
        LENGTH.pack_into(channel, offset, len(body))
        channel[offset + LENGTH.size: offset + LENGTH.size + len(body)] = body
        offset += LENGTH.size + len(body)
        HEADER.pack_into(channel, 0, offset)
        try:
            os.write(bell, b".")
        except OSError:
            pass

    try:
        _set_apart(bell)
        output = CappedText()
        sys.stdout = sys.stderr = output
        home = getattr(loader, "home", None)
        refusals, trusted = guard.install(lab.names)
        snapshot, tampered = guard.Snapshot(guard.course_modules()), []

        def look() -> None:
            """After each call of the student's code: stop the test if it changed the course."""
            changed = snapshot.changed()
            if changed:
                tampered.append(changed)
                raise guard.Refused(f"The checker does not allow changing {changed}.")

        send({"event": "load"})
        module = _load(loader, trusted, timeout, send)
        if module is not None and not _owns_its_names(lab, module, home, send):
            module = None
        for k, test in enumerate(tests if module is not None else []):
            send({"event": "start", "k": k})
            event = _run_test(test, StudentModule(module, lab.purposes, look), home, timeout,
                              (refusals, trusted), output)
            send({"event": "done", "k": k, **event})
            changed = tampered[0] if tampered else snapshot.changed()
            if changed:
                send({"event": "problem", "text": (
                    f"Your code changed {changed}, which belongs to the course and which the "
                    "tests rely on, so no test of this check can be trusted. Leave the "
                    "course's modules as they are.")})
                break
    finally:
        os._exit(0)


def _set_apart(bell: int) -> None:
    """A process group of its own, no inherited descriptors but the bell, and a memory cap."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, bell)
    os.closerange(bell + 1, 65536)
    try:
        size = os.sysconf("SC_PAGE_SIZE") * int(open("/proc/self/statm").read().split()[0])
    except OSError:  # no /proc (the grader's scoring sandbox): the peak resident size
        size = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    try:
        resource.setrlimit(resource.RLIMIT_AS, (size + MEMORY_CAP, size + MEMORY_CAP))
    except (ValueError, OSError):
        pass


def _load(loader: Callable[[Callable], types.ModuleType], trusted: Callable, timeout: float,
          send: Callable[[dict], None]) -> types.ModuleType | None:
    try:
        with deadline(timeout):
            return loader(trusted)
    except CodeProblem as exc:
        send({"event": "problem", "text": str(exc)})
    except TimedOut:
        send({"event": "problem", "text": _lost_while_loading("killed", timeout)})
    except BaseException as exc:  # the loader itself was refused or broken by the code
        send({"event": "problem", "text": f"Your code could not be loaded: {_name(exc)}."})
    return None


def _owns_its_names(lab: Lab, module: types.ModuleType, home: str | None,
                    send: Callable[[dict], None]) -> bool:
    """Each name the lab asks for that the code defines must be a plain function compiled
    from the student's own file or cell (`home`): not imported from the course's package,
    made from text found elsewhere, or wrapped (a functools.partial of the course's answer)."""
    if home is None:  # the names a notebook defined (%check), not a file compiled here
        return True
    for name in lab.names:
        value = vars(module).get(name)
        if value is None:
            continue
        if type(value) is not types.FunctionType:
            where = f"a {_name(value)}, not a function"
        elif not same_name(value.__code__.co_filename, home):
            where = "code that is not in your file"
        else:
            continue
        send({"event": "problem", "text": (
            f"{name} is not written in your code: it is {where}. Write {name} yourself, as a "
            "def in your file.")})
        return False
    return True


def _run_test(test: Any, harness: StudentModule, home: str | None, timeout: float,
              guarded: tuple[Callable, Callable], output: CappedText) -> dict:
    """Run one test; its event: outcome, message, kept record, printed output, duration."""
    refusals, trusted = guarded
    recorder = Recorder()
    fixtures = {"harness": harness}
    if test.wants_record:
        fixtures["record"] = recorder
    before = len(refusals())
    started = time.perf_counter()
    try:
        with deadline(timeout):
            test.function(**fixtures)
        kind, message = "passed", ""
    except BaseException as exc:
        kind, message = _judge(exc, harness._module, home, timeout, trusted)
    duration = time.perf_counter() - started
    tried = refusals()[before:]
    if tried:
        kind, message = "error", (f"Your code tried {tried[0]}, which a harness never needs "
                                  "and the checker does not allow.")
    record, omitted = kept_record(recorder.messages)
    return {"outcome": kind, "message": cap(message), "record": record, "omitted": omitted,
            "output": output.take(), "duration": duration}


def _judge(exc: BaseException, module: types.ModuleType, home: str | None, timeout: float,
           trusted: Callable) -> tuple[str, str]:
    """What a test's exception means, in a sentence. The student's code may run (its __str__)
    under the time limit, outside the trusted window; the traceback is read inside it."""
    try:
        with deadline(timeout):
            if isinstance(exc, TimedOut):
                return "timeout", _too_long(timeout)
            if isinstance(exc, guard.Refused):
                return "error", str(exc.args[0]) if exc.args else "The checker refused that."
            if isinstance(exc, NotWrittenYet):
                return "failed", str(exc)
            if isinstance(exc, AssertionError):
                return "failed", str(exc) or "An assertion failed without saying why."
            text = exception_text(exc)
        source = getattr(module, "__source__", None) or ""
        with trusted():
            lineno = student_line(exc, home) if home is not None else None
        who = "Your code raised" if lineno else "The run stopped on"
        return "error", f"{who} {at_line(text, lineno, source)}"
    except BaseException:
        return "error", f"Your code raised {_name(exc)}, which could not even be described."


def _name(value: object) -> str:
    """The name of `value`'s class, read without running any code of the student's."""
    return type.__dict__["__name__"].__get__(type(value))
