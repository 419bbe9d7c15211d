"""Nothing a student wrote reaches a page as live markup.

The autograded notebook is drawn by nbconvert's HTMLExporter in two places: in the formgrader
(the instructor's browser, on the hub's origin) and on the feedback page `nbgrader
generate_feedback` writes for the student. nbconvert 7.17's lab and classic templates, and
nbgrader 0.9.6's feedback and formgrade templates built on classic, put some of a notebook on
the page as it is:
- outputs: text/html (in classic, with `metadata["text/html"]["isolated"]`, as an iframe);
  application/javascript inside a <script>; text/markdown through markdown, raw HTML and all;
  text/vnd.mermaid (lab), not escaped; a widget view, and the notebook's `metadata.widgets`,
  which makes the page load a widget manager that draws the student's widget state (an HTML
  widget's value becomes markup). An image output's metadata `width` and `height` go into the
  <img> tag escaped but unquoted (`width=1 onload=…` adds a handler); `filenames` becomes its
  src;
- markdown cells: raw HTML as it is (nbgrader's templates never sanitise), and links and images
  with any scheme: nbconvert's markdown renderer allows harmful protocols, so
  `[x](javascript:…)` is a live link even with every `<` escaped. An `attachment:` image whose
  attachment is missing stops the whole page with InvalidNotebook.
These are escaped by the templates, and so kept here: text/plain, streams and tracebacks
(ansi2html escapes first), code (pygments), image/png and image/jpeg data (escape_html in a
quoted src), cell ids and tags, the notebook's title, and `</script>` in JSON blocks. text/latex
is escaped and then typeset by MathJax with its Safe extension; image/svg+xml is drawn as an
<img> of a data URL, where its scripts never run; raw cells go through bleach (clean_html) in
lab and classic. Those are dropped or neutralised here all the same: there is no text of theirs
a grader needs, and a template other than today's may treat them as markup.

`InertMarkup` runs in the autograde chain right after `ScoredOutside`, before nbgrader writes
the autograded notebook, and leaves in it:
- each graded cell's outputs as they are: ScoredOutside has just written them (our report,
  escaped), whatever the cell held before;
- in every other code cell, only what the templates escape: streams, errors, text/plain, and
  image/png and image/jpeg when the data is base64 (kept without whitespace); no output
  metadata. An output that loses its rich form and has no text/plain gets one saying so;
- the instructor's markdown and raw cells as they are: those nbgrader restored from the
  gradebook (`is_instructors`). Every other markdown and raw cell is the student's, whatever
  its metadata claims: its source has `&`, `<`, `>` and `[` as entities, so it renders as the
  characters typed (no tag, entity, link or image of theirs is live), a raw cell loses its
  raw_mimetype and becomes that text too, and attachments go (nothing can refer to them now);
- no `widgets` in the notebook's metadata.
"""

from __future__ import annotations

import base64
import html

from nbconvert.preprocessors import Preprocessor
from nbformat import from_dict
from nbgrader.utils import compute_checksum, is_locked
from traitlets import Bool

from agentlab_magics.grading.cells import is_graded
from agentlab_magics.widgets.rendering import WIDGET_VIEW

RASTER = ("image/png", "image/jpeg")
NOTICE = ("[agentlab: this output's {kind} was left out of the graded copy; "
          "run the notebook to see it]")
KINDS = {"text/html": "HTML", "application/javascript": "JavaScript",
         "text/markdown": "Markdown", "text/latex": "LaTeX", "image/svg+xml": "SVG image",
         "image/png": "image", "image/jpeg": "image", WIDGET_VIEW: "widget"}


def is_instructors(cell: dict) -> bool:
    """Whether the cell's source is the instructor's: nbgrader restored it from the gradebook.

    nbgrader's OverwriteCells (run before autograding) removes a grade_id the gradebook lacks,
    sets the checksum of every other to the gradebook's, and puts back the source of each cell
    locked there. So a cell is the instructor's when it is locked, has a grade_id, and its
    checksum (of source, type, flags, grade_id and points) matches; metadata a student copied
    or made up fails the checksum. Markdown without nbgrader metadata (this course's prose) is
    not: a student may have edited it."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    if not meta.get("grade_id") or not is_locked(cell):
        return False
    try:
        return compute_checksum(cell) == meta.get("checksum")
    except (KeyError, TypeError, ValueError):  # metadata nbgrader itself would not write
        return False


def as_text(source: str) -> str:
    """Markdown that renders as the characters of `source`: `&`, `<`, `>` and `[` become
    entities, so no tag, entity, autolink, link, image or link definition can start. (In a
    code span the entities show as written: the price of escaping without parsing.)"""
    return html.escape(source, quote=False).replace("[", "&#91;")


def canonical_base64(value) -> str | None:
    """`value` as base64 without whitespace, or None when it is not base64 at all."""
    if isinstance(value, list):
        value = "".join(value) if all(isinstance(v, str) for v in value) else None
    if not isinstance(value, str):
        return None
    text = "".join(value.split())
    try:
        base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error, and non-ASCII text
        return None
    return text


def inert_bundle(data: dict) -> tuple[dict, list[str]]:
    """The part of a MIME bundle the templates escape (text/plain, and base64 PNG and JPEG),
    and the MIME types left out."""
    kept, dropped = {}, []
    for mime, value in data.items():
        image = canonical_base64(value) if mime in RASTER else None
        if mime == "text/plain":
            kept[mime] = value
        elif image is not None:
            kept[mime] = image
        else:
            dropped.append(mime)
    return kept, dropped


def inert_output(output: dict) -> dict | None:
    """The output as the templates escape it: streams and errors as they are; a display or
    result with its inert bundle, no metadata, and a text/plain notice when it has no text
    left; None for any other kind of output."""
    kind = output.get("output_type")
    if kind in ("stream", "error"):
        return output
    if kind not in ("display_data", "execute_result"):
        return None
    data, dropped = inert_bundle(output.get("data", {}))
    if dropped and "text/plain" not in data:
        data["text/plain"] = NOTICE.format(kind=KINDS.get(dropped[0], "rich form"))
    output["data"], output["metadata"] = from_dict(data), from_dict({})
    return output


def inert_text_cell(cell: dict) -> dict:
    """A student's markdown or raw cell as the text they typed, without attachments."""
    cell["source"] = as_text(cell.get("source", ""))
    cell.pop("attachments", None)
    if cell.get("cell_type") == "raw":
        cell.get("metadata", {}).pop("raw_mimetype", None)
        cell.get("metadata", {}).pop("format", None)
    return cell


class InertMarkup(Preprocessor):
    """Leave in the notebook only markup that is ours or the instructor's: what a student
    wrote (outputs of cells that are not graded, markdown and raw cells nbgrader did not
    restore, widget state) is kept only in forms the templates escape."""

    # nbconvert's Preprocessor is off unless told otherwise; this one always runs.
    enabled = Bool(True, help="Make what the student wrote inert.").tag(config=True)

    def preprocess(self, nb, resources):
        nb.metadata.pop("widgets", None)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        kind = cell.get("cell_type")
        if kind == "code" and not is_graded(cell):
            outputs = (inert_output(output) for output in cell.get("outputs", []))
            cell.outputs = [output for output in outputs if output is not None]
        elif kind in ("markdown", "raw") and not is_instructors(cell):
            cell = inert_text_cell(cell)
        return cell, resources
