"""The grading sandbox itself, one property at a time: what a process inside sees and keeps.

Each test runs a small Python program through `Sandbox.command`, as the grader runs a kernel
or a scoring process, and reads what it printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentlab_magics.grading.sandbox import Sandbox, checkout_paths, detect, interpreter_paths
from agentlab_magics.grading.submission import SubmissionRefused, require_plain_files

ROOT = Path(__file__).resolve().parents[2]


def inside(code: str, **options) -> dict:
    """Run `code` in a new sandbox; the JSON object it printed last."""
    sandbox = Sandbox(**options)
    try:
        done = subprocess.run(sandbox.command([sys.executable, "-c", code]), cwd=sandbox.scratch,
                              capture_output=True, text=True, timeout=60)
    finally:
        sandbox.clean()
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


needs_root = pytest.mark.skipif(os.geteuid() != 0 or detect() != "root",
                                reason="the strongest sandbox needs root and unshare")

READS = '''
import json, os
def reads(path):
    try:
        with open(path, "rb") as f:
            f.read(1)
        return True
    except OSError:
        return False
print(json.dumps({path: reads(path) for path in %r}))
'''


@needs_root
def test_the_checkouts_course_history_and_instructor_package_are_out_of_sight():
    hidden = [str(ROOT / "nbgrader_course" / "nbgrader_config.py"), str(ROOT / ".git" / "HEAD"),
              str(ROOT / "instructor" / "pyproject.toml")]
    seen = inside(READS % ([*hidden, str(ROOT / "agentlab_magics" / "__init__.py")],))
    assert seen == {**dict.fromkeys(hidden, False),
                    str(ROOT / "agentlab_magics" / "__init__.py"): True}


def test_the_checkout_hides_everything_but_the_package_and_the_interpreter():
    hidden = checkout_paths()
    if (ROOT / "agentlab_magics").resolve() != Path(__import__("agentlab_magics").__file__
                                                     ).resolve().parent:
        pytest.skip("agentlab_magics is not imported from this checkout")
    assert str(ROOT / "nbgrader_course") in hidden and str(ROOT / ".git") in hidden
    assert str(ROOT / "agentlab_magics") not in hidden
    assert not any(sys.prefix.startswith(path + os.sep) or sys.prefix == path for path in hidden)


@needs_root
def test_proc_is_hidden_when_asked_and_the_package_still_imports():
    seen = inside('import json, agentlab_magics.checking.student_process, os\n'
                  'print(json.dumps({"maps": os.path.exists("/proc/self/maps")}))',
                  hidden=["/proc"])
    assert seen == {"maps": False}


@needs_root
def test_temporary_folders_are_the_runs_own_and_hold_nothing_that_runs():
    code = '''
import json, os
os.makedirs("/tmp/planted", exist_ok=True)
open("/tmp/.agentlab-expose-1", "w").close()
open("/dev/shm/left", "w").close()
open("tool.sh", "w").write("#!/bin/sh\\necho ran\\n")
os.chmod("tool.sh", 0o755)
try:
    os.execv("./tool.sh", ["./tool.sh"])
except OSError as error:
    ran = error.strerror
print(json.dumps({"uid": os.getuid(), "tmp": sorted(os.listdir("/tmp")), "exec": ran}))
'''
    before = {folder: set(os.listdir(folder)) for folder in ("/tmp", "/dev/shm")}
    seen = inside(code)
    assert seen["uid"] != 0 and seen["exec"] == "Permission denied"
    assert "planted" in seen["tmp"]
    for folder, names in before.items():
        assert not {"planted", ".agentlab-expose-1", "left"} & (set(os.listdir(folder)) - names)


def test_a_submission_holding_a_link_is_refused_with_a_sentence(tmp_path):
    folder = tmp_path / "submitted" / "ada" / "lesson1"
    folder.mkdir(parents=True)
    (folder / "lesson1.ipynb").write_text("{}", encoding="utf-8")
    require_plain_files(str(folder))
    (folder / "notes.txt").symlink_to("/etc/hostname")
    with pytest.raises(SubmissionRefused, match="notes.txt, which is not a plain file"):
        require_plain_files(str(folder))


def test_a_submission_folder_that_is_a_link_is_refused(tmp_path):
    real = tmp_path / "submitted" / "grace" / "lesson1"
    real.mkdir(parents=True)
    (tmp_path / "submitted" / "ada").symlink_to(tmp_path / "submitted" / "grace")
    with pytest.raises(SubmissionRefused, match="not graded"):
        require_plain_files(str(tmp_path / "submitted" / "ada" / "lesson1"))


@needs_root
def test_the_jail_imports_nothing_a_submission_left_in_the_scratch_folder():
    sandbox = Sandbox()
    scratch = sandbox.make_scratch()
    fake = scratch / "agentlab_magics"
    fake.mkdir()
    (fake / "__init__.py").write_text("print('HIJACKED as', __import__('os').getuid())\n",
                                      encoding="utf-8")
    try:
        done = subprocess.run(sandbox.command([sys.executable, "-c", "print('ran')"]),
                              cwd=scratch, capture_output=True, text=True, timeout=60)
    finally:
        sandbox.clean()
    assert "HIJACKED" not in done.stdout + done.stderr
    assert (done.returncode, done.stdout) == (0, "ran\n"), done.stderr[-2000:]


@needs_root
def test_a_folder_the_interpreter_needs_inside_tmp_is_bound_back_read_only(tmp_path):
    """A checkout (or a virtual environment) under /tmp is still there, read-only, inside the
    run's own /tmp; what else lies beside it there is not."""
    kept, beside = tmp_path / "checkout" / "package", tmp_path / "checkout" / "secrets"
    kept.mkdir(parents=True)
    beside.mkdir()
    (kept / "module.py").write_text("x = 1\n", encoding="utf-8")
    (beside / "answer.txt").write_text("42\n", encoding="utf-8")
    sandbox = Sandbox(mode="userns")  # no user change: only what the mounts hide is tested
    scratch = sandbox.make_scratch()
    code = (f"import json, os\nprint(json.dumps([os.path.exists({str(kept / 'module.py')!r}), "
            f"os.path.exists({str(beside / 'answer.txt')!r}), "
            f"os.access({str(kept)!r}, os.W_OK)]))")
    exposed = [arg for path in [*interpreter_paths(), str(kept)] for arg in ("--expose", path)]
    jail = [sys.executable, "-P", "-m", "agentlab_magics.grading.jail", "--scratch", str(scratch),
            *exposed, "--", sys.executable, "-c", code]
    try:
        done = subprocess.run(["unshare", "--mount", "--fork", *jail], cwd=scratch,
                              capture_output=True, text=True, timeout=60)
    finally:
        sandbox.clean()
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [True, False, False]



CHANNEL_WRITER = '''
import ctypes, json, os
open("/run/lock/agentlab-channel", "w").write("left by one run")
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0x5eed, 4096, 0o1000 | 0o666)  # IPC_CREAT, for everyone
print(json.dumps({"segment": segment}))
'''
CHANNEL_READER = '''
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
print(json.dumps({"lock": os.path.exists("/run/lock/agentlab-channel"),
                  "segment": libc.shmget(0x5eed, 0, 0)}))
'''


@needs_root
def test_two_runs_share_no_lock_folder_and_no_system_v_memory():
    """The kernel and the student process of one submission, or two submissions, run at the
    same time: nothing one writes where every process of a machine may write (/run/lock, a
    SysV segment) reaches the other, or outlives its run."""
    written = inside(CHANNEL_WRITER)
    assert written["segment"] >= 0  # the writer did make its segment, in its own namespace
    assert inside(CHANNEL_READER) == {"lock": False, "segment": -1}
    assert not os.path.exists("/run/lock/agentlab-channel")
