"""Check student code against a lab: the lab's test functions, one sentence each.

`run` is the one entry point, for `%%check`, `agentlab check`, `grade()` and the grader. The
tests run here, in the judge; the student's code runs in a student process of its own
(`judge.StudentProcess`), started fresh for the check, loading only the student's source, and
killed on time: nothing the code does (raise, print, exit, hang, patch, lie) reaches the tests
or their verdicts. The tests are plain functions taking the fixtures `harness` (the student's
module, as `judge.StudentCode`; a missing name fails with a sentence) and `record` (keeps the
list a run appended to, and its model, for the report).

A test that runs out of time names the line of the student's code it was spinning on; once one
has (in this check, or in an earlier check of the same code the caller names), every later test
of the check is looked at every `GLANCE` seconds and stopped, rather than
waited out, once two looks in a row find it on that same line having done nothing else between
(`judge.Glance`); its sentence says so.

A lab's own tests come first; then, for a lab that builds on earlier ones, the visible tests
of those labs that read only names its file still holds, each under its group's heading
("Still holds from lesson 3"): what a later lesson must not break.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import re
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentlab_magics.checking.cell_source import (
    CELL,
    CodeProblem,
    NotWrittenYet,
    at_line,
    exception_text,
    read_source,
    source_line,
    syntax_sentence,
)
from agentlab_magics.checking.diagnosis import cause_of, went_on_after, went_on_evidence
from agentlab_magics.checking.kept import cap, kept_record, plain, sent_requests, within_size
from agentlab_magics.checking.one_cpu import join, judge_here
from agentlab_magics.checking.parting import (
    copy_runs,
    parting,
    runs_of,
    runs_text,
)
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.protocol.caps import MEMORY_CAP, OUTPUT_CAP
from agentlab_magics.checking.report import CheckReport, Outcome, TestOutcome
from agentlab_magics.checking.stand_ins import description_of
from agentlab_magics.checking.stopped import Ended, OutOfTime, RecordCap, Stopped
from agentlab_magics.checking.student_code import StudentCode
from agentlab_magics.checking.time_limit import TIME_LIMIT, checked
from agentlab_magics.course import Lab, find_lab
from agentlab_magics.course.catalog import file_names, harness_names, purposes_for
from agentlab_magics.course.heldback import held_back_module, is_held_back, visible_module
from agentlab_magics.course.lab_folder import HELD_BACK_RUNS, is_students_copy
from agentlab_magics.course.labtests import reads
from agentlab_magics.course.labtests.kit import EventsDiffer
from agentlab_magics.course.packs import stamp
from agentlab_magics.lab.caps import (
    RECORD_CAP,
    CapReached,
    memory_ran_out,
    reached,
    record_too_long,
)
from agentlab_magics.lab.model import ScriptError

# The longest time limit a test may be given: a day. Anything longer is a typo.
# Seconds between two looks at a later test of a check whose test spun out its time on a line:
# two looks in a row on that line, with no message between, stop the test.
GLANCE = 0.5
Launch = Callable[[], StudentProcess]


@dataclass(frozen=True)
class LabTest:
    """One test of a lab: its function, the sentence the student reads, the fixtures it takes."""

    name: str
    function: Callable
    sentence: str
    wants_record: bool
    held_back: bool
    group: str = ""
    """The heading of an earlier lab's test that still holds here; "" for the lab's own."""


def sentence(function: Any) -> str:
    """The first paragraph of a test's docstring, on one line: what the student reads."""
    doc = (function.__doc__ or function.__name__).strip().split("\n\n")[0]
    return " ".join(doc.split())


def lab_tests(lab: Lab, *, held_back: bool = False, only: list[str] | None = None,
              still_holds: bool = True) -> list[LabTest]:
    """The lab's tests in file order: the visible ones, then, when asked, the held-back ones
    of the instructor's module (none where the instructor package is not installed), then,
    unless `still_holds` is false, the earlier labs' tests that still hold (`still_holding`)."""
    modules = [visible_module(lab)]
    hidden = held_back_module(lab) if held_back else None
    if hidden is not None:
        modules.append(hidden)
    tests = [test for module in modules for test in _tests_of(module)]
    if still_holds:
        tests += still_holding(lab, {test.name for test in tests})
    return [test for test in tests if only is None or test.name in only]


def still_holding(lab: Lab, own: set[str]) -> list[LabTest]:
    """The visible tests of the labs `lab` builds on that read only names its file holds,
    lab by lab, each marked with its lab's heading; a test named like one in `own` (checkpoint
    A takes lessons 3 to 5's as its own) runs once, as the lab's own."""
    carried: list[LabTest] = []
    holds = file_names(lab.id)
    for earlier in map(find_lab, lab.builds_on):
        heading = f"Still holds from lesson {earlier.lesson}"
        carried += [replace(test, group=heading)
                    for test in _tests_of(visible_module(earlier))
                    if test.name not in own and reads(test.function) <= holds]
        own = own | {test.name for test in carried}
    return carried


# What stops a run from outside it: the checker's stops (time, a broken protocol, an ended
# process) and the lab's caps.
CUT_SHORT = (Stopped, CapReached)


def ran_on(stopped: BaseException | None) -> bool:
    """Whether a test stopped because the run went on past its end: a cap on calls or on the
    record was reached, or the test's script had no reply left."""
    described = description_of(stopped) if stopped is not None else None
    return isinstance(stopped, CapReached) or (
        described is not None and described.type == "ScriptError"
        and described.module == ScriptError.__module__)


def used_up(text: str) -> str:
    """The facts of a script used up ("its replies ran out at model call 3"), never its advice
    to add a step: the script is the test's, not the student's."""
    found = re.search(r"this is model call (\d+)", text)
    return f"its replies ran out at model call {found.group(1)}" if found else "its replies ran out"


@functools.cache
def _tests_of(module: types.ModuleType) -> tuple[LabTest, ...]:
    """The tests a module of tests holds, read once (every check of a later lab reads its
    earlier labs' modules again)."""
    return tuple(LabTest(name, function, sentence(function),
                         "record" in inspect.signature(function).parameters,
                         is_held_back(function))
                 for name, function in vars(module).items()
                 if name.startswith("test_") and inspect.isfunction(function))


@dataclass(frozen=True)
class Source:
    """The student's code as text, and the file name its lines are counted in."""

    text: str
    filename: str


def time_limit_of(lab: Lab) -> float:
    """Seconds each test of `lab` may take where the one who checks gives no limit: the lab's
    own, or the limit every check gives."""
    return lab.time_limit or TIME_LIMIT


def run(lab_id: str, harness: types.ModuleType | str | Path, *, timeout: float | None = None,
        only: list[str] | None = None, held_back: bool = False,
        source: str | None = None, on_outcome: Callable[[TestOutcome], None] | None = None,
        launch: Launch | None = None, spinning: int | None = None) -> CheckReport:
    """Check `harness` against the lab's tests (all, or the ones named in `only`); the tests
    the instructor holds back run only when `held_back` is true. `on_outcome` is handed each
    test's outcome, in order, as soon as it is known (for a live display).

    `harness` is a path of a .py file, or a module already made (the notebook's names, which
    are then served by a fork of this process); with `source`, `harness` is ignored and the
    source is checked as the lab's module (`CELL` names it). `launch` starts a student process
    (default: a fresh interpreter here; the grader's runs in its sandbox). `spinning` is a line
    an earlier check of the same code ran out of time on: every test is glanced at for it.
    """
    lab = find_lab(lab_id)
    seconds = checked(time_limit_of(lab) if timeout is None else timeout)
    tests = lab_tests(lab, held_back=held_back, only=only)
    try:
        code = _code(lab, harness, source)
    except CodeProblem as exc:
        return CheckReport(lab_id=lab.id, title=lab.title, problem=str(exc))
    trial = Trial(lab, tests, code, seconds, launch or StudentProcess.local, spinning)
    return within_size(trial.report(on_outcome))


def reference_runs_of(lab: Lab, held_back: bool) -> dict[str, Any]:
    """The reference's runs of the lab's visible tests (or, with `held_back`, its held-back
    ones) that called a lab model, by test name (checking.parting): a student copy's (every
    built-in lab's is one) as its folder holds them, a built-in lab's held-back ones as its part
    in the instructor package does, and an authored pack lab's made from its reference when
    first asked for, again once a file of it changed."""
    if lab.built_in and held_back:
        part = lab.authored
        return copy_runs(part, HELD_BACK_RUNS) if part is not None else {}
    if is_students_copy(lab.folder):
        return {} if held_back else copy_runs(lab.folder)
    key = (lab.id, str(lab.folder), stamp([lab.folder]), held_back)
    if key not in _made_runs:
        _made_runs[key] = {}  # asked again while they are made (the reference fails): none
        _made_runs[key] = recorded_runs_of(lab, held_back)
    return _made_runs[key]


_made_runs: dict[tuple, dict[str, Any]] = {}


def copy_runs_text(lab: Lab) -> str:
    """What a student copy of the pack lab holds of its reference's runs (REFERENCE_RUNS)."""
    return runs_text(reference_runs_of(lab, False))


def recorded_runs_of(lab: Lab, held_back: bool = False) -> dict[str, Any]:
    """The runs of the lab's reference in its visible tests (or held-back ones) that called a
    lab model (`parting.runs_of`), checked here and now."""
    wanted = [test.name for test in lab_tests(lab, held_back=held_back)
              if test.held_back == held_back]
    report = run(lab.id, "", source=lab.reference, held_back=held_back, only=wanted)
    return runs_of(report.outcomes)


def _code(lab: Lab, harness: types.ModuleType | str | Path, source: str | None
          ) -> Source | types.ModuleType:
    """What is checked: the source (compiled here first, so a syntax error is a sentence and
    nothing runs), or a module of this process."""
    if source is not None:
        code = Source(source, CELL)
    elif isinstance(harness, types.ModuleType):
        return harness
    else:
        code = Source(read_source(harness, lab.module), str(harness))
    try:
        ast.parse(code.text.removeprefix("\ufeff"), code.filename)
    except SyntaxError as exc:
        exc.filename = exc.filename or code.filename
        raise CodeProblem(syntax_sentence(exc, code.text)) from None
    except (RecursionError, MemoryError):  # how CPython 3.11 reports code nested too deeply
        raise CodeProblem(f"{Path(code.filename).name} is nested too deeply for Python to "
                          "compile: break the deepest expression into steps.") from None
    except ValueError:  # text that is not Python's: a lone surrogate, which JSON may carry
        raise CodeProblem(f"{Path(code.filename).name} holds a character that is not text "
                          "(a lone surrogate): delete it, or type it again.") from None
    return Source(code.text.removeprefix("\ufeff"), code.filename)


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
        """Stop the test once the kept list is longer than RECORD_CAP."""
        if type(self.messages) is list and len(self.messages) > RECORD_CAP:
            reached(record_too_long(len(self.messages)))

    def kept(self, stopped: BaseException | None) -> tuple[list | None, int, list[str] | None]:
        """The record's ends for the report: those the student process sent when it stopped
        a list that grew past the cap (never whole here, so never judged), else the kept
        list's own (kept_record)."""
        if isinstance(stopped, RecordCap):
            edges, length = stopped.edges, stopped.length
            return plain(edges), max(length - len(edges), 0), None
        return kept_record(self.messages)


class Trial:
    """One check: the lab's tests against one student's code, in order, each given the
    student process the one before left alive (a fresh one after a death or a kill)."""

    def __init__(self, lab: Lab, tests: list[LabTest], code: Source | types.ModuleType,
                 timeout: float, launch: Launch, spinning: int | None = None) -> None:
        self.lab, self.tests, self.code, self.timeout, self.launch = (
            lab, tests, code, timeout, launch)
        self.names = sorted(harness_names() | file_names(lab.id))  # the lab's given code too
        self.purposes = purposes_for(lab.id)
        self.spinning = spinning
        """The line the first test that ran out of time was on, once one has."""

    def report(self, on_outcome: Callable[[TestOutcome], None] | None) -> CheckReport:
        """Every test's outcome, the judge's thread kept on one CPU with the student process
        meanwhile (`one_cpu`: they take turns, and a turn passed on one CPU is cheap)."""
        with judge_here():
            return self._tests(on_outcome)

    def _tests(self, on_outcome: Callable[[TestOutcome], None] | None) -> CheckReport:
        outcomes: list[TestOutcome] = []
        process: StudentProcess | None = None
        try:
            for test in self.tests:
                if process is None or not process.alive:
                    started = self.start()
                    if isinstance(started, str):
                        return CheckReport(lab_id=self.lab.id, title=self.lab.title,
                                           outcomes=outcomes, problem=started)
                    process = started
                outcome = self.outcome(test, process)
                if self.lab.fresh_per_test:
                    process.close()
                outcomes.append(outcome)
                if on_outcome is not None:
                    on_outcome(outcome)
        finally:
            if process is not None:
                process.close()
        return CheckReport(lab_id=self.lab.id, title=self.lab.title, outcomes=outcomes)

    def start(self) -> StudentProcess | str:
        """A student process holding the student's code, or the sentence saying why not."""
        try:
            process = self.launch() if isinstance(self.code, Source) else StudentProcess.forked(
                self.code, getattr(self.code, "__file__", "") or "")
            join(process.speaker)
        except Stopped as exc:
            return (f"The checker could not start the process that runs your code "
                    f"({exc.args[0] if exc.args else 'it ended'}); try again.")
        if not isinstance(self.code, Source):
            module = vars(self.code)
            process.names = {name: callable(module[name]) for name in self.names
                             if name in module}
            return process
        try:
            process.load(self.code.text, self.code.filename, self.lab.module, self.names,
                         [os.getcwd()], self.timeout)
        except BaseException as exc:
            process.kill()
            return self.unloaded(exc)
        borrowed = [name for name in self.lab.names if name in process.elsewhere]
        if borrowed:
            process.kill()
            name = borrowed[0]
            return (f"{name} is not written in your code: it is {process.elsewhere[name]}. "
                    f"Write {name} yourself, in your file.")
        return process

    def unloaded(self, exc: BaseException) -> str:
        """Why the student's code could not be loaded, in a sentence."""
        if isinstance(exc, OutOfTime):
            return (f"Loading your code took longer than {self.timeout:g} s: is there a loop at "
                    "the top level of the file that never ends?")
        if isinstance(exc, Ended):
            return (f"Loading your code ended the process that runs it ({exc.args[0]}), so "
                    "nothing could be checked: look for os._exit or sys.exit at the top level "
                    "of the file.")
        if isinstance(exc, CUT_SHORT):
            return str(exc.args[0]) if exc.args else "The check stopped loading your code."
        described = description_of(exc)
        if described is None:
            raise exc
        text = f"{described.type}: {described.text}" if described.text else described.type
        name = Path(self.code.filename).name.strip("<>")
        return f"Running {name} raised {self._at(text, described.lines)}"

    def outcome(self, test: LabTest, process: StudentProcess) -> TestOutcome:
        """Run one test against `process`; its outcome, with the run's record and output."""
        recorder = Recorder()
        fixtures: dict[str, Any] = {"harness": StudentCode(process, self.purposes)}
        if test.wants_record:
            fixtures["record"] = recorder
        process.begin(self.timeout, recorder.look,
                      None if self.spinning is None else (GLANCE, self.spinning))
        started, stopped = time.perf_counter(), None
        kind: Outcome
        try:
            test.function(**fixtures)
            kind, message = "passed", ""
        except KeyboardInterrupt:
            process.kill()
            raise
        except BaseException as exc:
            stopped = exc
            kind, message = self.judged(exc)
        duration = time.perf_counter() - started
        output = process.end()
        record, omitted, complaints = recorder.kept(stopped)
        requests, sent = sent_requests(recorder.model)
        went_on = went_on_after(record, requests)
        if went_on is not None and ran_on(stopped):
            message = went_on_evidence(*went_on)
        outcome = TestOutcome(name=test.name, sentence=test.sentence, group=test.group,
                              outcome=kind, message=cap(message), record=record,
                              record_omitted=omitted, record_complaints=complaints,
                              requests=requests, requests_sent=sent,
                              output=cap(output, OUTPUT_CAP + 100), duration=duration,
                              events=plain(stopped.events)
                              if isinstance(stopped, EventsDiffer) else None)
        if isinstance(stopped, OutOfTime):
            self.spun(outcome, stopped)
        reference = (reference_runs_of(self.lab, test.held_back).get(test.name)
                     if stopped is not None and requests else None)
        parted = (parting(requests, sent, reference, cut=isinstance(stopped, CUT_SHORT))
                  if requests and reference else None)
        if parted and test.held_back:  # no shape of a held-back run is shown, only the sentence
            outcome.message = cap(f"{outcome.message} {parted['summary']}")
        else:
            outcome.parting = parted
        outcome.cause = cause_of(outcome)
        return outcome

    def spun(self, outcome: TestOutcome, stopped: OutOfTime) -> None:
        """Name the line of the student's code a test that ran out of time was on (a line the
        source has, whatever the process said); the first such line is the one later tests
        are glanced at for."""
        line = self._line([stopped.line] if stopped.line is not None else [])
        if line is None:
            return
        source = self._source()
        text = source_line(source, line).strip()
        place = "your cell" if self._filename() == CELL else Path(self._filename()).name
        outcome.spun_on = line
        outcome.spun_at = f"line {line} of {place}" + (f" (`{cap(text, 80)}`)" if text else "")
        if not stopped.early and self.spinning is None:
            self.spinning = line

    def judged(self, exc: BaseException) -> tuple[Outcome, str]:
        """What a test's exception means, in a sentence."""
        if isinstance(exc, OutOfTime) and exc.early:
            return "timeout", (f"Stopped after about {2 * GLANCE:g} s, not waited out: your "
                               "code stayed on the line where an earlier test ran out of its "
                               f"{self.timeout:g} s, doing nothing else.")
        if isinstance(exc, OutOfTime):
            return "timeout", (f"This test did not finish within {self.timeout:g} s: your "
                               "code is probably looping forever or waiting for something.")
        if isinstance(exc, Ended):
            return "error", (f"Your code ended the process running this test ({exc.args[0]}), "
                             "so the test could not finish: look for os._exit, a crash in very "
                             "deep recursion, or memory running out.")
        if isinstance(exc, CUT_SHORT):
            return "error", str(exc.args[0]) if exc.args else "The check stopped this test."
        described = description_of(exc)
        if described is not None:
            if described.type == "MemoryError" and described.module == "builtins":
                return "error", memory_ran_out(MEMORY_CAP >> 20)
            if described.type == "ScriptError" and described.module == ScriptError.__module__:
                return "error", ("Your code called the model more times than this run needs "
                                 f"({used_up(described.text)}): look at what makes run_agent "
                                 "call the model again.")
            text = f"{described.type}: {described.text}" if described.text else described.type
            lineno = self._line(described.lines)
            who = "Your code raised" if lineno else "The run stopped on"
            return "error", f"{who} {self._at(text, described.lines)}"
        if isinstance(exc, NotWrittenYet):
            return "failed", str(exc)
        if isinstance(exc, AssertionError):
            return "failed", str(exc) or "An assertion failed without saying why."
        return "error", f"The run stopped on {exception_text(exc)}"

    def _source(self) -> str:
        """The student's code as text ("" for a module that has none)."""
        if isinstance(self.code, Source):
            return self.code.text
        return getattr(self.code, "__source__", "") or ""

    def _filename(self) -> str:
        if isinstance(self.code, Source):
            return self.code.filename
        return getattr(self.code, "__file__", "") or ""

    def _line(self, lines: list[int]) -> int | None:
        """The deepest line of the student's file an exception went through, if it is one."""
        count = len(self._source().splitlines())
        return lines[-1] if lines and 0 < lines[-1] <= max(count, 1) else None

    def _at(self, text: str, lines: list[int]) -> str:
        return at_line(cap(text), self._line(lines), self._source())


__all__ = ["CodeProblem", "LabTest", "lab_tests", "run",
           "sentence", "still_holding"]
