"""Where the specification lives: the seed documents in ../shared/seeds, read at test time.

The tests take the seed pages' code cells and printed outputs from the seeds themselves,
so the project never carries a second copy of the specification.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(os.environ.get("AGENTLAB_SEEDS", ROOT.parent / "shared" / "seeds"))
PAGE = "000_9cf9b564882f1f4d.txt"
UNIT = "004_c9044dd449066a88.txt"


def seed_lines(name: str) -> list[str]:
    """The seed's lines; a skip (or, under AGENTLAB_REQUIRE_SEEDS=1, a failure) if it is absent."""
    path = SEEDS / name
    if not path.exists():
        message = f"seed {path} not found; set AGENTLAB_SEEDS to the folder holding it"
        if os.environ.get("AGENTLAB_REQUIRE_SEEDS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path.read_text(encoding="utf-8").splitlines()


def page_cell(code_line: int, output_first: str, next_prose: str) -> tuple[str, str]:
    """(code, printed output) of the page's cell whose code begins on line `code_line` (1-based).

    The output is the run of lines from the one starting with `output_first` up to the
    paragraph starting with `next_prose`.
    """
    lines = seed_lines(PAGE)
    start = code_line - 1
    out = next(i for i in range(start, len(lines)) if lines[i].startswith(output_first))
    end = next(i for i in range(out, len(lines)) if lines[i].startswith(next_prose))
    return "\n".join(lines[start:out]).rstrip() + "\n", "\n".join(lines[out:end]).rstrip()
