"""A saved notebook holds each of our views as its static HTML, current, and no widget view.

A Jupyter server extension (the package's `_jupyter_server_extension_points`, enabled by the
etc/jupyter/jupyter_server_config.d/agentlab_magics.json the package installs) registers
`static_views` as a pre-save hook of the contents manager, so it runs on every save from
JupyterLab or Notebook and changes only what is written to disk, never the live page:
- every output one of our views made (its metadata holds rendering.MARK; no one else's output
  is touched) loses its widget view and keeps its text/html. Reopened once its kernel is gone,
  JupyterLab would draw a widget view as "Error displaying widget: model not found"; nbconvert
  and GitHub would draw it as nothing;
- a long transcript, whose widget went out before its record was judged with only a copy of
  its first screen beside it, is written from the full static renderings the kernel kept for
  it once judged (widgets.kept_views);
- a question the kernel showed unanswered and the progress store now answers (it was clicked
  after its cell ran: JupyterLab keeps no output update sent outside its cell's execution) is
  rendered anew from the store, by the kernel's own rendering (question_view);
- the widget state JupyterLab's "save widget state" setting puts in metadata.widgets loses our
  models, and with them the models only they refer to (their layouts).
The store is read, never written: a file that cannot be used is left for the kernel to set
aside and tell the student about, and the question keeps the rendering it had.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentlab_magics.course.questions import UnknownQuestion, find_question
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import Progress, ProgressError, default_path, parse
from agentlab_magics.widgets.kept_views import kept
from agentlab_magics.widgets.question_view import question_data, question_html, question_text
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW

STATE = "application/vnd.jupyter.widget-state+json"
OUR_WIDGETS = "agentlab_magics."  # how the _anywidget_id of each of our widgets' models starts
MODEL_REF = "IPY_MODEL_"          # how a model's state refers to another model


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Register the hook on the server's contents manager."""
    serverapp.contents_manager.register_pre_save_hook(static_views)
    serverapp.log.info("agentlab_magics: saved notebooks keep each agentlab view as static HTML")


def static_views(model: dict, path: str = "", contents_manager: Any = None, **_: Any) -> None:
    """The pre-save hook: make the notebook about to be saved as `path` hold our views as
    static HTML (see the module's docstring). Anything that is not a notebook is left alone."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    folder = Path(getattr(contents_manager, "root_dir", "") or ".", path).parent
    static_notebook(model["content"], lambda: stored_progress(folder),
                    lambda model_id: kept(model_id, folder))


def static_notebook(notebook: dict, progress: Callable[[], Progress | None],
                    copies: Callable[[str], dict[str, str] | None] = lambda _: None) -> None:
    """In place: every output of ours without its widget view, every question shown unanswered
    that `progress()` (read once, only if there is such a question) answers drawn anew, every
    long transcript sent unjudged drawn from the copy `copies(model id)` kept of it, and our
    models gone from the saved widget state."""
    ours: set[str] = set()
    unanswered = []
    for output in _our_outputs(notebook):
        view = output["data"].pop(WIDGET_VIEW, None)
        model_id = view.get("model_id") if isinstance(view, dict) else None
        if isinstance(model_id, str):
            ours.add(model_id)
        mark = output["metadata"][MARK]
        copy = copies(model_id) if mark.get("kept") is True and model_id else None
        if copy is not None:
            output["data"]["text/html"], output["data"]["text/plain"] = copy["html"], copy["text"]
            del mark["kept"]
        if mark.get("view") == "question" and mark.get("committed") is False:
            unanswered.append(output)
    stored = progress() if unanswered else None
    if stored is not None:
        for output in unanswered:
            _answer(output, stored)
    _drop_models(notebook, ours)


def stored_progress(folder: Path) -> Progress | None:
    """The progress the kernel keeps ($AGENTLAB_PROGRESS, a relative path taken from the
    notebook's folder as the kernel's working directory, or ~/.agentlab/progress.json), read
    without changing anything; None when it is missing or cannot be used."""
    where = default_path()
    if not where.is_absolute():
        where = folder / where
    try:
        return parse(where.read_bytes(), where)
    except (OSError, ProgressError):
        return None


def _our_outputs(notebook: dict) -> list[dict]:
    """The outputs our views made that have a static HTML to show instead of a widget."""
    found = []
    cells = notebook.get("cells")
    for cell in cells if isinstance(cells, list) else []:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else []:
            if not isinstance(output, dict):
                continue
            data, metadata = output.get("data"), output.get("metadata")
            if (isinstance(data, dict) and "text/html" in data and isinstance(metadata, dict)
                    and isinstance(metadata.get(MARK), dict)):
                found.append(output)
    return found


def _answer(output: dict, progress: Progress) -> None:
    """The question's output drawn with the answer `progress` holds for it, if it holds one."""
    mark = output["metadata"][MARK]
    if not isinstance(mark.get("id"), str):
        return
    try:
        question = find_question(mark["id"])
    except UnknownQuestion:
        return
    record = progress.labs.get(question.lab)
    commitment = record.questions.get(question.id) if record else None
    if commitment is None:
        return
    data = question_data(Asked(question, commitment))
    output["data"]["text/html"] = question_html(data)
    output["data"]["text/plain"] = question_text(data)
    mark["committed"], mark["answer"] = True, commitment.answer


def _drop_models(notebook: dict, model_ids: set[str]) -> None:
    """Our models (those our outputs showed, and any whose _anywidget_id is ours) out of the
    saved widget state, then the models only they referred to; no state left, no metadata."""
    metadata = notebook.get("metadata")
    widgets = metadata.get("widgets") if isinstance(metadata, dict) else None
    saved = widgets.get(STATE) if isinstance(widgets, dict) else None
    models = saved.get("state") if isinstance(saved, dict) else None
    if not (isinstance(models, dict) and isinstance(widgets, dict)
            and isinstance(metadata, dict)):
        return
    ours = {model_id for model_id, model in models.items()
            if model_id in model_ids or str(_state(model).get("_anywidget_id", "")).startswith(
                OUR_WIDGETS)}
    referred = {ref for model_id in ours for ref in _refs(models.get(model_id))}
    for model_id in ours:
        models.pop(model_id, None)
    still_used = {ref for model in models.values() for ref in _refs(model)}
    for model_id in referred - still_used:
        models.pop(model_id, None)
    if not models:
        del widgets[STATE]
        if not widgets:
            del metadata["widgets"]


def _state(model: Any) -> dict:
    state = model.get("state") if isinstance(model, dict) else None
    return state if isinstance(state, dict) else {}


def _refs(model: Any) -> set[str]:
    """The ids of the models `model`'s state refers to (a DOM widget's layout, ...)."""
    return {value.removeprefix(MODEL_REF) for value in _state(model).values()
            if isinstance(value, str) and value.startswith(MODEL_REF)}
