""""At line N" is the line the student sees: in a `%%check` cell, JupyterLab's line number (line 1
is the `%%check` line); for `agentlab check FILE`, the file's. Both for an exception, while
loading or inside a test, and for a syntax error, whose caret stays on the line it shows."""

from __future__ import annotations

import pytest

from agentlab_magics.checking.cell_source import CodeProblem, compiled
from agentlab_magics.checking.runner import run
from agentlab_magics.notebook import check_cell
from agentlab_magics.progress import ProgressStore

# A harness whose run_agent raises: its `raise` is line 4 of the file (and of the cell body).
RAISING = "x = 1\n\ndef run_agent(model, system, messages, tools, prompt, **options):\n" \
          "    raise KeyError('oops')\n"
RAISING_LINE = 4        # in the file and in the body: the `raise` line
LOADING = "x = 1\ny = {}['missing']\n"
BROKEN = "x = 1\ndef run_agent(:\n    pass\n"


@pytest.fixture
def store(tmp_path):
    return ProgressStore(tmp_path / "progress.json")


def cell(source, store):
    return check_cell("lesson5", source, {}, store=store, timeout=5)


def test_an_exception_inside_a_test_names_the_cells_line(store, tmp_path):
    raised = [o.message for o in cell(RAISING, store).outcomes if o.outcome == "error"]
    assert raised and all(message == "Your code raised KeyError: 'oops', at line "
                          f"{RAISING_LINE + 1}: raise KeyError('oops')" for message in raised)


def test_an_exception_inside_a_test_names_the_files_line(tmp_path):
    path = tmp_path / "harness.py"
    path.write_text(RAISING)
    raised = [o.message for o in run("lesson5", path).outcomes if o.outcome == "error"]
    assert raised and all(f"at line {RAISING_LINE}: raise KeyError" in message
                          for message in raised)


def test_an_exception_while_loading_names_the_cells_line(store):
    assert cell(LOADING, store).problem == (
        "Running your cell raised KeyError: 'missing', at line 3: y = {}['missing']")


def test_a_syntax_error_names_the_cells_line_and_the_files_line(store, tmp_path):
    assert cell(BROKEN, store).problem.startswith("Line 3 of your cell is not valid Python")
    path = tmp_path / "harness.py"
    path.write_text(BROKEN)
    assert run("lesson5", path).problem.startswith("Line 2 of harness.py is not valid Python")


@pytest.mark.parametrize("source", ["x = 1 +\n", "s = 'é' + +\n", "  if x:\n", "f(a b)\n",
                                    "def f():\n    return 1\n  x = 2\n"])
def test_the_caret_stays_on_the_line_it_points_into(source):
    with pytest.raises(CodeProblem) as raised:
        compiled(source, "harness.py")
    shown, caret = str(raised.value).splitlines()[1:3]
    assert caret.strip() == "^"
    assert len(caret) <= len(shown), (shown, caret)


def graded_source(body: str) -> str:
    """What the grader checks of a submitted `%%check lesson5` cell holding `body`."""
    from agentlab_magics.grading.cells import lab_sources

    submitted = {"cell_type": "code", "metadata": {"nbgrader": {"solution": True}},
                 "source": "%%check lesson5\n" + body}
    return lab_sources([submitted])["lesson5"]


def test_the_graders_line_numbers_are_the_cells():
    assert run("lesson5", "", source=graded_source(BROKEN)).problem.startswith(
        "Line 3 of your cell is not valid Python")
    report = run("lesson5", "", source=graded_source(RAISING), timeout=5,
                 only=["test_error_message_shape", "test_a_503_is_written_down_not_raised"])
    assert [o.message for o in report.outcomes if o.outcome == "error"] == [
        "Your code raised KeyError: 'oops', at line "
        f"{RAISING_LINE + 1}: raise KeyError('oops')"]
