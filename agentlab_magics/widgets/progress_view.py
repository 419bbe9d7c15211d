"""The syllabus map: one row per lab with its questions, its tests and its state word.

Rendered as text/html (a table, no JavaScript) and text/plain; every value is escaped.
"""

from __future__ import annotations

import html
from typing import Any

MARKS = {"not started": "·", "in progress": "…", "mastered": "★", "built with help": "☆"}


class ProgressView:
    """The map of `rows` (as notebook.syllabus gives them)."""

    def __init__(self, rows: list[dict[str, Any]]):
        self.rows = rows

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr class='al-state-{html.escape(row['state']).replace(' ', '-')}'>"
            f"<td>{MARKS[row['state']]}</td><td>{html.escape(row['title'])}</td>"
            f"<td>{html.escape(row['questions'])} questions</td>"
            f"<td>{row['tests']} tests passed</td><td>{html.escape(row['state'])}</td></tr>"
            for row in self.rows)
        return ("<table class='al-progress'><thead><tr><th></th><th>lab</th><th>questions</th>"
                f"<th>tests</th><th>state</th></tr></thead><tbody>{body}</tbody></table>")

    def __repr__(self) -> str:
        return "\n".join(f"{MARKS[row['state']]} {row['title']:48} {row['questions']:>8} questions"
                         f"  {row['tests']:>3} tests passed  {row['state']}" for row in self.rows)
