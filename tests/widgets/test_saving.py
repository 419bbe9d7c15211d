"""Where a view's bundle carries its widget (rendering.frontend_draws_widgets), and what the saving
hook (widgets.saving) leaves of our views in a saved notebook: the static HTML, current, with no
widget view and none of our widget state; anyone else's outputs and widgets as they were."""

from __future__ import annotations

import copy
import json
import logging
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import IPython
import nbformat
import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager

import agentlab_magics
from agentlab_magics.course.questions import find_question
from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.asked import Asked
from agentlab_magics.widgets import Transcript
from agentlab_magics.widgets.question_view import QuestionView
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW, frontend_draws_widgets
from agentlab_magics.widgets.saving import (
    STATE,
    _load_jupyter_server_extension,
    static_notebook,
    static_views,
)
from tests.widgets.cases import R1, A, U

ROOT = Path(__file__).resolve().parents[2]
QUESTION = find_question("a4-jumbled-order")
ENABLING = ROOT / "etc" / "jupyter" / "jupyter_server_config.d" / "agentlab_magics.json"


def in_a_kernel(monkeypatch, allow_stdin: bool) -> None:
    """As if this cell ran in ipykernel for a request whose allow_stdin was `allow_stdin`."""
    shell = SimpleNamespace(kernel=SimpleNamespace(_allow_stdin=allow_stdin))
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)


# -- the rule -------------------------------------------------------------------------------

def test_outside_a_kernel_the_widget_is_drawn_as_before(monkeypatch):
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert frontend_draws_widgets()
    monkeypatch.setattr(IPython, "get_ipython", lambda: SimpleNamespace())  # a terminal shell
    assert frontend_draws_widgets()


def test_a_headless_request_gets_no_widget_and_none_is_built(monkeypatch):
    in_a_kernel(monkeypatch, allow_stdin=False)
    assert not frontend_draws_widgets()
    view = Transcript([U, A, R1])
    bundle, metadata = view._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert metadata == {MARK: {"view": "transcript"}}
    assert view._widget is None


def test_an_interactive_request_gets_the_widget(monkeypatch):
    in_a_kernel(monkeypatch, allow_stdin=True)
    bundle, _ = Transcript([U, A, R1])._repr_mimebundle_()
    assert set(bundle) == {WIDGET_VIEW, "text/html", "text/plain"}


# -- the hook -------------------------------------------------------------------------------

def output_of(view) -> dict:
    """The display_data output a frontend that draws widgets would save for `view`."""
    bundle, metadata = view._repr_mimebundle_()
    assert WIDGET_VIEW in bundle
    return nbformat.v4.new_output("display_data", data=bundle, metadata=metadata)


def model(state: dict) -> dict:
    return {"model_name": "AnyModel", "model_module": "anywidget", "model_module_version": "*",
            "state": state}


def notebook_of(*outputs: dict, widgets: dict | None = None) -> dict:
    """A notebook (as the contents API carries it: plain JSON) with one cell per output."""
    notebook = nbformat.v4.new_notebook()
    for output in outputs:
        cell = nbformat.v4.new_code_cell("...")
        cell.outputs = [output]
        notebook.cells.append(cell)
    if widgets is not None:
        notebook.metadata["widgets"] = {STATE: {"version_major": 2, "version_minor": 0,
                                                "state": widgets}}
    return json.loads(json.dumps(notebook))


def someone_elses() -> dict:
    return nbformat.v4.new_output("display_data", data={
        WIDGET_VIEW: {"model_id": "theirs", "version_major": 2, "version_minor": 0},
        "text/html": "<b>their fallback</b>", "text/plain": "theirs"})


def no_progress():
    raise AssertionError("the store is read only for a question shown unanswered")


def test_our_outputs_lose_their_widget_view_and_no_one_elses_do():
    ours = output_of(Transcript([U, A, R1]))
    notebook = notebook_of(ours, someone_elses())
    static_notebook(notebook, no_progress)
    saved_ours, saved_theirs = (cell["outputs"][0] for cell in notebook["cells"])
    assert set(saved_ours["data"]) == {"text/html", "text/plain"}
    assert saved_ours["data"]["text/html"] == ours["data"]["text/html"]
    assert saved_theirs == json.loads(json.dumps(someone_elses()))


def test_our_models_and_their_layouts_leave_the_saved_state_and_others_stay():
    ours = output_of(Transcript([U, A, R1]))
    our_id = ours["data"][WIDGET_VIEW]["model_id"]
    widgets = {
        our_id: model({"layout": "IPY_MODEL_our-layout", "data": {}}),
        "our-layout": model({}),
        # one of ours no output shows any more (its cell was run again, or cleared)
        "old": model({"_anywidget_id": "agentlab_magics.widgets.question_widget.QuestionWidget",
                      "layout": "IPY_MODEL_old-layout"}),
        "old-layout": model({}),
        "theirs": model({"layout": "IPY_MODEL_their-layout", "value": 1}),
        "their-layout": model({}),
    }
    notebook = notebook_of(ours, someone_elses(), widgets=widgets)
    static_notebook(notebook, no_progress)
    assert set(notebook["metadata"]["widgets"][STATE]["state"]) == {"theirs", "their-layout"}


def test_with_only_our_models_saved_the_notebook_keeps_no_widget_state():
    ours = output_of(Transcript([U, A, R1]))
    our_id = ours["data"][WIDGET_VIEW]["model_id"]
    notebook = notebook_of(ours, widgets={our_id: model({"layout": "IPY_MODEL_l"}),
                                          "l": model({})})
    static_notebook(notebook, no_progress)
    assert "widgets" not in notebook["metadata"]


@pytest.fixture
def store(tmp_path, monkeypatch) -> ProgressStore:
    """The progress store the kernel and the server both find through AGENTLAB_PROGRESS."""
    path = tmp_path / "progress.json"
    monkeypatch.setenv("AGENTLAB_PROGRESS", str(path))
    return ProgressStore(path)


def saved(notebook: dict, root: Path, path: str = "lesson.ipynb") -> dict:
    """`notebook` as the hook leaves it when the server saves it as `path` under `root`."""
    static_views({"type": "notebook", "format": "json", "content": notebook}, path,
                 SimpleNamespace(root_dir=str(root)))
    return notebook


def question_output(notebook: dict) -> dict:
    (output,) = notebook["cells"][0]["outputs"]
    return output


def test_a_question_clicked_after_its_cell_ran_is_saved_with_the_stored_answer(store, tmp_path):
    notebook = notebook_of(output_of(QuestionView(Asked(QUESTION, None))))
    committed = store.commit(QUESTION.lab, QUESTION.id, "C")  # what the kernel did on the click
    output = question_output(saved(notebook, tmp_path))
    answered = QuestionView(Asked(QUESTION, committed))
    assert output["data"] == {"text/html": answered.to_html(), "text/plain": answered.to_text()}
    assert "Your answer" in output["data"]["text/html"] and "al-why" in output["data"]["text/html"]
    assert output["metadata"][MARK] == {"view": "question", "id": QUESTION.id, "committed": True,
                                        "answer": "C"}


def test_an_unanswered_question_stays_as_it_was_shown(store, tmp_path):
    shown = output_of(QuestionView(Asked(QUESTION, None)))
    output = question_output(saved(notebook_of(shown), tmp_path))
    assert output["data"]["text/html"] == shown["data"]["text/html"]
    assert output["metadata"] == json.loads(json.dumps(shown["metadata"]))


def test_a_question_shown_answered_keeps_its_rendering_and_its_notice(store, tmp_path):
    kept = store.commit(QUESTION.lab, QUESTION.id, "C")
    shown = output_of(QuestionView(Asked(QUESTION, kept, "You committed 'C' on ...")))
    output = question_output(saved(notebook_of(shown), tmp_path))
    assert output["data"]["text/html"] == shown["data"]["text/html"]
    assert "You committed" in output["data"]["text/html"]


def test_an_unreadable_store_leaves_the_question_and_the_file_alone(store, tmp_path):
    store.path.write_text("{not json", encoding="utf-8")
    shown = output_of(QuestionView(Asked(QUESTION, None)))
    output = question_output(saved(notebook_of(shown), tmp_path))
    assert output["data"]["text/html"] == shown["data"]["text/html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.json"]  # not set aside
    assert store.path.read_text(encoding="utf-8") == "{not json"


def test_a_relative_store_path_is_taken_from_the_notebooks_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTLAB_PROGRESS", "progress.json")  # as the kernel, run there, reads it
    (tmp_path / "week1").mkdir()
    ProgressStore(tmp_path / "week1" / "progress.json").commit(QUESTION.lab, QUESTION.id, "A")
    notebook = notebook_of(output_of(QuestionView(Asked(QUESTION, None))))
    output = question_output(saved(notebook, tmp_path, "week1/lesson.ipynb"))
    assert output["metadata"][MARK]["committed"] is True


def test_outputs_of_any_shape_are_left_or_cleaned_never_raised_on(store, tmp_path):
    odd_outputs = [
        "not an output",
        {"output_type": "display_data", "data": "text", "metadata": {MARK: {}}},
        {"output_type": "display_data", "data": {"text/html": "x", WIDGET_VIEW: "nonsense"},
         "metadata": {MARK: {"view": "question", "id": 7, "committed": False}}},
        {"output_type": "display_data", "data": {"text/html": "y"},
         "metadata": {MARK: {"view": "question", "id": "no-such-question", "committed": False}}},
        {"output_type": "display_data", "data": {"text/plain": "z"}, "metadata": {MARK: "x"}},
    ]
    notebook = {"cells": [{"cell_type": "code", "outputs": odd_outputs}, "not a cell",
                          {"cell_type": "code", "outputs": "none"}],
                "metadata": {"widgets": {STATE: {"state": {"m": "not a model"}}}}}
    before = copy.deepcopy(notebook)
    saved(notebook, tmp_path)
    del before["cells"][0]["outputs"][2]["data"][WIDGET_VIEW]  # ours: it has a text/html
    assert notebook == before


def test_a_file_that_is_not_a_notebook_is_left_alone(tmp_path):
    model = {"type": "file", "format": "text", "content": json.dumps({"cells": []})}
    before = copy.deepcopy(model)
    static_views(model, "notes.txt", SimpleNamespace(root_dir=str(tmp_path)))
    assert model == before


def test_the_server_extension_makes_a_real_save_write_static_views(store, tmp_path):
    manager = FileContentsManager(root_dir=str(tmp_path))
    module = agentlab_magics._jupyter_server_extension_points()[0]["module"]
    assert sys.modules[module]._load_jupyter_server_extension is _load_jupyter_server_extension
    _load_jupyter_server_extension(SimpleNamespace(contents_manager=manager,
                                                   log=logging.getLogger("test")))
    notebook = notebook_of(output_of(Transcript([U, A, R1])),
                           output_of(QuestionView(Asked(QUESTION, None))))
    store.commit(QUESTION.lab, QUESTION.id, "B")
    manager.save({"type": "notebook", "format": "json", "content": notebook}, "lesson.ipynb")
    on_disk = nbformat.read(tmp_path / "lesson.ipynb", as_version=4)
    for cell in on_disk.cells:
        assert set(cell.outputs[0]["data"]) == {"text/html", "text/plain"}
    assert "Your answer" in on_disk.cells[1].outputs[0]["data"]["text/html"]


# -- installing the extension ---------------------------------------------------------------

def test_the_package_installs_the_file_that_enables_the_extension():
    enabling = json.loads(ENABLING.read_text(encoding="utf-8"))
    assert enabling == {"ServerApp": {"jpserver_extensions": {"agentlab_magics": True}}}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data_files = pyproject["tool"]["setuptools"]["data-files"]
    assert data_files["etc/jupyter/jupyter_server_config.d"] == [
        str(ENABLING.relative_to(ROOT))]


def test_this_environments_jupyter_server_loads_the_extension(tmp_path):
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "server", "extension", "list"],
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path)}, capture_output=True, text=True)
    lines = [line for line in (listed.stdout + listed.stderr).splitlines()
             if "agentlab_magics" in line]
    assert any("enabled" in line for line in lines) and any("OK" in line for line in lines), (
        f"agentlab_magics is not enabled in {sys.prefix}/etc/jupyter: `pip install .` puts "
        f"{ENABLING.relative_to(ROOT)} there; an editable install does not (setuptools leaves "
        "data files out of editable installs), so copy it there by hand.")
