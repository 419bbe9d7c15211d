"""The grading sandbox, probed from inside a real autograde round and one run at a time.

The round (`probed`) grades lesson 1 for four students whose lab cells are the reference:
one whose extra cell probes the sandbox and leaves what it can behind (SysV objects, files in
every temporary folder, a detached process), two that write a million small files or fill
their bytes, and one graded after them. Around it the host's /run, /var/tmp, /dev/shm, SysV
objects and processes are listed, and must be the same after. The smaller tests run one
command through `Sandbox.command`, as the grader runs a kernel or a student process.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from agentlab_magics.course import find_lab
from agentlab_magics.grading.memory_cap import kind_here
from agentlab_magics.grading.sandbox import (
    FIRST_UID,
    UIDS,
    Sandbox,
    detect,
    instructor_paths,
    readable,
)
from agentlab_magics.grading.submission import SubmissionRefused, require_plain_files
from tests.nbgrader_course import round_course
from tests.security.private_tmp import keep_arguments

ROOT = Path(__file__).resolve().parents[2]
LAB = "lesson1"
MARK = "agentlab-sandbox-probe-5e1f"
needs_root = pytest.mark.skipif(os.geteuid() != 0 or detect() != "root",
                                reason="the strongest sandbox needs root and bubblewrap")
x86_64 = pytest.mark.skipif(platform.machine() != "x86_64",
                            reason="the probe names x86_64's system call numbers")


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


# -- the probe, a cell of a submission ------------------------------------------------------

REFUSED = {"ptrace": (101, 0, 0, 0, 0), "mount": (165, 0, 0, 0, 0), "umount2": (166, 0, 0),
           "unshare": (272, 0x10000000), "setns": (308, 0, 0), "keyctl": (250, 0, 0),
           "bpf": (321, 0, 0, 0), "perf_event_open": (298, 0, 0, 0, 0, 0),
           "userfaultfd": (323, 0), "personality": (135, 0xFFFFFFFF), "kexec_load": (246, 0, 0),
           "init_module": (175, 0, 0, 0), "io_uring_setup": (425, 1, 0), "chroot": (161, 0),
           "pivot_root": (155, 0, 0)}
PROBE = '''
import ctypes, json, os, stat, subprocess, time
libc = ctypes.CDLL(None, use_errno=True)
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
found = {"top": sorted(os.listdir("/")), "cwd": os.getcwd(), "uid": os.getuid(),
         "no_new_privs": status["NoNewPrivs"].strip(), "seccomp": status["Seccomp"].strip(),
         "setuid": [], "writable": [], "ran": [], "refused": {}}
for top, folders, files in os.walk("/"):
    if top.startswith(("/proc", "/sys")):
        folders[:] = []
        continue
    if os.access(top, os.W_OK):
        found["writable"].append(top)
    for name in files:
        path = os.path.join(top, name)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) and mode & (stat.S_ISUID | stat.S_ISGID):
            found["setuid"].append(path)
        if stat.S_ISREG(mode) and os.access(path, os.W_OK) and not top.startswith(
                tuple(found["writable"])):
            found["writable"].append(path)
for place in ("/tmp", "/dev/shm", os.getcwd()):
    script = os.path.join(place, "probe-tool.sh")
    with open(script, "w") as file:
        file.write("#!/bin/sh\\necho ran\\n")
    os.chmod(script, 0o755)
    try:
        found["ran"].append([place, subprocess.run([script], capture_output=True).returncode])
    except OSError as error:
        pass
for name, args in @REFUSED@.items():
    result = libc.syscall(*args)
    found["refused"][name] = [result, ctypes.get_errno()]
try:
    os.chroot(".")
except OSError as error:
    found["sentence"] = f"{type(error).__name__}: {error}"
# what a submission may leave behind: SysV objects, files in every shared folder, a process
found["segment"] = libc.shmget(0x5eed, 4096, 0o1000 | 0o666)
found["queue"] = libc.msgget(0x5eed, 0o1000 | 0o666)
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run", "/run/lock"):
    try:
        open(os.path.join(folder, "left-by-the-probe"), "w").close()
    except OSError:
        pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "600.5e1f"])
    os._exit(0)
time.sleep(0.2)
print("PROBE " + json.dumps(found))
'''
MILLION_FILES = '''
import os
os.makedirs("many", exist_ok=True)
made = 0
try:
    for made in range(1_000_000):
        open(f"many/{made}", "w").close()
except OSError as error:
    print(f"MANY stopped after {made} files: {error}")
'''
FILL_BYTES = '''
written = 0
try:
    for part in range(64):
        with open(f"big-{part}", "wb") as file:
            for _ in range(63):
                file.write(b"x" * (1 << 20))
                written += 1 << 20
except OSError as error:
    print(f"FULL stopped after {written >> 20} MiB: {error}")
'''
STUDENTS = {"a_probe": PROBE.replace("@REFUSED@", repr(REFUSED)),
            "b_million_files": MILLION_FILES, "b_fill_bytes": FILL_BYTES,
            "c_after": None}


@dataclass
class Round:
    course: Path
    before: dict
    after: dict
    scores: dict[str, float]

    def outputs(self, student: str) -> str:
        path = self.course / "autograded" / student / LAB / f"{LAB}.ipynb"
        if not path.exists():
            return ""
        notebook = nbformat.read(path, as_version=4)
        return "\n".join(output.get("text", "") + output.get("evalue", "")
                         for cell in notebook.cells for output in cell.get("outputs", []))

    def probe(self) -> dict:
        found = re.search(r"PROBE (\{.*\})", self.outputs("a_probe"))
        assert found, self.outputs("a_probe")[-3000:]
        return json.loads(found.group(1))


def host_state() -> dict:
    """What a run could leave on the host that the round's own namespace does not keep apart:
    /run's entries (but a round harness's staging folders) and the SysV objects."""
    run = sorted(str(path) for path in Path("/run").rglob("*")
                 if not path.relative_to("/run").parts[0].startswith("agentlab-redteam-keep-"))
    ipcs = subprocess.run(["ipcs"], capture_output=True, text=True).stdout
    return {"/run": run, "ipcs": ipcs}


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> Round:
    """The round runs as the attack rounds do (private_tmp.py): its /tmp, /var/tmp and
    /dev/shm its own and its processes in a memory cgroup of its own, so what it leaves
    there, and the processes that outlive it, are the round's alone, whatever else runs."""
    if os.geteuid() != 0 or detect() != "root" or kind_here() == "rlimit":
        pytest.skip("the strongest sandbox needs root, bubblewrap and a memory cgroup")
    folder = tmp_path_factory.mktemp("sandbox-round")
    course, nbgrader = round_course(folder, LAB, list(STUDENTS))
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        # the probe walks all the run can see, the floods write until refused: on a busy
        # machine that outlasts the course's 10 s a cell, and the round would read nothing
        config.write("\nc.Execute.timeout = 300\n")
    released = nbformat.read(course / "release" / LAB / f"{LAB}.ipynb", as_version=4)
    for student, extra in STUDENTS.items():
        notebook = nbformat.from_dict(json.loads(json.dumps(released)))
        for cell in notebook.cells:
            if cell.source.startswith("%%check"):
                cell.source = f"{cell.source.splitlines()[0]}\n{find_lab(LAB).reference}"
        if extra:
            notebook.cells.append(nbformat.v4.new_code_cell(extra))
        where = course / "submitted" / student / LAB
        where.mkdir(parents=True)
        nbformat.write(notebook, where / f"{LAB}.ipynb")
    before = host_state()
    report = folder / "left-over.json"
    kept = keep_arguments(folder)
    subprocess.run(["unshare", "--mount", "--propagation", "private", sys.executable,
                    str(ROOT / "tests" / "security" / "private_tmp.py"), *kept, "--report",
                    str(report), "--memory", str(3 << 30), "--settle", "2", "--",
                    sys.executable, "-m", "nbgrader", "autograde", LAB],
                   cwd=course, env=nbgrader.environment(), check=True, capture_output=True,
                   stdin=subprocess.DEVNULL, timeout=600)
    measured = json.loads(report.read_text(encoding="utf-8"))
    after = {**host_state(), "left_over": measured["left_over"],
             "processes": measured["processes_left"]}
    before.update(left_over=[], processes=[])
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {student: gradebook.find_submission(LAB, student).score for student in STUDENTS}
    return Round(course, before, after, scores)


@x86_64
def test_the_run_sees_exactly_the_allow_list(probed):
    """The root's links into /usr, /usr, a few files of /etc, its own /dev, /proc and /tmp,
    and the folders that lead to the interpreter and its packages: nothing else."""
    links = {name for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
             if os.path.islink(f"/{name}")}
    expected = {*links, "usr", "etc", "dev", "proc", "tmp",
                *(Path(path).parts[1] for path in readable())}
    assert set(probed.probe()["top"]) == expected


@x86_64
def test_no_setuid_or_setgid_file_is_visible(probed):
    assert probed.probe()["setuid"] == []


@x86_64
def test_only_the_scratch_folder_and_the_private_tmpfs_are_writable_and_nothing_there_runs(
        probed):
    found = probed.probe()
    places = (found["cwd"], "/tmp", "/dev/shm")
    outside = [path for path in found["writable"]
               if not any(path == place or path.startswith(place + "/") for place in places)]
    assert outside == []
    assert found["ran"] == []  # every script written there was refused: noexec


@x86_64
def test_no_new_privileges_a_seccomp_filter_and_a_user_of_its_own(probed):
    found = probed.probe()
    assert (found["no_new_privs"], found["seccomp"]) == ("1", "2")
    assert FIRST_UID <= found["uid"] < FIRST_UID + UIDS


@x86_64
def test_each_refused_call_fails_with_eperm_and_a_sentence(probed):
    refused = probed.probe()["refused"]
    assert refused == {name: [-1, 1] for name in REFUSED}
    assert probed.probe()["sentence"] == \
        "PermissionError: [Errno 1] Operation not permitted: '.'"


def test_a_million_files_or_a_full_disk_stop_with_a_sentence_and_the_next_is_graded(probed):
    assert re.search(r"MANY stopped after \d+ files: \[Errno 28\] No space left on device",
                     probed.outputs("b_million_files")), probed.outputs("b_million_files")
    assert re.search(r"FULL stopped after \d+ MiB: \[Errno 28\] No space left on device",
                     probed.outputs("b_fill_bytes")), probed.outputs("b_fill_bytes")
    assert len(set(probed.scores.values())) == 1 and probed.scores["c_after"] > 0, \
        probed.scores


def test_nothing_outlives_a_round_of_hostile_submissions(probed):
    """The host's /run and SysV objects are the same before and after the round, and nothing
    is left in its /tmp, /var/tmp or /dev/shm, nor any process of it running, though the
    probe made some of each inside."""
    found = probed.probe()
    assert found["segment"] >= 0 and found["queue"] >= 0  # made, in the run's own namespace
    assert probed.after == probed.before


# -- one run at a time ----------------------------------------------------------------------

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
def test_the_checkouts_course_history_and_instructor_package_are_out_of_sight(tmp_path):
    other = tmp_path / "another-checkout" / "instructor" / "heldback.py"
    other.parent.mkdir(parents=True)
    other.write_text("secret = 1\n", encoding="utf-8")
    os.chmod(tmp_path, 0o755)
    hidden = [str(ROOT / "nbgrader_course" / "nbgrader_config.py"), str(ROOT / ".git" / "HEAD"),
              str(ROOT / "instructor" / "pyproject.toml"), str(other),
              *(str(Path(path) / "__init__.py") for path in instructor_paths())]
    seen = inside(READS % ([*hidden, str(ROOT / "agentlab_magics" / "__init__.py")],))
    assert seen == {**dict.fromkeys(hidden, False),
                    str(ROOT / "agentlab_magics" / "__init__.py"): True}


CHANNEL_WRITER = '''
import ctypes, json, os
open("/tmp/agentlab-channel", "w").write("left by one run")
libc = ctypes.CDLL(None, use_errno=True)
segment = libc.shmget(0x5eed, 4096, 0o1000 | 0o666)  # IPC_CREAT, for everyone
print(json.dumps({"segment": segment, "run": os.path.exists("/run")}))
'''
CHANNEL_READER = '''
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
print(json.dumps({"tmp": os.path.exists("/tmp/agentlab-channel"),
                  "segment": libc.shmget(0x5eed, 0, 0)}))
'''


@needs_root
def test_two_runs_share_no_temporary_folder_and_no_system_v_memory():
    """The kernel and the student process of one submission, or two submissions, run at the
    same time: nothing one writes where every process of a machine may write (/tmp, a SysV
    segment) reaches the other, or outlives its run; /run is not there at all."""
    written = inside(CHANNEL_WRITER)
    assert written == {"segment": written["segment"], "run": False}
    assert written["segment"] >= 0  # the writer did make its segment, in its own namespace
    assert inside(CHANNEL_READER) == {"tmp": False, "segment": -1}


@needs_root
def test_a_submission_left_in_the_scratch_folder_is_not_imported_by_the_sandbox():
    sandbox = Sandbox()
    scratch = sandbox.make_scratch()
    fake = scratch / "agentlab_magics"
    fake.mkdir()
    (fake / "__init__.py").write_text("print('HIJACKED as', __import__('os').getuid())\n",
                                      encoding="utf-8")
    try:
        done = subprocess.run(sandbox.command([sys.executable, "-P", "-c", "print('ran')"]),
                              cwd=scratch, capture_output=True, text=True, timeout=60)
    finally:
        sandbox.clean()
    assert "HIJACKED" not in done.stdout + done.stderr
    assert (done.returncode, done.stdout) == (0, "ran\n"), done.stderr[-2000:]


def test_a_submission_holding_a_link_is_refused_with_a_sentence(tmp_path):
    folder = tmp_path / "submitted" / "ada" / "lesson1"
    folder.mkdir(parents=True)
    (folder / "lesson1.ipynb").write_text("{}", encoding="utf-8")
    require_plain_files(str(folder))
    (folder / "notes.txt").symlink_to("/etc/hostname")
    with pytest.raises(SubmissionRefused, match=r"notes\.txt, which is not a plain file"):
        require_plain_files(str(folder))


def test_a_submission_folder_that_is_a_link_is_refused(tmp_path):
    real = tmp_path / "submitted" / "grace" / "lesson1"
    real.mkdir(parents=True)
    (tmp_path / "submitted" / "ada").symlink_to(tmp_path / "submitted" / "grace")
    with pytest.raises(SubmissionRefused, match="not graded"):
        require_plain_files(str(tmp_path / "submitted" / "ada" / "lesson1"))


# -- grading where no sandbox can be made ---------------------------------------------------


def test_grading_without_a_sandbox_is_refused_unless_asked_for(monkeypatch):
    from agentlab_magics.grading.autograde import ScoredOutside
    from agentlab_magics.grading.sandbox import SandboxMissing

    monkeypatch.setenv("AGENTLAB_SANDBOX", "none")
    with pytest.raises(SandboxMissing, match=r"c\.ScoredOutside\.without_sandbox = True"):
        ScoredOutside().preprocess(nbformat.v4.new_notebook(), {})
    # told to, it grades: an empty notebook runs to its end, still empty
    graded, _ = ScoredOutside(without_sandbox=True).preprocess(nbformat.v4.new_notebook(), {})
    assert graded.cells == []


def test_a_batch_summary_says_when_submissions_were_graded_without_a_sandbox():
    from agentlab_magics.grading.batch_summary import BatchSummary, Record

    def summary(*modes: str) -> str:
        return BatchSummary(assignment="lesson1", cluster="LocalCluster, 2 workers", began=0,
                            seconds=1, records=[Record(student=f"s{n}", status="graded",
                                                       sandbox=mode)
                                                for n, mode in enumerate(modes)]).render()

    assert summary("root", "root").endswith("Sandbox: root.")
    assert summary("root", "none").endswith(
        "1 submission(s) graded WITHOUT a sandbox (--without-sandbox): they ran as the grader; "
        "do not use these scores for credit.")
