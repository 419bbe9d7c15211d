"""`agentlab course autograde`: every submission of an assignment graded in parallel on Dask.

Each submission is one Dask task (`one_submission.grade_one`), on an in-process LocalCluster
by default (one single-threaded worker process per core) or on an existing cluster given by
its scheduler's address; a class too small to pay for a local cluster's start-up is graded in
this process instead, one submission after another (`plan`, which the summary quotes). Tasks
touch nothing of the course; this process is the one writer:
as each task ends it puts the autograded folder in place and merges the scores into the
course's gradebook through nbgrader's Gradebook API (gradebook_copy.merge), so nbgrader's
generate_feedback, export and formgrader work afterwards as they would after its own
autograde. Dask retries a task whose worker died; a result is merged once, whichever run of
it arrives. A submission is graded again only when it, or the assignment, changed since it
was last merged (the fingerprints in `.agentlab/autograde/<assignment>.json`), or with
`force`. nbgrader's log of each submission is kept beside them
(`.agentlab/autograde/<assignment>-logs/<student>.log`). Ctrl-C cancels what has not
finished (a submission being graded in this process is left ungraded); a merge under way
completes first, so the gradebook holds each submission's old
scores or its new ones, never half of them.
"""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TextIO

from agentlab_magics.grading.batch_ledger import BatchLedger, BatchProblem
from agentlab_magics.grading.batch_summary import BatchSummary, Record
from agentlab_magics.grading.gradebook_copy import Scores, read_students
from agentlab_magics.grading.gradebook_writer import GradebookWriter
from agentlab_magics.grading.host import swept_at_start
from agentlab_magics.grading.one_submission import Graded, Kit, Submission, grade_one
from agentlab_magics.grading.submission import SubmissionRefused
from agentlab_magics.term.course_folder import CourseFolder
from agentlab_magics.term.nbgrader_cli import Nbgrader, tools_on_path
from agentlab_magics.term.progress_bar import ProgressBar
from agentlab_magics.version import __version__


def autograde_course(course: Path, assignment: str, *, students: Sequence[str] | None = None,
                     workers: int | None = None, scheduler: str | None = None,
                     force: bool = False, nbgrader: Nbgrader | None = None,
                     progress: TextIO | None = None,
                     without_sandbox: bool = False) -> BatchSummary:
    """Autograde `assignment`'s submissions in `course` (those of `students`, or all) on a
    LocalCluster of `workers` processes, or on the Dask cluster whose scheduler is at
    `scheduler`, or as `plan` chooses (in this process, for a class too small to pay for a
    cluster's start-up); merge each into the course and say what became of each. A
    worker that can make no sandbox grades only `without_sandbox`, and the summary says so."""
    began = time.time()
    records: dict[str, Record] = {}
    stopped = False
    swept_at_start()
    with tools_on_path():
        # What cannot be graded is refused (a UsageProblem) before any cluster starts.
        where = BatchLedger(CourseFolder.read(course, nbgrader))
        kit = where.kit(assignment).model_copy(update={"without_sandbox": without_sandbox})
        todo = _todo(where, kit, students, force, records)
        local, cluster = plan(len(todo), workers, scheduler)
        try:
            if todo and (local or scheduler):
                with _client(local, scheduler) as client:
                    _run(where, kit, todo, client, progress, records)
            elif todo:
                _run_here(where, kit, todo, progress, records)
        except KeyboardInterrupt:
            stopped = True
    summary = BatchSummary(assignment=assignment, cluster=cluster,
                           began=began, seconds=time.time() - began,
                           records=[records[s] for s in sorted(records)])
    summary.path = str(where.write_summary(summary))
    if stopped:
        raise BatchStopped(summary)
    return summary


# What the plan weighs, measured with bench/bench_autograde.py parallel and K=3 and 8 on 2
# cores (quiet, two runs each, workers forked: FORKED_WORKERS): the wall seconds a local
# cluster's start and stop add (where workers are spawned instead, each imports everything
# again); the wall seconds one submission takes graded in this process; the wall seconds it
# takes on a worker while every core has one (they slow each other: kernels, sandboxes and
# Dask share the cores); the CPU seconds it takes on a cluster.
FORKS = sys.platform.startswith("linux")
CLUSTER_SECONDS = 0.7 if FORKS else 3.3
SUBMISSION_SECONDS = 0.75
WORKER_SECONDS = 1.2
SUBMISSION_CPU = 0.5


def cores() -> int:
    """The CPUs this process may run on: what a plan, and a local cluster's size, count."""
    return len(os.sched_getaffinity(0))


def plan(count: int, workers: int | None, scheduler: str | None) -> tuple[int, str]:
    """The worker processes of the local cluster that grades `count` submissions (none: this
    process grades them one after another), and how the summary names where they were graded:
    the cluster at `scheduler`; else `workers` when asked; else this process, unless one
    worker per submission up to one per core would be done sooner, its start-up counted (a
    cluster's time is what the larger of its CPU and its workers' turns needs)."""
    if scheduler:
        return 0, scheduler
    if workers:
        return workers, f"LocalCluster, {workers} workers (as asked)"
    cpus = cores()
    chosen = max(min(count, cpus), 1)
    here = count * SUBMISSION_SECONDS
    there = CLUSTER_SECONDS + count * max(SUBMISSION_CPU / cpus, WORKER_SECONDS / chosen)
    said = f"{count} to grade, {cpus} core{'s' * (cpus != 1)}"
    if here <= there:
        return 0, (f"no cluster: this process graded one submission after another ({said}: "
                   "a local cluster's start-up would cost more than it saves)")
    return chosen, f"LocalCluster, {chosen} workers (one a submission, up to one a core: {said})"


def _todo(where: BatchLedger, kit: Kit, students: Sequence[str] | None, force: bool,
          records: dict[str, Record]) -> dict[str, tuple[Submission, str]]:
    """The submissions to grade, each with its fingerprint; those refused or unchanged are
    recorded in `records` instead."""
    marks, graded = where.fingerprints(kit.assignment), where.course.autograded(kit.assignment)
    changed: dict[str, tuple[dict[str, bytes], str]] = {}
    for student, folder in where.course.submitted(kit.assignment, students).items():
        try:
            files = where.files(folder)
        except SubmissionRefused as exc:
            records[student] = Record(student=student, status="failed", problem=str(exc))
            continue
        mark = _fingerprint(files, kit)
        if not force and marks.get(student) == mark and student in graded:
            records[student] = Record(student=student, status="unchanged")
        else:
            changed[student] = (files, mark)
    entries = read_students(where.course.db_url, where.course.course_id, kit.assignment, changed)
    return {student: (Submission(entry=entries[student], files=files), mark)
            for student, (files, mark) in changed.items()}


class BatchStopped(KeyboardInterrupt):
    """Ctrl-C stopped the batch: `summary` says what was merged before it."""

    def __init__(self, summary: BatchSummary):
        super().__init__()
        self.summary = summary


def _run(where: BatchLedger, kit: Kit, todo: dict[str, tuple[Submission, str]], client,
         progress: TextIO | None, records: dict[str, Record]) -> None:
    """Grade the `todo` submissions (each with its fingerprint) on the cluster, merge those
    that end together in one transaction and record them in `records`; on Ctrl-C, cancel the
    rest (recorded as cancelled) and raise it again."""
    from distributed import wait

    bar = ProgressBar(len(todo), progress)
    futures = {}
    run = uuid.uuid4().hex[:8]
    for student, (submission, _) in todo.items():
        future = client.submit(grade_one, kit, submission, pure=False,
                               key=f"agentlab-autograde-{kit.assignment}-{student}-{run}")
        futures[future] = Record(student=student, status="cancelled", queued=time.time())
    pending, counted = set(futures), 0.0
    try:
        with where.writer(kit.assignment) as writer:
            while pending:
                try:
                    done = wait(pending, timeout=1.0, return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = set()
                pending -= done
                with _uninterrupted():  # merged and recorded, or neither
                    _settle(where, kit, writer, todo, records, bar,
                            [(futures[future], _outcome(future)) for future in done])
                if time.monotonic() >= counted + 1.0:  # asking the scheduler costs a round
                    bar.redraw(_counts(records, _running(client, pending), len(pending)))
                    counted = time.monotonic()
    except KeyboardInterrupt:
        client.cancel(list(pending))
        for future in pending:
            records[futures[future].student] = futures[future]
        raise


def _run_here(where: BatchLedger, kit: Kit, todo: dict[str, tuple[Submission, str]],
              progress: TextIO | None, records: dict[str, Record]) -> None:
    """Grade the `todo` submissions in this process, one after another, merging and recording
    each as it ends; on Ctrl-C the one being graded runs to its end unmerged (a second Ctrl-C
    stops it at once), and those not graded stay recorded as cancelled."""
    bar = ProgressBar(len(todo), progress)
    queued = time.time()
    records.update((student, Record(student=student, status="cancelled", queued=queued))
                   for student in todo)
    with where.writer(kit.assignment) as writer:
        for done, (student, (submission, _)) in enumerate(todo.items()):
            bar.redraw(_counts(records, 1, len(todo) - done))
            with _noting_interrupts() as interrupted:
                try:
                    outcome: Graded | str = grade_one(kit, submission)
                except Exception as exc:  # what would fail a Dask task fails this one only
                    outcome = (f"The grading failed: {exc}. Grade it again with --students "
                               f"{student}; if it fails again, nbgrader's log above says why.")
            if interrupted:  # what the submission's kernels made of the Ctrl-C is no grade
                raise KeyboardInterrupt
            with _uninterrupted():  # merged and recorded, or neither
                _settle(where, kit, writer, todo, records, bar, [(records[student], outcome)])


def _outcome(future) -> Graded | str:
    """What a finished task gave: its Graded, or why it failed, in a sentence."""
    if future.status == "finished":
        return future.result()
    return (f"The grading task failed on the cluster: {future.exception()} (a worker that kept "
            "dying on it, or a grader without agentlab and nbgrader installed).")


def _settle(where: BatchLedger, kit: Kit, writer: GradebookWriter,
            todo: dict[str, tuple[Submission, str]], records: dict[str, Record],
            bar: ProgressBar, ended: list[tuple[Record, Graded | str]]) -> None:
    """Fill in and keep in `records` the records of the submissions that `ended` (each with
    what grading gave, or why it failed), and step `bar` for each: their autograded folders
    put in place, what they graded merged in one transaction, and only then its fingerprints
    noted."""
    merged: list[tuple[Record, Scores]] = []
    for record, graded in ended:
        if isinstance(graded, str):
            record.status, record.problem = "failed", graded
            continue
        where.keep_log(kit.assignment, graded)
        record.worker, record.started, record.finished = (graded.worker, graded.started,
                                                          graded.finished)
        record.phases, record.sandbox, record.notes = graded.phases, graded.sandbox, graded.notes
        if graded.scores is None:
            record.status, record.problem = "failed", graded.problem
            continue
        where.put_in_place(kit.assignment, graded)
        merged.append((record, graded.scores))
    if merged:
        totals = writer.merge([(todo[record.student][0].entry, scores)
                               for record, scores in merged])
        where.note_fingerprints(kit.assignment, {record.student: todo[record.student][1]
                                                 for record, _ in merged})
        now = time.time()
        for (record, _), (score, max_score) in zip(merged, totals):
            record.status, record.merged = "graded", now
            record.score, record.max_score = score, max_score
    records.update((record.student, record) for record, _ in ended)
    for record, _ in ended:
        bar.step(f"{record.student}: {record.status}")


def _counts(records: dict[str, Record], running: int, left: int) -> str:
    done = sum(r.status == "graded" for r in records.values())
    failed = sum(r.status == "failed" for r in records.values())
    return f"graded {done}, failed {failed}, running {running}, waiting {left - running}"


def _running(client, pending: set) -> int:
    """How many of the `pending` tasks a worker is running, as the scheduler knows (a worker
    runs one task at a time, and is given no other: local_cluster)."""
    keys = {future.key for future in pending}
    try:
        processing = client.processing()
    except OSError:  # the scheduler went away while asked
        return 0
    return sum(key in keys for found in processing.values() for key in found)


@contextmanager
def _client(workers: int, scheduler: str | None) -> Iterator:
    """A Dask client: of the cluster at `scheduler`, or of a LocalCluster made here with
    `workers` single-threaded worker processes (one submission each at a time)."""
    from distributed import Client

    if scheduler:
        try:
            client = Client(scheduler, timeout=30)
        except OSError as exc:
            raise BatchProblem(f"No Dask scheduler answered at {scheduler} ({exc}); start one "
                               "with `dask scheduler` and its workers with `dask worker "
                               f"{scheduler}`.") from None
        with client:
            yield client
        return
    with local_cluster(workers) as cluster, Client(cluster) as client:
        yield client


# What each worker imports as it starts, so its first submission does not wait for nbgrader.
WARM = "agentlab_magics.grading.warm"
# A local cluster's settings: one submission a worker at a time, and none of the sampling
# that serves Dask's dashboard, which nobody watches here (its profiler looks at every thread
# every 10 ms, its monitors every 20-500 ms): an idle two-worker cluster spent 0.11 CPU
# seconds a second with Dask's defaults, 0.017 with these.
LOCAL_CLUSTER = {"distributed.scheduler.worker-saturation": 1.0,
                 "distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "500ms",
                 "distributed.admin.system-monitor.interval": "2s",
                 "distributed.worker.memory.monitor-interval": "1s"}
# Where fork is the system's own way to start a process (Linux), workers are forked from this
# process once it holds WARM, instead of spawned to import it all again: on 2 cores, a
# two-worker local_cluster started in 0.2 s and 0.2 CPU seconds, against 2.2 s and 5.1 CPU
# seconds spawned. The fork is Dask's own option; the process it forks holds only Dask's
# threads and this one, and no open gradebook (each is closed as it is read).
FORKED_WORKERS = {"distributed.worker.multiprocessing-method": "fork"}


@contextmanager
def local_cluster(workers: int) -> Iterator:
    """A Dask cluster on this machine: `workers` single-threaded worker processes, each given
    one task at a time, so the progress bar's "running" is what runs and no submission waits
    behind another on a busy worker."""
    import importlib
    import logging

    import dask
    from distributed import LocalCluster

    settings = dict(LOCAL_CLUSTER)
    if FORKS:
        importlib.import_module(WARM)
        settings.update(FORKED_WORKERS)
    with dask.config.set(settings), ExitStack() as stack:
        stack.enter_context(_dask_log_kept_in())
        # Forked meanwhile, the workers keep the handler that only notes Ctrl-C: it is this
        # process's to act on (it cancels the batch), and no worker prints a traceback. Dask's
        # own log stays quiet but for the critical: what befell each submission is the
        # batch's table, and the errors Dask logs as a stopped cluster closes (a worker's
        # heartbeat to a scheduler already gone) are tracebacks an instructor has no use for.
        with _uninterrupted():
            cluster = stack.enter_context(LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address="127.0.0.1:0", preload=[WARM],
                silence_logs=logging.CRITICAL))
        yield cluster


@contextmanager
def _dask_log_kept_in() -> Iterator[None]:
    """While the cluster lives, Dask's log records reach no handler beyond Dask's own (which
    silence_logs quiets): its event loop's thread logs as workers are forked from this
    process, and a fork taken while that thread writes to a stream (a handler on the root
    logger, such as pytest's or a notebook's) leaves the stream's lock held, for ever, in the
    worker, which then hangs at its first line of log."""
    import logging

    dask_log = logging.getLogger("distributed")
    kept, propagated = logging.NullHandler(), dask_log.propagate
    dask_log.addHandler(kept)  # a record no handler takes would go to logging's last resort
    dask_log.propagate = False
    try:
        yield
    finally:
        dask_log.propagate = propagated
        dask_log.removeHandler(kept)


def _ctrl_c_arrives() -> bool:
    """Whether Ctrl-C reaches this thread: the main thread of a process that does not ignore
    it."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN)


@contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold Ctrl-C until the block is done (in the main thread; elsewhere there is none; and
    not where this process was started with Ctrl-C ignored, which it stays)."""
    if not _ctrl_c_arrives():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


@contextmanager
def _noting_interrupts() -> Iterator[list[int]]:
    """A first Ctrl-C is only noted in the list it gives (where Ctrl-C arrives), and the block
    runs on to its end: raised inside nbgrader's API it would land anywhere (in SQLAlchemy
    closing a connection, which prints it as a traceback; in nbgrader, which takes it for a
    submission that failed). A second one interrupts the block, and one of those that lands
    in a finalizer or a weakref's callback, where Python would print it and go on, is only
    noted."""
    caught: list[int] = []
    if not _ctrl_c_arrives():
        yield caught
        return

    def note(number: int, frame) -> None:
        caught.append(number)
        if len(caught) > 1:
            raise KeyboardInterrupt

    printing = sys.unraisablehook

    def quiet(unraisable) -> None:
        if not (caught and unraisable.exc_type is KeyboardInterrupt):
            printing(unraisable)

    previous = signal.signal(signal.SIGINT, note)
    sys.unraisablehook = quiet
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = printing


def _fingerprint(files: dict[str, bytes], kit: Kit) -> str:
    """A digest of the submitted files, the assignment as graded, and this agentlab."""
    digest = hashlib.sha256(f"{__version__}\0{kit.assignment}\0".encode())
    digest.update(kit.gradebook_shape.encode())
    for step, named in (("source", kit.source_files), ("submitted", files)):
        for name, content in sorted(named.items()):  # a name is any bytes (os.fsencode)
            digest.update(f"{step}/".encode() + os.fsencode(name)
                          + f"\0{len(content)}\0".encode() + content)
    return digest.hexdigest()
