"""The generated files of the student package (course/starter_files.py says what each is) and
the one generated file of the instructor's held-back package (its reference runs), written
from the reference: each built-in lab's starter by the instructor package (agentlab_instructor.
lab_files) and its visible tests' reference runs by checking its reference, into the lab's
folder as a pack lab's student copy holds them; the recording by playing the four runs.
`agentlab course build` writes them and `--check` (and a test) fails when one is missing,
differs, or belongs to no lab.
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path
from typing import Any

from agentlab_magics.checking.parting import runs_text
from agentlab_magics.checking.runner import recorded_runs_of
from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.heldback import held_back_package
from agentlab_magics.course.instructor import instructor_module
from agentlab_magics.course.lab_folder import REFERENCE_RUNS, STARTER
from agentlab_magics.course.starter_files import BUILT_IN, GENERATED, RECORDING
from agentlab_magics.making.four_runs_recording import recording


def build(folder: Path = BUILT_IN) -> list[Path]:
    """Write every built-in lab's generated files into its folder in `folder` (and the
    recording beside them), and delete those of labs that no longer exist; returns the files
    written. Needs the instructor package."""
    expected = _expected()
    for extra in _present(folder) - expected.keys():
        (folder / extra).unlink()
    written = []
    for name, text in expected.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def stale(folder: Path = BUILT_IN) -> list[str]:
    """The generated files of `folder` that are missing, differ from what the reference gives
    now, or belong to no lab, by their path in it (`lesson3/starter.py`). Needs the instructor
    package."""
    expected = _expected()
    differ = [name for name, text in expected.items() if not _holds(folder / name, text)]
    return differ + sorted(_present(folder) - expected.keys())


@functools.cache
def _expected() -> dict[str, str]:
    """Every generated file, made from the reference, by its path in the labs' folder (made
    once a process: the reference does not change under it)."""
    lab_files = instructor_module("lab_files", "Building the starters").all_lab_files()
    made: dict[str, str] = {}
    for lab_id, lab in built_in_labs().items():
        made[f"{lab_id}/{STARTER}"] = lab_files[lab_id].starter
        made[f"{lab_id}/{REFERENCE_RUNS}"] = runs_text(recorded_runs_of(lab))
    return {**made, RECORDING: recording()}


def _present(folder: Path) -> set[str]:
    """The generated files in `folder`: each lab folder's, and the recording."""
    found = {f"{path.parent.name}/{path.name}" for name in GENERATED
             for path in folder.glob(f"*/{name}")}
    return found | ({RECORDING} if (folder / RECORDING).is_file() else set())


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


@functools.cache
def _held_back_runs() -> tuple[Path, str] | None:
    """Where the held-back tests' reference runs go and what they are; None where there is
    no instructor's held-back package."""
    package = held_back_package()
    if package is None:
        return None
    folder = Path(str(importlib.resources.files(package)))
    runs: dict[str, Any] = {}
    for lab in built_in_labs().values():
        for name, made in recorded_runs_of(lab, held_back=True).items():
            runs.setdefault(name, made)
    return folder / REFERENCE_RUNS, runs_text(runs)
