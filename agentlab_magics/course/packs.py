"""Where course packs are found, and their labs read: a pack is a folder of lab folders.

Packs are, in this order: the folders `$AGENTLAB_LABS` names (several, separated as PATH is),
then the folder of each package an installed distribution declares in the entry point group
ENTRY_POINTS. A folder that is itself a lab (it holds lab.toml) is a pack of that one lab. A
pack's labs come in the order its pack.toml lists under `labs`, then the rest by name. The
built-in course is BUILT_IN, a pack of the package's own student copies, read the same way
(`read_lab`).
Invariant: a pack's labs are read again whenever one of their files changes, so an author's
edit shows at the next check, and reading them runs none of their code (`lab_folder`).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

from agentlab_magics.course import lab_folder
from agentlab_magics.course.lab_folder import LAB_ID, LabFolderProblem
from agentlab_magics.course.lab_model import Lab
from agentlab_magics.course.starter_files import BUILT_IN

ENV = "AGENTLAB_LABS"
ENTRY_POINTS = "agentlab_magics.labs"
PACK_TOML = "pack.toml"  # a pack's own settings: the order of its labs


def pack_folders() -> list[Path]:
    """Every pack's folder, in the order the module docstring gives."""
    named = [Path(part).expanduser() for part in os.environ.get(ENV, "").split(os.pathsep)
             if part.strip()]
    for folder in named:
        if not folder.is_dir():
            raise LabFolderProblem(f"${ENV} names {folder}, which is not a folder: name the "
                                   "folders that hold your lab folders.")
    return [*named, *_installed_packs()]


@cache
def _installed_packs() -> tuple[Path, ...]:
    """The folders of the packages declared as packs (found once: installs do not change
    under a running process)."""
    found = []
    for point in entry_points(group=ENTRY_POINTS):
        spec = importlib.util.find_spec(point.value)
        if spec is not None and spec.submodule_search_locations:
            found.append(Path(next(iter(spec.submodule_search_locations))))
    return tuple(found)


def lab_folders(pack: Path) -> list[Path]:
    """The lab folders of a pack, those its pack.toml lists first, in its order, then the rest
    by name; the pack itself when it is a lab."""
    if (pack / lab_folder.LAB_TOML).is_file():
        return [pack]
    found = {child.name: child for child in sorted(pack.iterdir())
             if child.is_dir() and (child / lab_folder.LAB_TOML).is_file()}
    listed = _listed(pack, found)
    return [found[name] for name in listed] + [folder for name, folder in found.items()
                                               if name not in listed]


def _listed(pack: Path, found: dict[str, Path]) -> list[str]:
    """The labs pack.toml lists under `labs`, each a lab folder of the pack (else a
    LabFolderProblem naming the file and line); none where there is no pack.toml."""
    if not _order_file(pack):
        return []
    path = pack / PACK_TOML
    text = lab_folder.read_text(path)
    listed = lab_folder.load_toml(path, text).get("labs", [])
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed):
        raise LabFolderProblem(f"{path}: labs must be a list of the pack's lab ids, in the "
                               "order students take them.")
    for name in listed:
        if name not in found:
            raise LabFolderProblem(f"{lab_folder.at_line(path, text, name)}: lists {name!r} "
                                   f"under labs, but {pack} holds no lab folder of that name.")
    return list(dict.fromkeys(listed))


def stamp(folders: list[Path]) -> tuple:
    """What changes when a file of a lab in the packs `folders`, or a pack's order, changes:
    the files and their times."""
    return tuple((str(path), path.stat().st_mtime_ns) for pack in folders
                 for path in [*_order_file(pack), *(path for folder in lab_folders(pack)
                                                   for path in sorted(folder.iterdir())
                                                   if path.is_file())])


def _order_file(pack: Path) -> list[Path]:
    """The pack's pack.toml, where it has one."""
    path = pack / PACK_TOML
    return [path] if path.is_file() else []


def read_lab(folder: Path) -> Lab:
    """The lab a folder holds, its files checked as `lab_folder` says."""
    lab_id = folder.resolve().name
    if not LAB_ID.fullmatch(lab_id):
        raise LabFolderProblem(f"{folder}: {lab_id!r} cannot be a lab id, which is the folder's "
                               "name: use lowercase letters, digits and single dashes, "
                               "starting with a letter (like retry-backoff).")
    spec = lab_folder.read_spec(folder)
    lab_folder.check_files(folder, list(spec.names))
    return Lab(id=lab_id, title=spec.title, lesson=spec.lesson or lab_id, module=spec.module,
               names=list(spec.names), purposes=dict(spec.names),
               tests=f"agentlab_labs.{lab_id.replace('-', '_')}.tests",
               builds_on=list(spec.builds_on), fresh_per_test=spec.fresh_per_test,
               time_limit=spec.time_limit, folder=folder,
               groups=[group.model_dump() for group in spec.groups], files=list(spec.files))


def built_in_labs() -> list[Lab]:
    """The built-in course's labs, in its order: the student copies in BUILT_IN, read as any
    pack's labs are."""
    return [read_lab(folder) for folder in lab_folders(BUILT_IN)]


def pack_labs(folders: list[Path]) -> list[Lab]:
    """The labs of the packs in `folders`, pack by pack; two folders of one id are a
    LabFolderProblem naming both."""
    found: dict[str, Lab] = {}
    for pack in folders:
        for folder in lab_folders(pack):
            lab = read_lab(folder)
            if lab.id in found:
                raise LabFolderProblem(f"{folder}: a second lab called {lab.id!r} (the first is "
                                       f"{found[lab.id].folder}): rename one of the folders.")
            found[lab.id] = lab
    return list(found.values())


def include(folder: Path) -> str:
    """The id of the lab in `folder`, a lab folder this process now finds (put first on
    $AGENTLAB_LABS where no pack holds it yet)."""
    lab = read_lab(folder)
    held = [path for pack in pack_folders() for path in lab_folders(pack)]
    if not any(path.resolve() == folder.resolve() for path in held):
        os.environ[ENV] = os.pathsep.join(
            part for part in (str(folder.resolve()), os.environ.get(ENV, "")) if part)
    return lab.id


def ship_labs(labs: list[Lab], target: Path, runs: Callable[[Lab], str]) -> list[Path]:
    """Write a student's copy of each pack lab of `labs` into `target` (a pack, then, for
    students to put on $AGENTLAB_LABS), with the reference's runs `runs` gives it; returns
    the copies' folders."""
    return [lab_folder.ship(lab.folder, target, runs(lab)) for lab in labs
            if not lab.built_in]
