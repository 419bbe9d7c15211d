"""What a batch autograde did, submission by submission: the table it prints, the JSON it keeps."""

from __future__ import annotations

import datetime as dt
import json
from typing import Literal

from pydantic import BaseModel

from agentlab_magics.grading.printable import printable

Status = Literal["graded", "failed", "unchanged", "cancelled"]


class Record(BaseModel):
    """One submission's fate. Times are seconds since the epoch: queued and merged on the
    machine running the batch, started and finished on the worker that graded it."""

    student: str
    status: Status
    score: float | None = None
    max_score: float | None = None
    worker: str = ""
    queued: float | None = None
    started: float | None = None
    finished: float | None = None
    merged: float | None = None
    problem: str | None = None
    notes: list[str] = []  # what else an instructor should know of it
    phases: dict[str, float] = {}
    sandbox: str = ""  # the mode of the sandbox it was graded in


class BatchSummary(BaseModel):
    """Every submission of one assignment that the batch looked at, in student order."""

    assignment: str
    cluster: str  # "LocalCluster, 2 workers" or the scheduler's address
    began: float
    seconds: float
    records: list[Record]
    path: str = ""  # where the JSON summary was written

    def count(self, status: Status) -> int:
        return sum(record.status == status for record in self.records)

    def render(self) -> str:
        """A row per submission (times in seconds from the batch's start), then the counts."""
        width = max([len("student"), *(len(r.student) for r in self.records)])
        rows = [f"{'student':<{width}}  {'status':<9}  {'score':>11}  {'queued':>6}  "
                f"{'started':>7}  {'finished':>8}  {'merged':>6}  worker"]
        for r in self.records:
            score = f"{r.score:g}/{r.max_score:g}" if r.score is not None else "-"
            times = [self._since(t) for t in (r.queued, r.started, r.finished, r.merged)]
            rows.append(f"{r.student:<{width}}  {r.status:<9}  {score:>11}  {times[0]:>6}  "
                        f"{times[1]:>7}  {times[2]:>8}  {times[3]:>6}  {r.worker or '-'}")
            rows += [f"{'':<{width}}  {printable(line)}" for line in
                     ([r.problem] if r.problem else []) + r.notes]
        counts = ", ".join(f"{self.count(s)} {s}" for s in ("graded", "failed", "unchanged",
                                                             "cancelled") if self.count(s))
        rows.append(f"\n{self.assignment}: {counts or 'no submissions'} in {self.seconds:.1f} s "
                    f"on {self.cluster}.")
        rows.append(self._sandboxes())
        return "\n".join(rows).rstrip("\n")

    def _sandboxes(self) -> str:
        """Which sandbox the graded submissions had; a warning for any graded without one."""
        modes = [r.sandbox for r in self.records if r.status == "graded" and r.sandbox]
        bare = modes.count("none")
        if bare:
            return (f"{bare} submission(s) graded WITHOUT a sandbox (--without-sandbox): they "
                    "ran as the grader; do not use these scores for credit.")
        return f"Sandbox: {', '.join(sorted(set(modes)))}." if modes else ""

    def to_json(self) -> str:
        """The summary as JSON, each time also written out in ISO 8601 (UTC)."""
        data = self.model_dump()
        for record in data["records"]:
            for name in ("queued", "started", "finished", "merged"):
                if record[name] is not None:
                    record[f"{name}_at"] = dt.datetime.fromtimestamp(
                        record[name], dt.UTC).isoformat()
        return json.dumps(data, indent=2)

    def _since(self, moment: float | None) -> str:
        return "-" if moment is None else f"{moment - self.began:.1f}"
