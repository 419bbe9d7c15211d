"""What %solution shows: a heading, a one-line warning, then the solution's code.

The warning says what the student is about to read (the graded reference) and what opening it
did (the map says "built with help" for the lab from now on, unless it had already passed
without help). Static HTML and text only; the code is escaped.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from agentlab_magics.widgets.assets import stylesheet
from agentlab_magics.widgets.rendering import ThreeWayView

if TYPE_CHECKING:
    from agentlab_magics.course.solutions import Solution

WARNING = ("This is the graded reference solution, and opening it is recorded: from now on "
           "the progress map says \"built with help\" for {lab}, unless you had already passed "
           "its tests without it.")


class SolutionView(ThreeWayView):
    """A lab's solution under its heading and the warning."""

    def __init__(self, solution: Solution) -> None:
        super().__init__({"kind": "solution", "lab": solution.lab, "title": solution.title,
                          "code": solution.code}, static=True)

    def mark(self) -> dict[str, str]:
        """Which view this is and whose solution it shows, which the class report reads."""
        return {"view": "solution", "lab": self.data()["lab"]}

    def heading(self) -> str:
        return f"Solution: {self.data()['title']}"

    def warning(self) -> str:
        return WARNING.format(lab=self.data()["lab"])

    def to_html(self) -> str:
        return ('<div class="al-solution">'
                f"<style>{stylesheet('progress_map.css')}</style>"
                f'<p class="al-solution-title">{escape(self.heading())}</p>'
                f'<p class="al-solution-warning">⚠ {escape(self.warning())}</p>'
                f'<pre class="al-solution-code">{escape(self.data()["code"])}</pre></div>')

    def to_text(self) -> str:
        return f"{self.heading()}\n⚠ {self.warning()}\n\n{self.data()['code']}"
