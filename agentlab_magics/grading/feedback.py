"""The feedback page shows no test code: a failed test cell's traceback is cut to its last line.

An autograder cell fails by raising AssertionError with one sentence per failed test. IPython's
traceback around it quotes the cell's lines, hidden tests included, so on the feedback page
each error of a graded cell keeps only "AssertionError: <the sentences>". (ClearHiddenTests,
nbgrader's own without its warning, runs before this in GenerateFeedback and takes the hidden
tests out of the cell's source; see nbgrader_course/nbgrader_config.py.)
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import ClearHiddenTests as NbgraderClearHiddenTests
from traitlets import Bool, List, Unicode


class HideTestCode(Preprocessor):
    """Every error output of an nbgrader grade cell becomes its one line `ename: evalue`."""

    enabled = Bool(True, help="Cut the tracebacks of graded cells.").tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
            for output in cell.outputs:
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


class ClearHiddenTests(NbgraderClearHiddenTests):
    """nbgrader's ClearHiddenTests, taking the `display_data_priority` that nbconvert's HTML
    exporter sets for every preprocessor: nbgrader's base class declares it not configurable,
    so `generate_feedback` would warn of it on every run."""

    display_data_priority = List(Unicode()).tag(config=True)
