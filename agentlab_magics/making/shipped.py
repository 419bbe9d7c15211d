"""The generated files of the built-in labs, written from the reference: into each lab's
folder in the student package (course/starter_files.py says what each is), its starter, which
the instructor package composes (agentlab_instructor.lab_files), and its visible tests'
reference runs, by checking its reference, as a pack lab's student copy holds them; into its
part in the instructor package, its reference.py (the solution, composed so) and its
held-back tests' runs; and the recording, by playing the four runs.
`agentlab course build` writes them and `--check` (and a test) fails when one is missing,
differs, or belongs to no lab.
"""

from __future__ import annotations

import functools
from pathlib import Path

from agentlab_magics.checking.parting import runs_text
from agentlab_magics.checking.runner import recorded_runs_of
from agentlab_magics.course.catalog import built_in_labs
from agentlab_magics.course.instructor import instructor_module, instructor_part
from agentlab_magics.course.lab_folder import HELD_BACK_RUNS, REFERENCE, REFERENCE_RUNS, STARTER
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
    lab_files = _lab_files()
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


def build_parts() -> list[Path]:
    """Write each built-in lab's generated files into its part in the instructor package (as
    installed from a checkout): reference.py and the held-back tests' runs; the files
    written, none where there is no instructor package."""
    written = []
    for path, text in _parts().items():
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def stale_parts() -> list[Path]:
    """The generated files of the built-in labs' parts in the instructor package that are
    missing or differ from what the reference gives now; none where there is no such
    package."""
    return [path for path, text in _parts().items() if not _holds(path, text)]


def _holds(path: Path, text: str) -> bool:
    """Whether the file at `path` exists and holds exactly `text`."""
    return path.is_file() and path.read_text(encoding="utf-8") == text


@functools.cache
def _parts() -> dict[Path, str]:
    """Each built-in lab's generated files in its instructor part, by path: reference.py (the
    solution the instructor package composes) and its held-back tests' runs; none where there
    is no instructor package."""
    made: dict[Path, str] = {}
    lab_files = _lab_files()
    for lab_id, lab in built_in_labs().items():
        part = instructor_part(lab_id)
        if part is None:
            return {}
        made[part / REFERENCE] = lab_files[lab_id].reference
        made[part / HELD_BACK_RUNS] = runs_text(recorded_runs_of(lab, held_back=True))
    return made


def _lab_files() -> dict:
    """Every built-in lab's files as the instructor package composes them."""
    return instructor_module("lab_files", "Building the starters").all_lab_files()
