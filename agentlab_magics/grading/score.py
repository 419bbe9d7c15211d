"""The scoring process: `python -m agentlab_magics.grading.score`, run inside the sandbox.

It reads one request on standard input, a JSON object {"jobs": [{"lab", "source", "tests",
"held_back"}], "held_back": {module name: source}}, and writes one CheckReport per job on
standard output, a JSON line each. Each job is one lab cell's source, loaded fresh in a child
of this process (checking.isolated) and checked against the named tests only. Held-back tests
arrive as text from the grader, since the sandbox cannot read the instructor's package; they
are importable only while their own job runs.
"""

from __future__ import annotations

import json
import sys
import types

from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab
from agentlab_magics.course.heldback import PACKAGE, held_back_name
from agentlab_magics.grading import TIMEOUT


def _held_back_modules(sources: dict[str, str]) -> dict[str, types.ModuleType]:
    """Modules made from the held-back tests' text, not yet importable."""
    made = {}
    for name, source in sources.items():
        module = types.ModuleType(name)
        exec(compile(source, f"<held-back tests {name.rpartition('.')[2]}>", "exec"),
             module.__dict__)
        made[name] = module
    return made


def score(job: dict, held_back: dict[str, types.ModuleType]) -> CheckReport:
    """One job's report; its lab's held-back tests are importable only while it runs."""
    lab = find_lab(job["lab"])
    name = held_back_name(lab)
    if job.get("held_back") and name in held_back:
        sys.modules.update({PACKAGE.partition(".")[0]: types.ModuleType("agentlab_instructor"),
                            PACKAGE: types.ModuleType(PACKAGE), name: held_back[name]})
    try:
        return run(lab.id, "", source=job["source"], timeout=TIMEOUT, only=job["tests"],
                   held_back=bool(job.get("held_back")))
    finally:
        sys.modules.pop(name, None)


def main() -> None:
    request = json.loads(sys.stdin.read())
    held_back = _held_back_modules(request.get("held_back", {}))
    out = sys.stdout
    for job in request["jobs"]:
        out.write(score(job, held_back).model_dump_json() + "\n")
        out.flush()


if __name__ == "__main__":
    main()
