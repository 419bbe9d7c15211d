"""Lesson 6's held-back tests: a read tool's own line budget, and a last line with no newline."""

from agentlab_labs.lesson6.tests import bash_tool, model_sees, numbered, read_tool, words
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact


def test_read_tool_pages_by_its_own_line_budget(harness):
    """A read tool made with max_lines=5 pages through twelve lines five at a time."""
    text = numbered(12, "task")
    tool = read_tool(harness, lab.Workspace({"todo.md": text}), max_lines=5)
    lines = text.splitlines(keepends=True)
    for offset, expected in (
            (1, "".join(lines[:5]) + "[Showing lines 1-5 of 12. Use offset=6 to continue.]"),
            (6, "".join(lines[5:10]) + "[Showing lines 6-10 of 12. Use offset=11 to continue.]"),
            (11, "".join(lines[10:]))):
        content, _ = model_sees(tool, {"path": "todo.md", "offset": offset})
        assert exact(content, expected, "what the read tool gave"), (
            f"A read tool made with max_lines=5 gave {content!r} for todo.md (12 lines) from "
            f"offset={offset}; expected {expected!r}: the tool keeps to the budget it was made "
            "with, not the default one.")


def test_bash_tool_counts_a_last_line_without_a_newline(harness):
    """A last line with no newline still counts and is kept, and the exit code follows it."""
    output = numbered(29, "check") + "FAILED: 3 errors"
    tool = bash_tool(harness, lab.Shell({"make test": (output, 2)}), max_lines=4)
    content, failed = model_sees(tool, {"command": "make test"})
    expected = ["check 27", "check 28", "check 29", "FAILED: 3 errors",
                "[Showing the last 4 of 30 lines. Narrow the command for more.]",
                "Command exited with code 2"]
    assert exact((words(content), failed), (expected, False), "what the bash tool gave"), (
        f"make test printed 30 lines, the last 'FAILED: 3 errors' with no newline after it, and "
        f"exited 2; with max_lines=4 the bash tool {'raised' if failed else 'gave'} "
        f"{words(content)}; expected it to give {expected}.")
