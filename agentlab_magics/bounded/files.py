"""Durable JSON files: a reader sees either the previous complete file or the new one."""

import json
import os
from pathlib import Path
from typing import Any

from agentlab_magics.atomic import write_text_atomically


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as sorted, indented JSON to ``path`` in one atomic step."""
    encoded = json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"
    return write_text_atomically(path, encoded)
