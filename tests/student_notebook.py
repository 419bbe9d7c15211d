"""The notebook a student of lesson 5 writes, built fresh for the tests that run it for real.

It loads the extension, checks the reference harness (every test passes), checks a harness
with a plausible bug (a lesson-5 mutant: it sends the record, not the request, so three tests
fail), draws a broken record with %transcript, and asks a question (%question). The expected words are written out here by
hand, not taken from the code under test.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from agentlab_magics.course import find_lab
from tests.mutation.mutants import MUTANTS

SENDS_THE_RECORD = {mutant.name: mutant for mutant in MUTANTS}["the record sent, not the request"]

RECORD = """\
from agentlab_magics import lab

c1 = lab.call("read", {"path": "a.py"}, id="c1")
c2 = lab.call("read", {"path": "b.py"}, id="c2")
record = [lab.user("Read a.py and b.py."), lab.fail("503 overloaded"), lab.user("Try again."),
          lab.reply(c1, c2), lab.tool_result(c1, "A = 1")]
%transcript record"""

# The cells' order: these indexes name them in the saved notebook and on the page.
LOAD, REFERENCE_CHECK, BROKEN_CHECK, TRANSCRIPT, QUESTION = range(5)

REFERENCE_SUMMARY = "05 Failures and limits: 40 of 40 tests passed"
BROKEN_SUMMARY = ("05 Failures and limits: 7 of its 10 own tests passed; 30 of 30 from earlier "
                  "lessons still hold")
PASSING = ("max_turns=None means no limit: twelve requests in a row are served, "
           "and a limit of 20 changes nothing.")
FAILING = ("max_turns=3 allows exactly three model calls in every run, "
           "however long the list already is.")
UNANSWERED = "toolCall c2 has no toolResult"          # the complaint on the reply's row (3)
EMPTY_FAILURE = "assistant message has empty content"  # the complaint on the failed reply (1)
# Checkpoint A's question on the order of results; its right answer is the third option.
ASK = "%question a4-jumbled-order"
RIGHT = "Right: Each result right after the reply, in call order."


def notebook_of(*sources: str) -> nbformat.NotebookNode:
    """A notebook of these code cells, unexecuted, with the python3 kernel named so nothing
    asks for one."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                       "language": "python"}
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return notebook


def student_notebook() -> nbformat.NotebookNode:
    """The five cells, unexecuted, with the python3 kernel named so nothing asks for one."""
    reference = find_lab("lesson5").reference
    return notebook_of(
        "%load_ext agentlab_magics",
        "%%check lesson5\n" + reference,
        "%%check lesson5\n" + SENDS_THE_RECORD.apply(reference),
        RECORD,
        ASK)


def executed_notebook(path: Path) -> nbformat.NotebookNode:
    """The notebook written to `path` after nbclient ran it in a real python3 kernel, with its
    defaults (a headless run: the views are static HTML, no widget state is saved). The
    kernel inherits this process's environment."""
    notebook = student_notebook()
    NotebookClient(notebook, kernel_name="python3", timeout=120,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    nbformat.write(notebook, path)
    return notebook


def outcome_in(report_html: str, sentence: str) -> str | None:
    """The outcome ("passed", "failed", ...) of the report line holding `sentence`, or None."""
    for line in report_html.split('<li class="al-test ')[1:]:
        if f'<span class="al-sentence">{html.escape(sentence)}</span>' in line:
            return re.match(r'al-outcome-(\w+)"', line).group(1)
    return None
