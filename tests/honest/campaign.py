"""Every honest style through every path, computed once, in parallel, for the tests to read.

The paths (the parts):
- "control": every style's code run in one process with every test of every lab, visible
  and held back, as the checker ran students' code before the student process: a style
  that passes here is correct code, so a path it fails is the checker's to fix;
- "cli": `agentlab check LAB --harness FILE`: every style x lab as the command checks it
  (`run(lab, path)`, the very call `cli._check` makes), and per style one lab, rotated,
  through the command's `main` itself (exit code and JSON report);
- "kernel": `%%check` in real Jupyter kernels: one fresh kernel per style, which loads the
  extension and checks every lab, in an order rotated per style;
- "scoring": the grader's scoring, `score_jobs` in sandboxed student processes, with every
  grade call, visible and held back, of the labs `scored_labs` gives each style (a rotation
  of SCORED_LABS labs, none of the style's nbgrader assignment), and of every lab for the
  reference; AGENTLAB_HONEST_FULL=1 scores every style x lab (some 120 s of CPU more);
- "nbgrader": one real nbgrader round: generate_assignment, the roster, each style a student
  handing in one assignment (rotated, so every assignment gets several styles), ONE
  `nbgrader autograde "*"`, and the gradebook's scores.

The budget is a machine of two cores, and the work is CPU bound: a student process costs
~0.05 s of CPU to start, a sandboxed one ~0.12 s, a kernel ~0.5 s, and each path starts one
per style x lab. So everything starts at once and shares the cores: the nbgrader round, a
chain of steps that mostly waits on its kernels, on a thread of its own; KERNELS kernels at
a time on another, a little less urgent; and a pool of WORKERS processes, the least urgent,
for the checks and the scoring, whose jobs nothing waits on in turn. A test waits only for
the result it reads. The checks run in processes, not threads: CPython 3.11's ast.parse is
not safe in two threads at once ("SystemError: AST constructor recursion depth mismatch"),
and every check parses its code; every source is made here, on the main thread, first.
AGENTLAB_HONEST_STYLES=walrus,async-defs checks some styles only.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import lab_tests, run
from agentlab_magics.course import find_lab, labs
from agentlab_magics.course.assignments import ASSIGNMENTS, find_assignment
from agentlab_magics.grading.cells import GradeCall
from agentlab_magics.grading.groups import group_tests, points
from tests.honest.styles import STYLES, applied

LABS: list[str] = list(labs())
ASSIGNMENT_IDS: list[str] = [assignment.id for assignment in ASSIGNMENTS]
PARTS = ("control", "cli", "kernel", "scoring", "nbgrader")
WORKERS = 2          # processes for the checks and the scoring
KERNELS = 2          # kernels running at once, on their own thread
# Niceness: the nbgrader round, a chain of steps, goes first; the kernels (one chain each)
# next; the workers, whose jobs nothing waits on in turn, fill the cores left.
KERNELS_NICE = 5
WORKERS_NICE = 10
REFERENCE = "reference"  # the baseline the scoring compares every style with
FULL = bool(os.environ.get("AGENTLAB_HONEST_FULL"))  # score every style x lab
SCORED_LABS = 3      # labs per style the scoring part scores (see scored_labs)
WAIT = 900.0         # seconds a test waits for its result at most: a part that hangs fails
_ASKED = os.environ.get("AGENTLAB_HONEST_STYLES")
CHOSEN: list[str] = [name for name in STYLES if _ASKED is None or name in _ASKED.split(",")]


def source_of(style: str, lab_id: str) -> str:
    reference = find_lab(lab_id).reference
    return reference if style == REFERENCE else applied(style, lab_id, reference)


def kernel_order(style: str) -> list[str]:
    """The labs in the order the style's kernel checks them: rotated by the style's place, so
    across the suite each lab is checked first, in a fresh kernel, and after the others."""
    shift = list(STYLES).index(style) % len(LABS)
    return LABS[shift:] + LABS[:shift]


def cli_sample(style: str) -> str:
    """The lab a style is checked on through the command's own `main`."""
    return LABS[list(STYLES).index(style) % len(LABS)]


def assignment_of(style: str) -> str:
    """The assignment a style hands in, in the nbgrader round."""
    return ASSIGNMENT_IDS[list(STYLES).index(style) % len(ASSIGNMENT_IDS)]


@functools.cache
def grade_calls(lab_id: str) -> list[GradeCall]:
    """Every grade call of the lab's groups, visible and held back (held-back ones exist only
    where the group has held-back tests)."""
    for assignment in ASSIGNMENTS:
        for assigned in assignment.labs:
            if assigned.lab == lab_id:
                return [GradeCall(lab_id, group.id, held) for group in assigned.groups
                        for held in (False, True) if group_tests(lab_id, group.id,
                                                                 held_back=held)]
    return []


@functools.cache
def visible_tests(lab_id: str) -> list[str]:
    """The names of the tests a check of the lab runs (its own visible ones and the earlier
    labs' that still hold), in order."""
    return [test.name for test in lab_tests(find_lab(lab_id))]


def failures(report: CheckReport) -> str:
    """What a report says went wrong, one line per failed test."""
    lines = [f"problem: {report.problem}"] if report.problem else []
    lines += [f"{o.outcome}: {o.name}: {o.message}" for o in report.outcomes if not o.passed]
    return "\n".join(lines) or "(nothing failed)"


@dataclass(frozen=True)
class Verdict:
    """What a check said, kept small (a report's records stay in the worker that made it)."""

    summary: str
    names: list[str]
    all_passed: bool
    problem: str | None
    failed: str

    @classmethod
    def of(cls, report: CheckReport) -> Verdict:
        return cls(report.summary(), [o.name for o in report.outcomes], report.all_passed,
                   report.problem, failures(report))


@dataclass(frozen=True)
class Score:
    """The grader's score of one grade call."""

    passed: int
    total: int
    failed: str


def scored_labs(style: str) -> list[str]:
    """The labs whose grade calls, visible and held back, the scoring part scores for
    `style`: every lab for the reference and when AGENTLAB_HONEST_FULL is set; else
    SCORED_LABS labs, rotated over the styles, none of the style's own assignment (whose
    labs the nbgrader round scores, through the same score_jobs, in nbgrader's pipeline).
    Every lab is so scored for a fair share of the styles; each style is scored on
    SCORED_LABS labs here and one or two there. What the rotation leaves out is what the
    other paths prove: the visible tests pass on every style x lab (`agentlab check`,
    %%check), and the sandbox and the held-back tests meet every style (here and there)."""
    if FULL or style == REFERENCE:
        return list(LABS)
    own = {assigned.lab for assigned in find_assignment(assignment_of(style)).labs}
    others = [lab_id for lab_id in LABS if lab_id not in own]
    start = (list(STYLES).index(style) * SCORED_LABS) % len(others)
    return [others[(start + step) % len(others)] for step in range(SCORED_LABS)]


@dataclass
class Clock:
    """When each part's first job started and its last one ended (seconds since the start)."""

    began: float = field(default_factory=time.time)
    spans: dict[str, list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, part: str, start: float, end: float) -> None:
        with self.lock:
            span = self.spans.setdefault(part, [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)

    def timed(self, part: str, job: Callable[[], Any]) -> Callable[[], Any]:
        def run_job() -> Any:
            start = time.time()
            try:
                return job()
            finally:
                self.note(part, start, time.time())
        return run_job

    def summary(self) -> str:
        import resource

        spans = ", ".join(f"{part} {span[0] - self.began:.0f}-{span[1] - self.began:.0f} s"
                          for part, span in sorted(self.spans.items(), key=lambda i: i[1][0]))
        mine = resource.getrusage(resource.RUSAGE_SELF)
        theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (f"{spans}; CPU {mine.ru_utime + mine.ru_stime:.0f} s in pytest, "
                f"{theirs.ru_utime + theirs.ru_stime:.0f} s in the processes it waited for")


def _timed_job(function: Callable[..., Any], *args: Any) -> tuple[float, float, Any]:
    """In a worker process: (when it started, when it ended, what `function(*args)` gave)."""
    start = time.time()
    value = function(*args)
    return start, time.time(), value


@dataclass
class Graded:
    """One student's assignment in the gradebook."""

    assignment: str
    score: float
    max_score: float
    cells: dict[str, tuple[float, float]]  # grade cell: (score, max score)
    errors: dict[str, str]                 # grade cell that lost points: what it said


class Campaign:
    """The results of every part asked for, started at once and read when ready."""

    def __init__(self, folder: Path, parts: set[str], styles: list[str] | None = None) -> None:
        self.folder = folder
        self.styles = list(styles or CHOSEN)
        self.clock = Clock()
        self.stopping = False
        # The temporary folders the students' code makes land here: a student process ends
        # with os._exit, so the atexit handlers a style registers to remove them never run.
        self._tmpdir = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = str(folder / "tmp")
        (folder / "tmp").mkdir()
        # The kernels' environment, read here: the kernels start on a thread of their own,
        # while pytest sets and removes PYTEST_CURRENT_TEST on this one (a copy made there
        # met a key gone between its listing and its reading: KeyError)
        self.environment = {key: value for key, value in os.environ.items()
                            if key != "PYTEST_CURRENT_TEST"}
        self.pool = ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=os.nice, initargs=(WORKERS_NICE,))
        self.cli: dict[tuple[str, str], Future] = {}
        self.cli_main: dict[str, Future] = {}
        self.kernels: dict[str, Future] = {}
        self.scores: dict[str, Future] = {}
        self.round: Future | None = None
        self.sources: dict[tuple[str, str], str] = {}
        self.sources_made = threading.Event()
        if parts & {"cli", "scoring"}:  # the workers start while the sources are made
            for _ in range(WORKERS):
                self.pool.submit(os.getpid)
        if "nbgrader" in parts:  # a chain of steps, mostly waiting: first, on its own thread
            self.round = _on_thread("honest-nbgrader", self.clock.timed("nbgrader",
                                                                       self._nbgrader_round))
        # Every source, made here, on this thread (see the module's docstring).
        self.sources.update({(style, lab_id): source_of(style, lab_id)
                             for style in [REFERENCE, *self.styles] for lab_id in LABS})
        self.sources_made.set()
        self.control: dict[str, Future] = {}
        self.control_pool: ProcessPoolExecutor | None = None
        if "control" in parts:  # student code run in the tests' process: a process of its own
            self.control_pool = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=os.nice,
                initargs=(WORKERS_NICE,))
            for style in self.styles:
                self.control[style] = self._submit(
                    "control", _in_one_process,
                    {lab_id: self.sources[(style, lab_id)] for lab_id in LABS},
                    pool=self.control_pool)
        if "kernel" in parts:
            self.kernels = {style: Future() for style in self.styles}
            _on_thread("honest-kernels", self.clock.timed("kernel", self._all_kernels))
        # Each style's scoring goes in before its checks: a sandbox is slow to make more than
        # it is costly, so the scoring waits best beside work that keeps the cores busy.
        for style in [REFERENCE, *self.styles]:
            if "scoring" in parts:
                calls = [call for lab_id in scored_labs(style) for call in grade_calls(lab_id)]
                self.scores[style] = self._submit(
                    "scoring", _score, calls,
                    {lab_id: self.sources[(style, lab_id)] for lab_id in scored_labs(style)})
            if "cli" in parts and style != REFERENCE:
                sample = cli_sample(style)
                self.cli_main[style] = self._submit(
                    "cli", _cli_main, sample, str(self.harness_file(style, sample)))
                for lab_id in LABS:
                    self.cli[(style, lab_id)] = self._submit(
                        "cli", _check_file, lab_id, self.harness_file(style, lab_id)
                    ) if lab_id != sample else _verdict_of_main(self.cli_main[style])

    def _submit(self, part: str, function: Callable[..., Any], *args: Any,
                pool: ProcessPoolExecutor | None = None) -> Future:
        """`function(*args)` in a worker process of `pool` (the workers' by default); a future
        of what it gives."""
        done: Future = Future()

        def arrived(future: Future) -> None:
            try:
                start, end, value = future.result()
            except BaseException as exc:
                done.set_exception(exc)
                return
            self.clock.note(part, start, end)
            done.set_result(value)

        (pool or self.pool).submit(_timed_job, function, *args).add_done_callback(arrived)
        return done

    def close(self) -> None:
        """Stop what has not started, wait for what has (nothing runs on after the tests)."""
        self.stopping = True
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.control_pool is not None:
            self.control_pool.shutdown(wait=True, cancel_futures=True)
        for future in [*self.kernels.values(), *([self.round] if self.round else [])]:
            with contextlib.suppress(BaseException):
                future.result()
        if self._tmpdir is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = self._tmpdir

    # -- (a) the command ---------------------------------------------------------------------

    def harness_file(self, style: str, lab_id: str) -> Path:
        """The style's file for the lab, named as the lab's module is (harness.py, ...)."""
        path = self.folder / "files" / style / lab_id / f"{find_lab(lab_id).module}.py"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.sources[(style, lab_id)].encode("utf-8"))
        return path

    # -- (b) the kernels ---------------------------------------------------------------------

    def _all_kernels(self) -> None:
        # A thread's niceness is its own, and the kernels started from it inherit it.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), KERNELS_NICE)
        asyncio.run(self._kernels())

    async def _kernels(self) -> None:
        limit = asyncio.Semaphore(KERNELS)

        async def one(style: str) -> None:
            async with limit:
                future = self.kernels[style]
                if self.stopping:
                    future.cancel()
                    return
                try:
                    future.set_result(await self._kernel(style))
                except BaseException as exc:  # the test reads it
                    future.set_exception(exc)

        await asyncio.gather(*(one(style) for style in self.styles))

    async def _kernel(self, style: str) -> nbformat.NotebookNode:
        from nbclient import NotebookClient

        notebook = nbformat.v4.new_notebook()
        notebook.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                           "display_name": "Python 3 (ipykernel)"}
        notebook.cells = [nbformat.v4.new_code_cell("%load_ext agentlab_magics")] + [
            nbformat.v4.new_code_cell(f"%%check {lab_id}\n{self.sources[(style, lab_id)]}")
            for lab_id in kernel_order(style)]
        folder = self.folder / "kernels" / style
        folder.mkdir(parents=True, exist_ok=True)
        client = NotebookClient(notebook, kernel_name="python3", timeout=120,
                                allow_errors=True,
                                resources={"metadata": {"path": str(folder)}})
        await client.async_execute(env={**self.environment,
                                        "AGENTLAB_PROGRESS": str(folder / "progress.json")})
        nbformat.write(notebook, folder / "checks.ipynb")
        return notebook

    # -- (d) one nbgrader round --------------------------------------------------------------

    def _nbgrader_round(self) -> dict[str, Graded]:
        from nbgrader.api import Gradebook, MissingEntry

        from agentlab_magics.demos.students import harness_cells, lab_of
        from agentlab_magics.term.nbgrader_cli import NbgraderFailed
        from tests.nbgrader_course import round_course

        root = self.folder / "nbgrader"
        course, nbgrader = round_course(root, "*", list(self.styles))
        self.sources_made.wait()
        for style in self.styles:
            assignment = assignment_of(style)
            notebook = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb",
                                     as_version=4)
            for cell in harness_cells(notebook):
                magic = cell.source.partition("\n")[0]
                cell.source = f"{magic}\n{self.sources[(style, lab_of(cell))]}"
            where = course / "submitted" / style / assignment
            where.mkdir(parents=True)
            nbformat.write(notebook, where / f"{assignment}.ipynb")
        try:
            log = nbgrader.run("autograde", "*", cwd=course)
        except NbgraderFailed as exc:  # a submission it could not grade: its test says so
            log = str(exc)
        (root / "autograde.log").write_text(log, encoding="utf-8")
        graded: dict[str, Graded] = {}
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
            for style in self.styles:
                assignment = assignment_of(style)
                try:
                    submission = gradebook.find_submission(assignment, style)
                except MissingEntry:
                    graded[style] = Graded(assignment, 0.0, 0.0, {}, {"autograde": log[-3000:]})
                    continue
                cells = {grade.name: (grade.score, grade.max_score)
                         for notebook in submission.notebooks for grade in notebook.grades}
                graded[style] = Graded(assignment, submission.score, submission.max_score,
                                       cells, self._lost(course, style, assignment, cells))
        return graded

    @staticmethod
    def _lost(course: Path, style: str, assignment: str,
              cells: dict[str, tuple[float, float]]) -> dict[str, str]:
        """For each graded cell that lost points, the error output the grader gave it."""
        lost = {name for name, (score, most) in cells.items() if score != most}
        if not lost:
            return {}
        path = course / "autograded" / style / assignment / f"{assignment}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        said = {}
        for cell in notebook.cells:
            name = cell.metadata.get("nbgrader", {}).get("grade_id")
            if name in lost:
                said[name] = "\n".join(output.get("evalue", "") for output in cell.get(
                    "outputs", []) if output.get("output_type") == "error")
        return said


class InProcess:
    """The `harness` fixture of a check run in the tests' own process, as the checker ran
    students' code before it had a student process: each name is the module's own function
    (its awaitable settled, as the student process settles it)."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def __getattr__(self, name: str) -> Any:
        from agentlab_magics.checking.cell_source import NotWrittenYet
        from agentlab_magics.course.labtests.kit import settle

        if name.startswith("__") or not hasattr(self._module, name):
            raise NotWrittenYet(f"{name} is not written yet.")
        function = getattr(self._module, name)
        return lambda *args, **kwargs: settle(function(*args, **kwargs))

    def missing(self, names: list[str]) -> list[str]:
        return [name for name in names if not hasattr(self._module, name)]


def _in_one_process(sources: dict[str, str]) -> list[str]:
    """Every test of every lab, visible and held back, against the style's code loaded in this
    process (registered under its module's name, as %%check registers it): what failed. The
    control: a style that passes here is correct code."""
    import sys

    from agentlab_magics.checking.cell_source import load

    failed = []
    printed = io.StringIO()  # what the code prints is not this check's to show
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        for lab_id, source in sources.items():
            lab = find_lab(lab_id)
            module = load(source, f"{lab.module}.py", lab.module)
            sys.modules[lab.module] = module
            for test in lab_tests(lab, held_back=True):
                fixtures: dict[str, Any] = {"harness": InProcess(module)}
                if test.wants_record:
                    fixtures["record"] = lambda messages, model=None: messages
                try:
                    test.function(**fixtures)
                except BaseException as exc:  # the student's code may raise anything
                    failed.append(f"{lab_id}: {test.name}: {type(exc).__name__}: {exc}"[:1000])
            printed.seek(0)
            printed.truncate()
    return failed


def _check_file(lab_id: str, path: Path) -> Verdict:
    """What `agentlab check` finds: `run(lab, path)` is the call the command makes."""
    return Verdict.of(run(lab_id, path))


def _cli_main(lab_id: str, path: str) -> tuple[int, Verdict | None, str]:
    """`agentlab check LAB --harness FILE --json` through the command's main: (exit code, the
    report it printed, what it wrote to stderr and the start of what it printed)."""
    from agentlab_magics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", lab_id, "--harness", path, "--json"])
    try:
        report = CheckReport.model_validate_json(out.getvalue())
    except ValueError:
        return code, None, err.getvalue() + out.getvalue()[:2000]
    return code, Verdict.of(report), err.getvalue()


def _verdict_of_main(main: Future) -> Future:
    """The report the command's main printed, as a verdict (None, unreadable, fails the test)."""
    verdict: Future = Future()

    def arrived(future: Future) -> None:
        try:
            verdict.set_result(future.result()[1])
        except BaseException as exc:
            verdict.set_exception(exc)

    main.add_done_callback(arrived)
    return verdict


def _score(calls: list[GradeCall], answers: dict[str, str]) -> dict[GradeCall, Score]:
    """The grader's score of each of `calls`, for these answers."""
    from agentlab_magics.grading.autograde import score_jobs

    return {call: Score(report.passed, report.total, failures(report))
            for call, report in zip(calls, score_jobs(calls, answers, hidden=[]))}


def _on_thread(name: str, job: Callable[[], Any]) -> Future:
    """Run `job` on a thread of its own; its future."""
    future: Future = Future()

    def target() -> None:
        try:
            future.set_result(job())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=target, name=name, daemon=True).start()
    return future


def held_back_said(lab_id: str, source: str, call: GradeCall) -> str:
    """Why the held-back tests of `call` fail on `source`, from a check of them here: the
    grader's report of held-back tests keeps only their marks. For a failure message only
    (on this thread, the main one: see the module's docstring)."""
    report = run(lab_id, "", source=source, held_back=True,
                 only=group_tests(lab_id, call.group, held_back=True))
    return f"(checked again here: {report.summary()})\n{failures(report)}"


def assignment_points(assignment: str) -> float:
    """The assignment's full marks: a point per test of every group, visible and held back."""
    return float(sum(points(assigned.lab, group.id) for assigned in find_assignment(assignment).labs
                     for group in assigned.groups))


def kernel_report(notebook: nbformat.NotebookNode, lab_id: str) -> tuple[str | None, str]:
    """(the summary line of the lab's %%check report in the executed notebook, every output
    of its cell as text, for a failure message)."""
    for cell in notebook.cells:
        if cell.source.startswith(f"%%check {lab_id}\n"):
            texts = []
            summary = None
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    texts.append("\n".join(output.get("traceback", [])))
                    continue
                text = output.get("data", {}).get("text/plain", output.get("text", ""))
                texts.append(text)
                title = find_lab(lab_id).title
                if output.get("output_type") == "display_data" and text.startswith(title):
                    summary = text.splitlines()[0]
            return summary, "\n---\n".join(texts)
    return None, f"no %%check {lab_id} cell"
