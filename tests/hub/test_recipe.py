"""What `agentlab hub demo` says on a machine that cannot run the hub, before it touches it."""

import os
from pathlib import Path

from agentlab_magics.cli import main
from agentlab_magics.hub import recipe
from agentlab_magics.hub.plan import HubPlan

REPO = Path(__file__).resolve().parents[2]


def plan(tmp_path, **given) -> HubPlan:
    return HubPlan(folder=tmp_path / "hub", password="pw", **given)


def test_each_missing_piece_is_a_sentence_that_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(recipe.shutil, "which", lambda name, **kw: None)
    monkeypatch.setattr(recipe, "closed_ancestor", lambda path: "/root")
    find = recipe.importlib.util.find_spec
    monkeypatch.setattr(recipe.importlib.util, "find_spec",
                        lambda name: None if name == "jupyterhub" else find(name))
    found = recipe.problems(plan(tmp_path, instructor_package=tmp_path))
    assert [sentence.split(":")[0] for sentence in found] == [
        "The hub makes Unix users and starts each one's server as that user, so it must run "
        "as root",
        "JupyterHub's proxy (configurable-http-proxy) is not installed",
        "JupyterHub is not installed in this Python",
        f"The hub's users could not run this Python ({os.path.realpath(recipe.sys.executable)}",
        "The instructor package (agentlab_instructor, the held-back tests) is not installed "
        "here",
    ]
    assert "npm install -g configurable-http-proxy" in found[1]
    assert "/usr/bin/python3 -m venv /opt/agentlab-hub" in found[3]


def test_the_instructor_package_is_found_where_given_or_where_python_finds_it(tmp_path):
    assert recipe._instructor_package(plan(tmp_path, instructor_package=REPO / "instructor")) \
        == (REPO / "instructor").resolve()
    assert recipe._instructor_package(plan(tmp_path)) == (REPO / "instructor").resolve()
    assert recipe._instructor_package(plan(tmp_path, instructor_package=tmp_path)) is None


def test_the_command_stops_at_the_sentence_and_changes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["hub", "demo", "--folder", str(tmp_path / "hub")]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("agentlab: The hub makes Unix users")
    assert "Traceback" not in said.err and not (tmp_path / "hub").exists()


def test_an_instructor_package_every_user_can_read_is_called_out(tmp_path, monkeypatch):
    import io
    import subprocess
    import sys

    from agentlab_magics.hub import demo

    shared = Path(sys.prefix).resolve()
    laid_out = plan(tmp_path, instructor_package=shared / "lib")
    exited = subprocess.Popen([sys.executable, "-c", "pass"])
    exited.wait()
    monkeypatch.setattr(demo, "start", lambda given: (laid_out, exited))
    out = io.StringIO()
    assert demo.run(laid_out, out) == 1  # JupyterHub "exited by itself" here
    assert "students can read the held-back tests" in out.getvalue()
    safe = laid_out.model_copy(update={"instructor_package": tmp_path})
    monkeypatch.setattr(demo, "start", lambda given: (safe, exited))
    out = io.StringIO()
    demo.run(safe, out)
    assert "held-back" not in out.getvalue()
