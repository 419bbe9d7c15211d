"""The scoring process: `python -m agentlab_magics.grading.score`, run inside the sandbox.

It reads one request on standard input, a JSON object {"jobs": [{"lab", "source", "tests",
"held_back"}], "held_back": {module name: source}}, and writes one CheckReport per job on
standard output, a JSON line each. Each job is one lab cell's source, loaded fresh in a child
of this process (checking.isolated) and checked against the named tests only. Held-back tests
arrive as text from the grader, since the sandbox cannot read the instructor's package; they
are importable, by their own names, only while a held-back job runs.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import sys
from contextlib import contextmanager, nullcontext
from typing import Iterator

from agentlab_magics.checking.guard import HELD_BACK_FILES
from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab
from agentlab_magics.course.heldback import PACKAGE
from agentlab_magics.grading import TIMEOUT

TOP = PACKAGE.partition(".")[0]


class FromText(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports the held-back modules from their text, and the packages above them empty."""

    def __init__(self, sources: dict[str, str]):
        self.sources = sources

    def find_spec(self, name, path=None, target=None):
        if name in self.sources:
            return importlib.util.spec_from_loader(name, self)
        if name in (TOP, PACKAGE):
            return importlib.util.spec_from_loader(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        source = self.sources.get(module.__name__)
        if source is not None:
            code = compile(source, f"{HELD_BACK_FILES} {module.__name__.rpartition('.')[2]}>",
                           "exec")
            exec(code, module.__dict__)


@contextmanager
def importable(sources: dict[str, str]) -> Iterator[None]:
    """The held-back modules importable from `sources` inside the block, and gone after."""
    finder = FromText(sources)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == TOP or n.startswith(TOP + ".")]:
            del sys.modules[name]


def score(job: dict, held_back: dict[str, str]) -> CheckReport:
    """One job's report; the held-back tests are importable only while a held-back job runs."""
    lab = find_lab(job["lab"])
    with importable(held_back) if job.get("held_back") else nullcontext():
        return run(lab.id, "", source=job["source"], timeout=TIMEOUT, only=job["tests"],
                   held_back=bool(job.get("held_back")))


def main() -> None:
    request = json.loads(sys.stdin.read())
    held_back = request.get("held_back", {})
    out = sys.stdout
    for job in request["jobs"]:
        out.write(score(job, held_back).model_dump_json() + "\n")
        out.flush()


if __name__ == "__main__":
    main()
