"""The tutorial docs/write-your-first-lab.md, read as steps a test can follow: each ```shell
block is commands to run, each block titled with a path (```python title="labs/x/tests.py")
a file to write there; the other blocks (```text, an untitled ```toml) are shown, not run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "write-your-first-lab.md"
FENCE = re.compile(r"^(?P<fence>`{3,})(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
                   re.M | re.S)
TITLE = re.compile(r'title="(?P<path>[^"]+)"')


@dataclass(frozen=True)
class Step:
    """Commands to run (`path` None), or a file to write at `path`."""

    text: str
    path: str | None = None


def steps(page: Path = PAGE) -> list[Step]:
    """The page's steps, in the page's order."""
    found = []
    for block in FENCE.finditer(page.read_text(encoding="utf-8")):
        info, body = block["info"].strip(), block["body"]
        title = TITLE.search(info)
        if title:
            found.append(Step(body, title["path"]))
        elif info == "shell":
            found.append(Step(body))
    return found


def script(page_steps: list[Step], before: dict[str, str]) -> str:
    """One bash script doing every step in order (files written by here-documents), with
    `before[marker]` run just before the first step whose text holds `marker`."""
    lines = ["set -euo pipefail"]
    waiting = dict(before)
    for step in page_steps:
        for marker in [marker for marker in waiting if marker in step.text]:
            lines.append(waiting.pop(marker))
        if step.path is None:
            lines.append(step.text)
        else:
            lines += [f"mkdir -p \"$(dirname '{step.path}')\"",
                      f"cat > '{step.path}' <<'TUTORIAL_FILE_END'", step.text.rstrip("\n"),
                      "TUTORIAL_FILE_END"]
    assert not waiting, f"no step holds {list(waiting)}"
    return "\n".join(lines) + "\n"
