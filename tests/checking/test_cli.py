"""`agentlab check`, `labs`, `starter`, `solution`: output and exit codes."""

import json
import re
import subprocess
import sys

from agentlab_magics.course import find_lab


def agentlab(*args):
    return subprocess.run([sys.executable, "-m", "agentlab_magics", *args],
                          capture_output=True, text=True, timeout=120)


def test_check_passes_the_reference_and_exits_0(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(find_lab("lesson6").reference)
    done = agentlab("check", "lesson6", "--harness", str(path))
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].endswith("tests passed") and all(
        line.startswith(("✓", "Still holds from lesson ")) for line in lines[1:])
    held = [line for line in lines if line.startswith("Still holds from lesson 5")]
    assert len(held) == 1 and re.fullmatch(r"Still holds from lesson 5: all \d+ tests pass",
                                           held[0])  # folded: every one passes


def test_check_of_the_starter_exits_1_with_indented_messages(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(find_lab("checkpoint-a").starter)
    done = agentlab("check", "checkpoint-a", "--harness", str(path))
    assert done.returncode == 1
    assert "✗ " in done.stdout and "    run_agent is not written yet" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_json_is_the_check_report(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(find_lab("lesson5").reference)
    done = agentlab("check", "6", "--harness", str(path), "--json")
    report = json.loads(done.stdout)
    assert report["lab_id"] == "lesson6" and report["outcomes"]
    assert set(report["outcomes"][0]) >= {"sentence", "outcome", "message", "duration"}


def test_usage_errors_exit_2(tmp_path):
    assert agentlab("check", "lesson99", "--harness", "x.py").returncode == 2
    assert agentlab("check", "lesson1").returncode == 2
    for limit in ("0", "100000"):
        assert agentlab("check", "lesson1", "--harness", "x.py", "--timeout", limit).returncode == 2
    for where, sentence in ((tmp_path / "nope.py", "There is no file"),
                            (tmp_path, "is a folder. Give the path of your harness.py inside it")):
        done = agentlab("check", "lesson1", "--harness", str(where))
        assert done.returncode == 2 and done.stdout == "", done.stdout
        assert done.stderr.startswith("agentlab: ") and sentence in done.stderr


def test_version():
    from agentlab_magics import __version__

    done = agentlab("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"agentlab {__version__}")


def test_labs_lists_every_lab_and_starter_prints_gaps():
    listed = agentlab("labs").stdout
    assert all(lab in listed for lab in ("lesson1", "lesson6", "checkpoint-a-test"))
    assert "# --- your code ---" in agentlab("starter", "checkpoint-a").stdout


# What a check from a shell has no use for: the notebook's, the grader's and the hub's parts.
NOT_FOR_A_CHECK = ("IPython", "ipykernel", "ipywidgets", "anywidget", "traitlets", "nbformat",
                   "nbclient", "nbgrader", "jupyter_client", "dask", "distributed", "asyncio",
                   "agentlab_instructor", "agentlab_magics.widgets", "agentlab_magics.notebook",
                   "agentlab_magics.magics",
                   "agentlab_magics.grading", "agentlab_magics.hub.plan",
                   "agentlab_magics.bounded")


def test_a_check_from_a_shell_loads_only_what_a_check_needs(tmp_path):
    for lab_id in ("lesson1", "lesson6", "checkpoint-a"):
        path = tmp_path / f"{lab_id}.py"
        path.write_text(find_lab(lab_id).starter)
        done = subprocess.run(
            [sys.executable, "-c",
             "import json, sys\nfrom agentlab_magics.cli import main\n"
             f"code = main(['check', {lab_id!r}, '--harness', {str(path)!r}])\n"
             "print(json.dumps([code, sorted(sys.modules)]))"],
            capture_output=True, text=True, timeout=120)
        code, modules = json.loads(done.stdout.splitlines()[-1])
        assert code == 1, done.stdout  # the starter fails its check: the check did run
        loaded = [name for name in modules
                  if any(name == part or name.startswith(part + ".") for part in NOT_FOR_A_CHECK)]
        assert loaded == [], lab_id


def test_a_notebook_given_as_the_harness_is_told_as_a_notebook(tmp_path):
    """A notebook read as Python fails on its first `null`; the check says what the file is
    and what to give instead, with or without the .ipynb name."""
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "%%check lesson1\n" + find_lab("lesson1").reference)])
    for name in ("lesson1.ipynb", "saved-as.py"):
        path = tmp_path / name
        nbformat.write(notebook, path)
        done = agentlab("check", "lesson1", "--harness", str(path))
        assert done.returncode == 2, done.stdout
        assert f"{path} is a notebook, not a Python file" in done.stdout
        assert "NameError" not in done.stdout + done.stderr
