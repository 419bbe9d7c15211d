"""Run a lab's tests in a child process that the caller watches and kills on time.

The caller (the CLI, the notebook's kernel, the grader's scoring process) forks; the child
loads the student's code and runs the tests one by one, writing each outcome into memory
shared with the caller (an anonymous mapping: no file, no descriptor, reachable in the child
only through the checker's own local variables, which the guard keeps student code away
from). The caller alone decides: a test still running past its limit is a timeout and its
child is killed; a child that exits or crashes mid-test fails that test; the remaining tests
then run in a fresh child. A cap reached in the child (checking/caps.py) is reported the
moment it is reached and decides that test, and a child that does not end the test soon after
is killed. Sentences come from the caller's own copy of the tests, and every text, record and
output is cut to a size, so a report is complete, honest and small whatever the student's code
does. Each outcome is handed, as it arrives, to a callback (`on_outcome`, for a live display);
an interrupt (KeyboardInterrupt) kills the child and goes on up.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import posix
import resource
import select
import signal
import struct
import sys
import time
import types
from _json import encode_basestring_ascii, make_encoder
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from agentlab_magics.checking import caps, guard
from agentlab_magics.checking.deadline import TimedOut, deadline, keep_handlers
from agentlab_magics.checking.report import CheckReport, SentRequest, TestOutcome
from agentlab_magics.checking.student import (
    CodeProblem, NotWrittenYet, StudentModule, at_line, exception_text, same_name, student_line)
from agentlab_magics.course import Lab

TEXT_CAP = 2_000          # characters of one message or string in a report
OUTPUT_CAP = 4_000        # characters of printed output kept for one test
RECORD_EDGE = 25          # messages kept at each end of a long record
REQUESTS_KEPT = 12        # requests a test's model was sent that a report lists (the last ones)
SHAPE_CAP = 400           # characters of one request's shape, or its refusal, in a report
REPORT_CAP = 1_000_000    # bytes of a whole report as JSON
MEMORY_CAP = 256 << 20    # bytes the child may add to what it had when it was made
GRACE = 1.0               # seconds past its limit before a test's child is killed
CAP_GRACE = 0.5           # seconds a test may go on after a cap was reached, before the kill
CHANNEL = 32 << 20        # bytes of shared memory for the outcomes
EVENT_CAP = 256 << 10     # bytes of one outcome in the channel
HEADER = struct.Struct("<Q")
LENGTH = struct.Struct("<I")
OUTCOMES = {"passed", "failed", "error", "timeout"}
MALFORMED = ("The report of this test came back malformed, which only code that reaches into "
             "the checker can cause: leave the checker alone.")
OnOutcome = Callable[[TestOutcome], None]


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
    """The `record` fixture: keeps the list a test's run appended to, and the lab model it ran
    against (when the test names it), for the report."""

    def __init__(self) -> None:
        self.messages: list | None = None
        self.model: Any = None

    def __call__(self, messages: list, model: Any = None) -> list:
        self.messages, self.model = messages, model
        return messages

    def look(self) -> None:
        """Stop the test (caps.reached) once the kept list is longer than RECORD_CAP."""
        messages = self.messages
        if type(messages) is list and list.__len__(messages) > caps.RECORD_CAP:
            caps.reached(caps.record_too_long(list.__len__(messages)))


def sent_requests(model: Any) -> tuple[list[dict] | None, int]:
    """The last REQUESTS_KEPT requests a lab ScriptedModel was sent, each as its number, shape
    and the strict provider's refusal, and how many there were. Only exact types are read (the
    student's run had the model in hand), so no code of the student's runs."""
    from agentlab_magics.lab.model import Request, ScriptedModel
    from agentlab_magics.lab.views import shape

    fields = object.__getattribute__(model, "__dict__") if type(model) is ScriptedModel else None
    calls = dict.get(fields, "calls") if type(fields) is dict else None
    if type(calls) is not list:
        return None, 0
    kept = []
    for number, request in list(enumerate(calls, start=1))[-REQUESTS_KEPT:]:
        own = object.__getattribute__(request, "__dict__") if type(request) is Request else {}
        messages = plain(dict.get(own, "messages")) if type(own) is dict else None
        refused = dict.get(own, "refused") if type(own) is dict else None
        kept.append({"number": number,
                     "shape": cap(shape(messages) if type(messages) is list else "?", SHAPE_CAP),
                     "refused": cap(refused, SHAPE_CAP) if type(refused) is str else None})
    return kept, len(calls)


class CappedText:
    """A stand-in for sys.stdout and sys.stderr that keeps the first OUTPUT_CAP characters.
    Student code holds it (as sys.stdout), so it takes no attributes of its own: the checker's
    call of `take` after each test is always this class's."""

    __slots__ = ("parts", "size", "dropped")

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
                   timeout: float, on_outcome: OnOutcome | None = None) -> CheckReport:
    """Every test of `tests` run against what `loader` makes, in children killed on time;
    `on_outcome` is called with each outcome, in order, as soon as it is known."""
    outcomes: list[TestOutcome] = []
    problem = None
    while problem is None and len(outcomes) < len(tests):
        pending = tests[len(outcomes):]
        tally = _Tally(pending, on_outcome)
        ending = _one_child(lab, pending, loader, timeout, tally)
        problem = tally.problem
        if problem is None and tally.started is not None and len(tally.done) < len(pending):
            tally.add(_lost(pending[len(tally.done)], ending, timeout))
        elif problem is None and len(tally.done) < len(pending):
            problem = _lost_while_loading(ending, timeout)
        outcomes += tally.done
    report = CheckReport(lab_id=lab.id, title=lab.title, outcomes=outcomes, problem=problem)
    return _within_size(report)


class _Tally:
    """What one child has reported so far, read event by event: the outcomes in order (each
    handed on at once), the caps reached, the test started last, the problem it stopped on.
    A test's outcome counts once the child has also said the course was as it left it after
    the test ("clean"): a child that ends between the two has not finished the test."""

    def __init__(self, pending: list, on_outcome: OnOutcome | None) -> None:
        self.pending, self.on_outcome = pending, on_outcome
        self.done: list[TestOutcome] = []
        self.capped: dict[int, str] = {}
        self.started: int | None = None
        self.problem: str | None = None
        self.told: dict | None = None  # the "done" event of the test not yet said clean

    def read(self, event: dict) -> None:
        kind, k = event.get("event"), event.get("k")
        if kind == "problem":
            self.problem = cap(str(event.get("text", "")))
        elif kind == "start":
            self.started, self.told = k, None
        elif kind == "cap" and type(k) is int:
            self.capped.setdefault(k, cap(str(event.get("text", ""))))
        elif kind == "done" and k == len(self.done) and len(self.done) < len(self.pending):
            self.told = event
        elif kind == "clean" and self.told is not None and k == self.told.get("k"):
            self.add(_outcome(self.pending[k], self.told))
            self.told = None

    def add(self, outcome: TestOutcome) -> None:
        """The next test's outcome; a cap reached during that test decides it."""
        sentence = self.capped.get(len(self.done))
        if sentence is not None:
            outcome = outcome.model_copy(update={"outcome": "error", "message": sentence})
        self.done.append(outcome)
        if self.on_outcome is not None:
            self.on_outcome(outcome)


def _outcome(test: Any, event: dict) -> TestOutcome:
    """A test's outcome from the child's event, with the sentence from the caller's copy; an
    event whose fields are not what the child writes (only code that reached into the child's
    channel could send one) is that test's error."""
    try:
        return _read_outcome(test, event)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return TestOutcome(name=test.name, sentence=test.sentence, group=test.group,
                           outcome="error", message=MALFORMED)


def _read_outcome(test: Any, event: dict) -> TestOutcome:
    kind = event.get("outcome") if event.get("outcome") in OUTCOMES else "error"
    record = event.get("record")
    return TestOutcome(name=test.name, sentence=test.sentence, group=test.group, outcome=kind,
                       message=cap(str(event.get("message", ""))),
                       record=record if isinstance(record, list) else None,
                       record_omitted=int(event.get("omitted", 0) or 0),
                       requests=_requests(event.get("requests")),
                       requests_sent=int(event.get("requests_sent", 0) or 0),
                       output=cap(str(event.get("output", "")), OUTPUT_CAP + 100),
                       duration=float(event.get("duration", 0.0) or 0.0))


def _requests(value: Any) -> list[SentRequest] | None:
    """The requests a child listed, each field of its own type whatever the child sent."""
    if not isinstance(value, list):
        return None
    return [SentRequest(number=int(item.get("number", 0) or 0),
                        shape=cap(str(item.get("shape", "")), SHAPE_CAP),
                        refused=cap(str(item["refused"]), SHAPE_CAP) if item.get("refused")
                        else None)
            for item in value[-REQUESTS_KEPT:] if isinstance(item, dict)]


def _lost(test: Any, ending: str, timeout: float) -> TestOutcome:
    """The outcome of a test whose child never reported it."""
    if ending == "killed":
        return TestOutcome(name=test.name, sentence=test.sentence, group=test.group,
                           outcome="timeout", message=_too_long(timeout), duration=timeout)
    return TestOutcome(name=test.name, sentence=test.sentence, group=test.group, outcome="error",
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
               timeout: float, tally: _Tally) -> str:
    """Fork a child for `tests`, follow it into `tally` until it ends or overruns; how it ended.
    However the following stops (an interrupt, a callback that raised), the child is killed."""
    channel = mmap.mmap(-1, CHANNEL, flags=mmap.MAP_SHARED)
    bell_read, bell_write = os.pipe()
    sys.stdout.flush(), sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child never returns; its work is checked by results)
        os.close(bell_read)
        _child(channel, bell_write, lab, tests, loader, timeout)
    os.close(bell_write)
    try:
        return _follow(pid, channel, bell_read, timeout, tally)
    finally:
        os.close(bell_read)
        channel.close()


def _follow(pid: int, channel: mmap.mmap, bell: int, timeout: float, tally: _Tally) -> str:
    """Read the child's events into `tally` as they come until it ends or overruns (then it is
    killed); how it ended. Whatever stops this early kills the child first. The clock starts
    afresh once for the loading and once for each test, however often the child says so, so
    no child outlives (tests + 1) time limits."""
    offset, limit_at, bell_open = HEADER.size, time.monotonic() + timeout + GRACE, True
    reaped, clocked = False, set()
    try:
        while True:
            ready = select.select([bell], [], [], 0.05)[0] if bell_open else time.sleep(0.01)
            if ready and not os.read(bell, 4096):
                bell_open = False
            new, offset = _new_events(channel, offset)
            for event in new:
                clock = _clock(event, len(tally.pending))
                if clock is not None and clock not in clocked:
                    clocked.add(clock)
                    limit_at = time.monotonic() + timeout + GRACE
                elif event.get("event") == "cap":
                    limit_at = min(limit_at, time.monotonic() + CAP_GRACE)
            ended, status = os.waitpid(pid, os.WNOHANG)
            overran = not ended and time.monotonic() > limit_at
            if overran:
                _kill(pid)
            reaped = bool(ended) or overran
            new += _new_events(channel, offset)[0] if reaped else []
            for event in new:
                tally.read(event)
            if reaped:
                return _ending(status) if ended else "killed"
    except BaseException:
        if not reaped:
            _kill(pid)
        raise


def _clock(event: dict, tests: int) -> tuple | None:
    """What an event starts the clock for: the loading, or one of the `tests`; else None."""
    kind, k = event.get("event"), event.get("k")
    if kind == "load":
        return (kind,)
    if kind == "start" and type(k) is int and 0 <= k < tests:
        return (kind, k)
    return None


def _new_events(channel: mmap.mmap, offset: int) -> tuple[list[dict], int]:
    end = min(HEADER.unpack_from(channel, 0)[0], CHANNEL)
    events = []
    while offset + LENGTH.size <= end:
        size = LENGTH.unpack_from(channel, offset)[0]
        body = channel[offset + LENGTH.size: offset + LENGTH.size + size]
        offset += LENGTH.size + size
        try:
            event = json.loads(body)
        except (ValueError, RecursionError):  # only code that reached the channel writes these
            continue
        if isinstance(event, dict):
            events.append(event)
    return events, offset


def _kill(pid: int) -> None:
    """Kill the child `pid` and its process group, and reap it."""
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


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
    reach of student code once the guard is on; the functions it calls are bound here, before
    the student's code runs, so rebinding this module's names changes none of them."""
    run_test, load, owns_its_names, wrap = _run_test, _load, _owns_its_names, StudentModule
    offset = HEADER.size
    encode, pack_length, pack_header, write, size_of = (
        _json_encoder(), LENGTH.pack_into, HEADER.pack_into, posix.write, len)
    prefix, event_cap, channel_size = LENGTH.size, EVENT_CAP, CHANNEL

    def send(event: dict) -> None:
        """Write `event` into the channel using only what was bound before student code ran."""
        nonlocal offset
        body = encode(event)
        if size_of(body) > event_cap:
            event.update(record=None, omitted=event.get("omitted", 0), output="")
            body = encode(event)[:event_cap]
        start, end = offset + prefix, offset + prefix + size_of(body)
        if end > channel_size:
            return
        pack_length(channel, offset, size_of(body))
        channel[start:end] = body
        offset = end
        pack_header(channel, 0, offset)
        try:
            write(bell, b".")
        except OSError:
            pass

    try:
        _set_apart(bell)
        output = CappedText()
        sys.stdout = sys.stderr = output
        home = getattr(loader, "home", None)
        running: list[int] = []  # the tests started, the one running now last
        told: set[int] = set()

        def tell(sentence: str) -> None:
            """A cap was reached: report it once a test, whatever the code then does with the
            exception that follows (the caller decides the test from this report)."""
            if running and running[-1] not in told:
                told.add(running[-1])
                with _signals_held():
                    send({"event": "cap", "k": running[-1], "text": cap(sentence)})

        caps.listen(tell)  # before the guard, which refuses adding audit hooks
        keep_handlers()  # before the guard, which takes signal handlers away
        refusals, read = guard.install(lab.names, student_line)
        course = guard.course_modules()
        # after each call of the student's code, the course's names; after each test, the
        # standard packages the course uses and the tests' own data too (a change found
        # then fails the whole check all the same)
        changed_since, tampered = guard.Snapshot(course).changed, []
        changed_in_test = guard.Snapshot(course + guard.standard_modules(course),
                                         data=True).changed
        refusal = guard.Refused

        def look() -> None:
            """After each call of the student's code: stop the test if it changed the course."""
            changed = changed_since()
            if changed:
                tampered.append(changed)
                raise refusal(f"The checker does not allow changing {changed}.")

        send({"event": "load"})
        module = load(loader, read, timeout, send)
        if module is not None and not owns_its_names(lab, module, home, send):
            module = None
        for k, test in enumerate(tests if module is not None else []):
            running.append(k)
            send({"event": "start", "k": k})
            event = run_test(test, wrap(module, lab.purposes, look), home, timeout,
                             (refusals, read), output)
            send({"event": "done", "k": k, **event})
            changed = tampered[0] if tampered else changed_in_test()
            if changed:
                send({"event": "problem", "text": (
                    f"Your code changed {changed}, which belongs to the course and which the "
                    "tests rely on, so no test of this check can be trusted. Leave the "
                    "course's modules as they are.")})
                break
            send({"event": "clean", "k": k})
    finally:
        os._exit(0)


@contextmanager
def _signals_held() -> Iterator[None]:
    """The time limit's and the probe's signals wait until the block is done (a report half
    written into the channel would be lost)."""
    held = {signal.SIGALRM, signal.SIGPROF}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def _json_encoder() -> Callable[[Any], bytes]:
    """JSON as bytes, from the C encoder's parts bound now: a student who later patches json
    (its functions, its encoder class or module) changes nothing the channel carries."""
    encode = make_encoder(None, _not_json, encode_basestring_ascii, None, ": ", ", ", False,
                          False, False)
    join, to_bytes = "".join, str.encode
    return lambda value: to_bytes(join(encode(value, 0)))


def _not_json(value: Any) -> None:
    raise TypeError(f"{_name(value)} is not JSON")


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


def _load(loader: Callable[[Callable], types.ModuleType], read: Callable, timeout: float,
          send: Callable[[dict], None]) -> types.ModuleType | None:
    try:
        with deadline(timeout):
            return loader(read)
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


def _judge(exc: BaseException, module: types.ModuleType, home: str | None, timeout: float,
           read: Callable) -> tuple[str, str]:
    """What a test's exception means, in a sentence. The student's code may run (its __str__)
    under the time limit, with the guard on; the traceback is read by `read`, with it open."""
    try:
        with deadline(timeout):
            if isinstance(exc, TimedOut):
                return "timeout", _too_long(timeout)
            if isinstance(exc, caps.CapReached):
                return "error", str(exc.args[0]) if exc.args else "A cap was reached."
            if isinstance(exc, MemoryError):
                return "error", caps.memory_ran_out(MEMORY_CAP >> 20)
            if isinstance(exc, guard.Refused):
                return "error", str(exc.args[0]) if exc.args else "The checker refused that."
            if isinstance(exc, NotWrittenYet):
                return "failed", str(exc)
            if isinstance(exc, AssertionError):
                return "failed", str(exc) or "An assertion failed without saying why."
            text = exception_text(exc)
        source = getattr(module, "__source__", None) or ""
        lineno = read(exc, home) if home is not None else None
        who = "Your code raised" if lineno else "The run stopped on"
        return "error", f"{who} {at_line(text, lineno, source)}"
    except BaseException:
        return "error", f"Your code raised {_name(exc)}, which could not even be described."


def _run_test(test: Any, harness: StudentModule, home: str | None, timeout: float,
              guarded: tuple[Callable, Callable], output: CappedText, judge=_judge,
              take=CappedText.take, length=len) -> dict:
    """Run one test; its event: outcome, message, kept record, printed output, duration.
    What decides the outcome is bound as its defaults, when this module is imported: a
    student's code that rebinds this module's names (and puts them back before the check
    looks) cannot turn a failure into a pass."""
    refusals, read = guarded
    recorder = Recorder()
    fixtures = {"harness": harness}
    if test.wants_record:
        fixtures["record"] = recorder
    before = length(refusals())
    started = time.perf_counter()
    try:
        with deadline(timeout), caps.probing(recorder.look):
            test.function(**fixtures)
        kind, message = "passed", ""
    except BaseException as exc:
        kind, message = judge(exc, harness._module, home, timeout, read)
    duration = time.perf_counter() - started
    tried = refusals()[before:]
    if tried:
        kind, message = "error", (f"Your code tried {tried[0]}, which a harness never needs "
                                  "and the checker does not allow.")
    record, omitted = kept_record(recorder.messages)
    requests, sent = sent_requests(recorder.model)
    return {"outcome": kind, "message": cap(message), "record": record, "omitted": omitted,
            "requests": requests, "requests_sent": sent, "output": take(output),
            "duration": duration}


def _name(value: object) -> str:
    """The name of `value`'s class, read without running any code of the student's."""
    return type.__dict__["__name__"].__get__(type(value))
