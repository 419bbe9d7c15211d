"""A course pack's reference and held-back tests never reach a submission: a grading
sandbox's kernel gets a students' copy of the packs' labs, read-only, and the pack itself is
hidden even where the sandbox's allow-list would show it (a pack installed beside the
interpreter's packages). Probed from inside a real sandbox, as a student's cell would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentlab_magics.cli import main
from agentlab_magics.course.packs import ENV
from agentlab_magics.grading import sandbox as sandboxes
from agentlab_magics.grading.sandbox import Sandbox, detect

LAB = "count-calls"
PROBE = """
import json, os, pathlib
copy, pack = pathlib.Path({copy!r}), pathlib.Path({pack!r})
def readable(path):
    try:
        return bool(path.read_text())
    except OSError:
        return False
try:
    (copy / "tests.py").write_text("# mine now")
    wrote = True
except OSError:
    wrote = False
print(json.dumps({{"copy": sorted(os.listdir(copy)), "wrote": wrote,
                  "reference": readable(pack / "reference.py"),
                  "heldback": readable(pack / "heldback.py")}}))
"""


@pytest.mark.skipif(detect() == "none", reason="needs bubblewrap")
def test_a_sandboxed_run_reads_the_students_copy_and_never_the_pack(tmp_path, monkeypatch):
    shelf = tmp_path / "site"
    assert main(["lab", "new", LAB, "--in", str(shelf)]) == 0
    pack = shelf / LAB
    (pack / "heldback.py").write_text('"""Held back."""\n', encoding="utf-8")
    for path in pack.iterdir():  # readable by anyone: only the sandbox may keep them out
        path.chmod(0o644)
    monkeypatch.setenv(ENV, str(shelf))
    allowed = [*sandboxes.readable(), str(shelf.resolve())]
    monkeypatch.setattr(sandboxes, "readable", lambda: allowed)  # the pack within reach
    sandbox = Sandbox(labs=True)
    scratch = sandbox.make_scratch()
    try:
        assert sandbox.labs_folder is not None
        code = PROBE.format(copy=str(sandbox.labs_folder / LAB), pack=str(pack))
        done = subprocess.run(sandbox.command([sys.executable, "-c", code]), cwd=scratch,
                              capture_output=True, text=True, timeout=60)
    finally:
        sandbox.clean()
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["copy"] == ["lab.toml", "notebook.md", "reference-runs.json", "starter.py",
                            "tests.py"]
    assert (seen["wrote"], seen["reference"], seen["heldback"]) == (False, False, False), seen
