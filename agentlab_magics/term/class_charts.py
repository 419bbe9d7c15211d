"""The class report's charts: matplotlib bar charts as inline SVG, nothing fetched.

Each chart is drawn from the (label, number) pairs the page shows in the table beside it, so
chart and table cannot disagree. Margins are set from the labels' length rather than measured
(matplotlib's tight layout measures every label: half of a chart's time). Text stays text in
the SVG (svg.fonttype "none": smaller, selectable, drawn in the page's fonts), and every chart
gets ids of its own (svg.hashsalt set per chart), so several SVGs inline in one page never
borrow each other's clip paths.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence

BAR = "#4c72b0"
MARKED = "#2da44e"  # green: a marked bar is a right one (the right option of a question)
WRAP = 42  # characters of a label's line on a horizontal chart


def bar_chart(pairs: Sequence[tuple[str, float]], *, key: str, horizontal: bool = False,
              axis: str = "students", marked: Sequence[str] = ()) -> str:
    """An SVG bar per (label, number) pair, `marked` labels in green (MARKED);
    `key` makes the SVG's ids its own."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    labels = [label for label, _ in pairs]
    values = [value for _, value in pairs]
    colours = [MARKED if label in marked else BAR for label in labels]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": key,
                                "text.parse_math": False, "font.size": 9}):
        if horizontal:
            shown = [_two_lines(label) for label in labels]
            height = 0.7 + 0.5 * max(len(labels), 1)
            figure = Figure(figsize=(6.4, height))
            figure.subplots_adjust(left=0.45, right=0.97, top=1 - 0.1 / height,
                                   bottom=0.55 / height)
            axes = figure.add_subplot()
            axes.barh(range(len(values)), values, color=colours)
            axes.set_yticks(range(len(values)), shown)
            axes.invert_yaxis()
            axes.set_xlabel(axis)
        else:
            longest = max(map(len, labels), default=0)
            width, height = max(3.2, 0.45 * len(labels) + 1.2), 2.4 + 0.05 * longest
            figure = Figure(figsize=(width, height))
            figure.subplots_adjust(left=0.7 / width, right=1 - 0.1 / width, top=1 - 0.1 / height,
                                   bottom=(0.4 + 0.06 * longest) / height)
            axes = figure.add_subplot()
            axes.bar(range(len(values)), values, color=colours)
            axes.set_xticks(range(len(values)), labels, rotation=30 if longest > 4 else 0,
                            ha="right" if longest > 4 else "center")
            axes.set_ylabel(axis)
            axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.spines[["top", "right"]].set_visible(False)
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    return svg[svg.index("<svg"):]


def _two_lines(label: str) -> str:
    """`label` in at most two lines of WRAP characters, cut with an ellipsis if longer."""
    lines = textwrap.wrap(label, WRAP)
    if len(lines) > 2:
        lines = [lines[0], textwrap.shorten(" ".join(lines[1:]), WRAP, placeholder=" …")]
    return "\n".join(lines)
