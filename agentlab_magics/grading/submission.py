"""What a submission folder may hold before anything of it is read: plain files and folders.

nbgrader runs as the grader: it reads the notebooks and copies every other file of a
submission folder, following symbolic links as it goes, so a link handed in as a file would
bring the grader's view of whatever it names (another student's notebook, the instructor's
files) into the graded copy, the kernel's scratch folder and the feedback page. A submission
holding a link, a device, a pipe or a socket is therefore refused whole, with a sentence.
"""

from __future__ import annotations

import os
import stat


class SubmissionRefused(Exception):
    """A submission holds something other than plain files and folders."""


def strange_entries(folder: str) -> list[str]:
    """Each entry under `folder` (links not followed) that is not a plain file or folder; the
    folder itself, or the student's folder above it, if either is a link."""
    found = [path for path in (os.path.dirname(folder), folder) if os.path.islink(path)]
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(root, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                found.append(os.path.relpath(path, folder))
    return sorted(found)


def require_plain_files(folder: str) -> None:
    """Raise SubmissionRefused, naming what was found, unless `folder` holds only plain files
    and folders."""
    found = strange_entries(folder)
    if found:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise SubmissionRefused(
            f"The submission in {folder} was not graded: it holds {shown}, which is not a "
            "plain file or folder (a symbolic link, a device or a pipe), and the grader never "
            "follows those. Ask the student to hand in the files themselves, then autograde "
            "again.")
