"""nbgrader's configuration for the agentlab course (nbgrader 0.9.6).

Every path is relative to this folder, so the course can be copied anywhere (the demo,
`agentlab course demo`, runs a copy in a temporary folder). nbgrader reads this file when a
command runs in this folder, or with `--course-dir=` pointing here.

What a JupyterHub deployment changes, and nothing else:
- the exchange: `AGENTLAB_EXCHANGE` (or `c.Exchange.root` below) names a folder every user of
  the hub can write to, such as /srv/nbgrader/exchange; students' own nbgrader_config.py then
  sets the same `c.Exchange.root` and `c.CourseDirectory.course_id`;
- the course id, if the hub runs several courses (it names the course's folder in the exchange);
- `c.CourseDirectory.db_url`, to keep the gradebook outside a folder the graders share, or in a
  database server (a SQLAlchemy URL);
- the instructors' accounts and the formgrader service, in the hub's own configuration.
"""

import os

c = get_config()  # noqa: F821 (nbgrader injects get_config when it loads this file)

HERE = os.path.dirname(os.path.abspath(__file__))

# -- where things are ------------------------------------------------------------------------
c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = "agentlab"
# source/<assignment>/<assignment>.ipynb is written by `agentlab course build`; release/,
# submitted/, autograded/ and feedback/ are nbgrader's, next to it (see .gitignore).
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(HERE, "gradebook.db")
# The exchange: the folder AGENTLAB_EXCHANGE names (it must exist; a hub's admin makes it,
# writable by all), or else exchange/ here, made on first use writable by all with the sticky
# bit, so no one removes or renames what another put there (nbgrader checks only the 777 bits,
# and keeps it), once the course has assignments (source/) to exchange: a folder that holds
# only this file gets nothing written by a command that refuses it. The demo points
# AGENTLAB_EXCHANGE at a folder of its own.
if os.environ.get("AGENTLAB_EXCHANGE"):
    c.Exchange.root = os.environ["AGENTLAB_EXCHANGE"]
else:
    c.Exchange.root = os.path.join(HERE, "exchange")
    if os.path.isdir(os.path.join(HERE, "source")):
        try:
            os.mkdir(c.Exchange.root)
            os.chmod(c.Exchange.root, 0o1777)
        except FileExistsError:
            pass

# -- releasing -------------------------------------------------------------------------------
# What a student finds in place of each `### BEGIN SOLUTION` … `### END SOLUTION` region. Some
# regions are whole definitions at the top level of a lesson file: nbgrader's default stub
# (`raise NotImplementedError()`) would stop the whole cell there, and %%check could check
# nothing until every gap is filled. With `pass` the file runs, a missing name is reported
# as "not written yet", and a function whose body is the stub returns None and fails its tests.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\npass"}
# A released notebook carries the language_info of this environment's kernels, the students'
# on a hub: JupyterLab writes its kernel's into the notebook it opens, and a notebook that
# changes on opening shows as unsaved before the student touched it.
from nbgrader.converters import GenerateAssignment  # noqa: E402

c.GenerateAssignment.preprocessors = [
    *GenerateAssignment.class_traits()["preprocessors"].default(),
    "agentlab_magics.term.kernel_language.KernelLanguage",
]

# -- autograding -----------------------------------------------------------------------------
# Scores come from outside the kernel (see autograde_preprocessors below), where each test has
# agentlab's own time limit (a few seconds, agentlab_magics.grading.TIMEOUT): code that never
# returns fails the tests that reach it, each with a sentence, and their cells lose their
# points. The kernel only runs the notebook for its outputs; while nbgrader autogrades, its
# %%check and grade() run no test. nbgrader's limit per cell is for everything else: a cell
# still running after 10 s (a student's own loop) is interrupted, gets a CellTimeoutError, and
# the rest of the notebook runs; the whole notebook has 120 s (ScoredOutside.notebook_limit).
c.Execute.timeout = 10
# Code that survives the interrupt too (it catches KeyboardInterrupt and loops on) keeps the
# kernel busy for good. By default nbgrader then gives up on the whole notebook: no grades,
# the command exits 1. With this it waits 4 s more for each cell, times it out in turn, and
# the scores still come from the scoring process (0 where the code never finishes loading).
c.Execute.raise_on_iopub_timeout = False
# A student may delete a graded cell. nbgrader 0.9.6 still autogrades the notebook, but leaves
# that cell without a score and the submission waiting for a manual grade (the CSV export
# counts the cell as 0). With this, nbgrader puts the teacher's copy back after the cell that
# came before it, with a first line saying so, and grades it like any other.
c.OverwriteCells.add_missing_cells = True
# Expected in autograde logs: "Attribute 'checksum' for cell tests-… has changed!", for every
# test cell with hidden tests and every submission. The released cell lacks the hidden tests,
# and this is how nbgrader puts them back (from the gradebook); it does not mean a student
# edited the cell.
# No widget state in autograded notebooks, so nbconvert (the formgrader, the feedback) draws no
# widget a student's own code made. Our views make none here: a headless run gets each one as
# static HTML alone (agentlab_magics.widgets.rendering.frontend_draws_widgets).
c.Execute.store_widget_state = False
# Scores come from outside the student's kernel (agentlab_magics.grading.autograde): the
# kernel runs in a sandbox without the hidden tests, and each graded cell is scored in a
# fresh sandboxed process that loads only its lab cell. Then every cell's output is cut at
# 100,000 characters (CapOutput), before nbgrader's own line limit and its grading steps.
c.Autograde.autograde_preprocessors = [
    "agentlab_magics.grading.autograde.ScoredOutside",
    # Nothing the student wrote stays live markup for the formgrader or the feedback page:
    # other cells' outputs keep only escaped forms, their markdown and raw cells read as text.
    "agentlab_magics.grading.untrusted.InertMarkup",
    "agentlab_magics.grading.output.CapOutput",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]

# -- feedback --------------------------------------------------------------------------------
# The feedback page: grades, the teacher's hidden tests taken out of the test cells, tracebacks
# of test cells cut to their last line (the sentences of the failed tests, not the test code).
# Every agentlab view in an autograded notebook is already its static HTML alone (graded cells:
# ScoredOutside's reports; other cells: InertMarkup keeps no widget view).
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "agentlab_magics.grading.feedback.ClearHiddenTests",  # nbgrader's, without its warning
    "agentlab_magics.grading.feedback.HideTestCode",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The page loads nothing from the internet: agentlab's template folder goes before nbgrader's
# own, where it shadows the one template that asks a CDN for MathJax (math stays as TeX).
from nbgrader.server_extensions.formgrader.handlers import template_path  # noqa: E402

from agentlab_magics.widgets.export import OFFLINE_TEMPLATES  # noqa: E402

c.HTMLExporter.extra_template_basedirs = [OFFLINE_TEMPLATES, template_path]
