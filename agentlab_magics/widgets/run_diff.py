"""Two runs side by side, aligned by turn, with what differs marked: `%transcript A --diff B`.

A run's record is cut into turns: a user message is a turn of its own, and an assistant
message starts a turn that holds the tool results after it. Turn n of one run is set beside
turn n of the other and is "same" (the very same messages), "words" (the same shape of
messages, other words, ids or arguments), "shape" (other messages: a result missing, a call
more, a failure), or on one side only. The runs part at their first turn that is not the same.

The diff is made once, in one pass over both records, and drawn as static HTML and as text:
long stretches of same turns fold into one line, and at most DRAWN_TURNS turns are drawn. In
JupyterLab a widget (transcript.js) draws the same rows (view_data), unfolds a stretch on a
click, shows only the turns that differ, finds a word, and goes to where the runs part: up to
HIDDEN_TURNS folded turns travel with it, hidden. Everything shown comes from the records and
is escaped. A bounded LoopResult's chat-completions record is read as the course's messages
(widgets.chat_record).
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from agentlab_magics.lab.rules import same
from agentlab_magics.lab.views import shape, show
from agentlab_magics.widgets.assets import style
from agentlab_magics.widgets.rendering import ThreeWayView
from agentlab_magics.widgets.transcript_data import Judgement, messages_of
from agentlab_magics.widgets.words import plural

DRAWN_TURNS = 300  # turns drawn at most; the rest are counted
HIDDEN_TURNS = 1_000  # folded same turns sent hidden, for the widget to unfold
FOLD = 3           # a stretch of more same turns than this folds into one line
LINE_CAP = 300     # characters of one message's line
STATES = ("same", "words", "shape", "left only", "right only")
MARKS = {"same": "=", "words": "~", "shape": "≠", "left only": "<", "right only": ">"}
LEGEND = ("= the same messages · ~ the same kind, other words · ≠ different messages · "
          "< or > on one side only")
WHAT = {"words": "the same kind of messages, with other words, ids or arguments",
        "shape": "{left} and {right} hold different messages there",
        "left only": "{left} goes on where {right} has ended",
        "right only": "{right} goes on where {left} has ended"}


def turns(messages: list) -> list[list[int]]:
    """The record's turns, as lists of message indices: a user message alone, an assistant
    message with the tool results that follow it (and anything else up to the next turn)."""
    found: list[list[int]] = []
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role in ("user", "assistant") or not found:
            found.append([index])
        else:
            found[-1].append(index)
    return found


def diff_data(left: Any, right: Any, names: tuple[str, str] = ("left", "right")) -> dict:
    """The two runs turn by turn: each turn's state and message indices on both sides, the
    turn they part at (None when they never do) and a sentence saying so."""
    sides = [messages_of(left), messages_of(right)]
    if not all(type(side) is list for side in sides):
        raise TypeError("Give two lists of messages (or lab Requests, or bounded LoopResults) "
                        "to compare.")
    cut = [turns(side) for side in sides]
    rows: list[dict[str, Any]] = []
    for number in range(1, max(map(len, cut)) + 1):
        pair = [found[number - 1] if number <= len(found) else None for found in cut]
        rows.append({"turn": number, "left": pair[0], "right": pair[1],
                     "state": _state(sides, pair)})
    parted: int | None = next((row["turn"] for row in rows if row["state"] != "same"), None)
    return {"names": list(names), "totals": [len(side) for side in sides], "rows": rows,
            "parted": parted, "summary": _summary(names, sides, rows, parted)}


def record_and_request(source: Any) -> list:
    """The request context_for_model computes from the record `source`: the kept messages."""
    judgement = Judgement(source, view="record")
    return [message for message, kept in zip(judgement.messages, judgement.kept) if kept]


def _state(sides: list[list], pair: list[list[int] | None]) -> str:
    left, right = pair
    if right is None:
        return "left only"
    if left is None:
        return "right only"
    chosen = [[side[index] for index in indices] for side, indices in zip(sides, (left, right))]
    if same(chosen[0], chosen[1]):
        return "same"
    return "words" if _structure(chosen[0]) == _structure(chosen[1]) else "shape"


def _structure(messages: list) -> str:
    """The turn's shape without its ids: "A[2] R R", where the shape says "A[c1,c2] R(c1) R(c2)"."""
    tokens = shape(messages).split(" ")
    return " ".join(re.sub(r"\[([^\]]*)\]", lambda ids: f"[{ids.group(1).count(',') + 1}]",
                           re.sub(r"^R\(.*\)$", "R", token)) for token in tokens)


def _summary(names: tuple[str, str], sides: list[list], rows: list[dict],
             parted: int | None) -> str:
    counts = (f"{names[0]}: {plural(len(sides[0]), 'message')}, "
              f"{names[1]}: {plural(len(sides[1]), 'message')}")
    if parted is None:
        return f"The runs are the same, turn for turn ({counts})."
    state = rows[parted - 1]["state"]
    what = WHAT[state].format(left=names[0], right=names[1])
    differing = sum(row["state"] != "same" for row in rows)
    return (f"The runs part at turn {parted:,}: {what} ({counts}; "
            f"{differing:,} of {len(rows):,} turns differ).")


def drawn(data: dict) -> list[dict | tuple[str, list[dict]]]:
    """The rows a rendering draws, in order: long stretches of same turns folded into
    ("same", the rows it hides), and after DRAWN_TURNS rows ("more", the rows left)."""
    out: list[dict | tuple[str, list[dict]]] = []
    rows, shown = data["rows"], 0
    start = 0
    while start < len(rows):
        stop = start
        while stop < len(rows) and rows[stop]["state"] == "same":
            stop += 1
        if stop - start > FOLD:
            out.extend([rows[start], ("same", rows[start + 1:stop - 1]), rows[stop - 1]])
            shown += 2
        else:
            out.extend(rows[start:stop])
            shown += stop - start
        if stop < len(rows):
            if shown >= DRAWN_TURNS:
                out.append(("more", rows[stop:]))
                return out
            out.append(rows[stop])
            shown += 1
        start = stop + 1
    return out


class RunDiff(ThreeWayView):
    """Two runs drawn side by side: a widget in JupyterLab, static HTML in an exported
    notebook, text in a terminal; static=True leaves the widget out."""

    kind = "diff"

    def __init__(self, left: Any, right: Any, names: tuple[str, str] = ("left", "right"),
                 *, static: bool = False) -> None:
        self._sides = [messages_of(left), messages_of(right)]
        self.diff = diff_data(left, right, names)
        super().__init__(None, static=static)

    def data(self) -> dict[str, Any]:
        """What the HTML and the widget draw (view_data)."""
        if self._data is None:
            self._data = view_data(self.diff, self._sides)
        return self._data

    def to_html(self) -> str:
        return style() + diff_fragment(self.data())

    def to_text(self) -> str:
        return diff_text(self.diff, self._sides)


def view_data(data: dict, sides: list[list]) -> dict[str, Any]:
    """The diff as the page draws it, every word made here: the header, then one row per
    drawn turn ({"turn", "mark", "state", "parts", "left", "right"}, a side's lines or None
    where it has no such turn) and a note for each fold ({"note", "unfolds"}, the turns it
    stands for after it, "folded", up to HIDDEN_TURNS in all) or for the turns not drawn."""
    rows: list[dict[str, Any]] = []
    budget = HIDDEN_TURNS
    for row in drawn(data):
        if isinstance(row, dict):
            rows.append(_turn(row, data["parted"], sides))
            continue
        kind, hidden = row
        if kind == "more":
            rows.append({"note": f"… {plural(len(hidden), 'more turn')} not drawn"})
            continue
        sent = hidden if len(hidden) <= budget else []
        budget -= len(sent)
        rows.append({"note": f"… {plural(len(hidden), 'same turn')}", "unfolds": bool(sent)})
        rows.extend({**_turn(turn, data["parted"], sides), "folded": True} for turn in sent)
    left, right = data["names"]
    return {"kind": "diff", "title": f"{left} beside {right}", "names": [left, right],
            "summary": data["summary"], "parted": data["parted"], "legend": LEGEND,
            "rows": rows}


def _turn(row: dict, parted: int | None, sides: list[list]) -> dict[str, Any]:
    return {"turn": row["turn"], "mark": f'{row["turn"]:,} {MARKS[row["state"]]}',
            "state": row["state"].replace(" ", "-"), "parts": row["turn"] == parted,
            "left": _lines(sides[0], row["left"]), "right": _lines(sides[1], row["right"])}


def _lines(messages: list, indices: list[int] | None) -> str | None:
    return None if indices is None else "\n".join(_line(messages, index) for index in indices)


def diff_fragment(view: dict[str, Any]) -> str:
    """The diff as an HTML table, one row per turn, without a stylesheet; the turns a fold
    stands for follow it, hidden."""
    left, right = (escape(name) for name in view["names"])
    parts = ['<div class="al-transcript al-diff al-static">', '<div class="al-head">',
             f'<span class="al-title">{escape(view["title"])}</span></div>',
             f'<p class="al-verdict {"al-ok" if view["parted"] is None else "al-bad"}">'
             f'{escape(view["summary"])}</p>',
             f'<p class="al-legend">{escape(view["legend"])}</p>',
             '<table class="al-diff-table"><thead><tr><th>turn</th>'
             f'<th>{left}</th><th>{right}</th></tr></thead><tbody>']
    for row in view["rows"]:
        if "note" in row:
            parts.append(f'<tr class="al-fold"><td colspan="3">{escape(row["note"])}</td></tr>')
            continue
        classes = f'al-turn al-state-{row["state"]}{" al-parts" * row["parts"]}'
        tag = '<span class="al-tag al-parts-tag">parts here</span>' if row["parts"] else ""
        hidden = " hidden" if row.get("folded") else ""
        parts.append(f'<tr class="{classes}" data-turn="{row["turn"]}"{hidden}>'
                     f'<td class="al-turn-number">{escape(row["mark"])}{tag}</td>'
                     f'{_cell(row["left"])}{_cell(row["right"])}</tr>')
    parts.append("</tbody></table></div>")
    return "".join(parts)


def _cell(lines: str | None) -> str:
    if lines is None:
        return '<td class="al-absent">—</td>'
    return f'<td><pre class="al-text">{escape(lines)}</pre></td>'


def _line(messages: list, index: int) -> str:
    line = f"[{index}] {show([messages[index]])}"
    return line if len(line) <= LINE_CAP else f"{line[:LINE_CAP]}…"


def diff_text(data: dict, sides: list[list]) -> str:
    """The diff as text: the summary, then each drawn turn with its mark and both sides."""
    left, right = data["names"]
    width = max(len(left), len(right))
    lines = [data["summary"], LEGEND]
    for row in drawn(data):
        if isinstance(row, tuple):
            kind, hidden = row
            what = "same turn" if kind == "same" else "more turn"
            lines.append(f"  … {plural(len(hidden), what)}")
            continue
        parts = " ← the runs part here" if row["turn"] == data["parted"] else ""
        lines.append(f"turn {row['turn']:,} {MARKS[row['state']]} {row['state']}{parts}")
        if row["state"] == "same":
            lines.extend(f"  {' ' * width}  {_line(sides[0], i)}" for i in row["left"])
            continue
        for name, messages, indices in ((left, sides[0], row["left"]),
                                        (right, sides[1], row["right"])):
            shown = [_line(messages, i) for i in indices] if indices else ["—"]
            lines.extend(f"  {(name if n == 0 else ''):{width}}  {line}"
                         for n, line in enumerate(shown))
    return "\n".join(lines)
