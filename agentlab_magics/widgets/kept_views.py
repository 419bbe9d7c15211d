"""Full static renderings of long transcripts, kept where the saving hook finds them.

A long transcript's widget goes out before its record is judged, so the text/html beside it
is a copy of its first screen only. Once the kernel has judged the record it writes the full
static renderings to views/<widget model id>.json beside the progress store, and the saving
hook (widgets.saving) writes those into the saved notebook instead of the first-screen copy;
the live page is never changed. A kept file is read only by a model id that is a comm id
(32 hex digits), so a notebook's outputs can never name another file. Files older than
KEEP_DAYS are removed whenever one is written.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from agentlab_magics.atomic import write_text_atomically
from agentlab_magics.progress.store import default_path

KEEP_DAYS = 14
MODEL_ID = re.compile(r"[0-9a-f]{32}")


def views_folder(base: Path | None = None) -> Path:
    """views/ beside the progress store; a relative store path is taken from `base` (the
    notebook's folder, the kernel's working directory) when one is given."""
    where = default_path()
    if base is not None and not where.is_absolute():
        where = base / where
    return where.parent / "views"


def keep(model_id: str, html: str, text: str) -> None:
    """Keep the static renderings of the view drawn by widget `model_id`; a store that cannot
    be written only means the saved notebook keeps the first-screen copy."""
    if not MODEL_ID.fullmatch(model_id):
        return
    folder = views_folder()
    try:
        write_text_atomically(folder / f"{model_id}.json",
                              json.dumps({"html": html, "text": text}, ensure_ascii=False))
        _prune(folder)
    except OSError:
        return


def kept(model_id: object, base: Path | None = None) -> dict[str, str] | None:
    """The kept renderings of widget `model_id`, or None when there are none to use."""
    if not isinstance(model_id, str) or not MODEL_ID.fullmatch(model_id):
        return None
    try:
        copy = json.loads((views_folder(base) / f"{model_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (isinstance(copy, dict) and isinstance(copy.get("html"), str)
            and isinstance(copy.get("text"), str)):
        return None
    return {"html": copy["html"], "text": copy["text"]}


def _prune(folder: Path) -> None:
    oldest = time.time() - KEEP_DAYS * 86_400
    for path in folder.glob("*.json"):
        try:
            if path.stat().st_mtime < oldest:
                path.unlink()
        except OSError:
            continue
