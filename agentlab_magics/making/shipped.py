"""The generated files of the student package (course/starter_files.py says what each is) and
the one generated file of the instructor's held-back package (its reference runs), written
from the reference: each lab's starter by the instructor package (agentlab_instructor.
lab_files), the recording by playing the four runs, the reference runs by checking each lab's
reference (`reference_runs`). `agentlab course build` writes them and `--check` (and a test)
fails when one is missing, differs, or belongs to no lab.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.heldback import held_back_package
from agentlab_magics.course.instructor import instructor_module
from agentlab_magics.course.starter_files import FOLDER, RECORDING, REFERENCE_RUNS, file_name
from agentlab_magics.making.four_runs_recording import recording
from agentlab_magics.making.reference_runs import recorded_runs


def build(folder: Path = FOLDER) -> list[Path]:
    """Write every lab's starter into `folder` and delete the starter files of labs that no
    longer exist; returns the files written. Needs the instructor package."""
    expected = _expected()
    folder.mkdir(parents=True, exist_ok=True)
    for extra in _present(folder) - expected.keys():
        (folder / extra).unlink()
    written = []
    for name, text in expected.items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def stale(folder: Path = FOLDER) -> list[str]:
    """The starter files of `folder` that are missing, differ from the instructor's, or belong
    to no lab, by file name. Needs the instructor package."""
    expected = _expected()
    differ = [name for name, text in expected.items() if not _holds(folder / name, text)]
    return differ + sorted(_present(folder) - expected.keys())


def _expected() -> dict[str, str]:
    """Every generated file, made from the reference, by file name."""
    lab_files = instructor_module("lab_files", "Building the starters").all_lab_files()
    made = {file_name(lab_id): lab_files[lab_id].starter for lab_id in built_in_labs()}
    return {**made, RECORDING: recording(), REFERENCE_RUNS: recorded_runs()}


def _present(folder: Path) -> set[str]:
    """The generated files in `folder` (every .py and .json file but the package's
    __init__.py)."""
    return {path.name for pattern in ("*.py", "*.json") for path in folder.glob(pattern)
            if path.name != "__init__.py"}


def build_held_back() -> list[Path]:
    """Write the held-back tests' reference runs into the instructor's held-back package (as
    installed from a checkout); the file written, none where there is no such package."""
    made = _held_back_runs()
    if made is None:
        return []
    path, text = made
    path.write_text(text, encoding="utf-8")
    return [path]


def stale_held_back() -> list[Path]:
    """The held-back tests' reference runs file, when it is missing or differs from what the
    reference gives now; nothing where there is no held-back package."""
    made = _held_back_runs()
    if made is None:
        return []
    path, text = made
    return [] if _holds(path, text) else [path]


def _holds(path: Path, text: str) -> bool:
    """Whether the file at `path` exists and holds exactly `text`."""
    return path.is_file() and path.read_text(encoding="utf-8") == text


def _held_back_runs() -> tuple[Path, str] | None:
    """Where the held-back tests' reference runs go and what they are; None where there is
    no instructor's held-back package."""
    package = held_back_package()
    if package is None:
        return None
    folder = Path(str(importlib.resources.files(package)))
    return folder / REFERENCE_RUNS, recorded_runs(held_back=True)
