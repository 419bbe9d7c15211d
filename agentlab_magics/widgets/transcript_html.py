"""A transcript as static HTML (no JavaScript at all) and as plain text, for where no widget runs.

nbconvert's HTML export and nbgrader feedback show the HTML, a terminal shows the text. Both
draw a transcript_data dict; every string that came from a student, a model or a tool passes
through html.escape before it reaches the page. The static page has no toggle, so it shows
the record and the request at once: rows the request leaves out are struck through.
"""

from __future__ import annotations

from html import escape
from typing import Any

from agentlab_magics.lab.rules import ROLES
from agentlab_magics.lab.views import show
from agentlab_magics.widgets.assets import style
from agentlab_magics.widgets.transcript_data import Judgement, budget_cap, messages_of

STATIC_ROWS = 60    # a longer transcript is drawn in part: its two ends and its flagged rows
ENDS = 20           # rows drawn at each end of a transcript drawn in part
FLAGGED_DRAWN = 200  # flagged rows drawn between the ends, at most
LINE_CAP = 300      # characters of one line of the text rendering


def transcript_html(data: dict[str, Any]) -> str:
    """A self-contained HTML page fragment: the views' stylesheet and the transcript."""
    return transcript_fragment(data, style())


def transcript_fragment(data: dict[str, Any], head: str = "") -> str:
    """The transcript as HTML without a stylesheet (a report embeds several under one)."""
    view = "request" if data["source"] == "request" else "record"
    parts = [f'<div class="al-transcript al-static" data-view="{view}">', head,
             '<div class="al-head">',
             f'<span class="al-title">{view.capitalize()}</span>',
             f'<span class="al-counts">{escape(data["summary"])}</span></div>']
    if data["shape"]:
        parts.append(f'<code class="al-shape">{escape(data["shape"])}</code>')
    if data.get("meter"):
        parts.append(f'<p class="al-meter">{escape(" · ".join(data["meter"]))}</p>')
    if "format_note" in data:
        parts.append(f'<p class="al-note">{escape(data["format_note"])}</p>')
    if "system" in data:
        parts.append(f'<p class="al-note">system: {escape(data["system"])}</p>')
        tools = ", ".join(data["tools"]) or "(none)"
        parts.append(f'<p class="al-note">tools: {escape(tools)}</p>')
    if data["verdict"]:
        parts.append(_verdict(data["verdict"], data["accepted"]))
    if "request_verdict" in data:
        parts.append(_verdict(data["request_verdict"], data["request_accepted"],
                              data["request_shape"]))
    if "record_note" in data:
        parts.append(f'<p class="al-note">{escape(data["record_note"])}</p>')
    if data.get("key"):
        parts.append(key_html(data["key"]))
    if data["counts"].get("left_out"):
        parts.append('<p class="al-legend">Struck through: '
                     f'{escape(data["left_out_label"])}.</p>')
    drawn = drawn_rows(data)
    if data.get("complete", True) and any(isinstance(row, int) for row in drawn):
        parts.append(f'<p class="al-note al-partial">{escape(partial_note(data))}</p>')
    parts.append('<ol class="al-rows">')
    for row in drawn:
        parts.append(_row(row, data["left_out_label"]) if isinstance(row, dict) else
                     f'<li class="al-gap al-note">… {row:,} unflagged message'
                     f'{"s" * (row != 1)} not drawn here: run the cell again to see every '
                     'one.</li>')
    parts.append("</ol>")
    if data.get("complete", True) is False:
        parts.append(f'<p class="al-note al-unjudged">{escape(unjudged_note(data))}</p>')
    parts.append("</div>")
    return "".join(parts)


def key_html(key: dict[str, Any]) -> str:
    """What the marks mean, folded: a swatch and words per kind of row, then the chips (the
    static page has nothing to click, so it says nothing of clicking)."""
    marks = "".join(f'<li><span class="al-swatch {kind}"></span>{escape(words)}</li>'
                    for kind, words in key["marks"])
    chips = f'<p class="al-note">{escape(key["chips"])}</p>' if "chips" in key else ""
    return (f'<details class="al-key"><summary>{escape(key["title"])}</summary>'
            f'<ul class="al-key-list">{marks}</ul>{chips}</details>')


def partial_note(data: dict[str, Any]) -> str:
    """What a copy of a long judged transcript draws, and how to get the live view back."""
    return (f"A saved copy of {data['total']:,} messages: the first and last {ENDS} and every "
            "flagged one are drawn here. Run the cell again, with its kernel, for the live "
            "view: every message, search, and the links between calls and results.")


def unjudged_note(data: dict[str, Any]) -> str:
    """What a copy of a first screen leaves out, and how to see it."""
    rest = data["total"] - len(data["rows"])
    return (f"… and {rest:,} more message{'s' * (rest != 1)}. This copy was saved before the "
            "kernel judged the record, so it holds only the first rows and no verdict: run "
            "the cell again to see every message and what a strict provider would say.")


def drawn_rows(data: dict[str, Any]) -> list[dict[str, Any] | int]:
    """The rows a static rendering draws, with a count standing in for each run it leaves out.

    `data["rows"]` holds every row, or (made from a Judgement, or a first screen) only those
    to draw. Of every row, up to STATIC_ROWS are all drawn; of a longer transcript, the first
    and last ENDS rows and up to FLAGGED_DRAWN flagged rows (a complaint, malformed, left out
    of the request).
    """
    rows, total = data["rows"], data.get("total", len(data["rows"]))
    if len(rows) == total:
        keep = set(drawn_indices(total, [row["index"] for row in rows if _flagged(row)]))
        rows = [row for row in rows if row["index"] in keep]
    drawn: list[dict[str, Any] | int] = []
    last = -1
    for row in rows:
        if row["index"] > last + 1:
            drawn.append(row["index"] - last - 1)
        drawn.append(row)
        last = row["index"]
    if data.get("complete", True) and total > last + 1:
        drawn.append(total - last - 1)
    return drawn


def drawn_indices(total: int, flagged: list[int]) -> list[int]:
    """Which of `total` rows a static rendering draws, given the flagged ones, in order."""
    if total <= STATIC_ROWS:
        return list(range(total))
    middle = [index for index in flagged if ENDS <= index < total - ENDS][:FLAGGED_DRAWN]
    return sorted(set(range(ENDS)) | set(range(total - ENDS, total)) | set(middle))


def static_data(judgement: Judgement) -> dict[str, Any]:
    """What a static rendering of a judged transcript draws: its header and only the rows
    drawn_indices picks, so a long record is never built whole."""
    cap = budget_cap(judgement.total)
    return {**judgement.head(), "rows": [judgement.row(index, cap) for index in
                                         drawn_indices(judgement.total, judgement.flagged())]}


def _flagged(row: dict[str, Any]) -> bool:
    return bool(row.get("complaints") or row.get("problem") or row.get("in_request") is False)


def _verdict(sentence: str, accepted: bool, shape: str | None = None) -> str:
    code = f' <code class="al-shape">{escape(shape)}</code>' if shape is not None else ""
    return f'<p class="al-verdict {"al-ok" if accepted else "al-bad"}">{escape(sentence)}{code}</p>'


def _row(row: dict[str, Any], left_out_label: str) -> str:
    """One message as a list item: its line of tags, its body, its complaints, its JSON."""
    role = row["role"]
    classes = ["al-row", f"al-role-{role if role in ROLES else 'other'}"]
    if row.get("complaints") or row.get("problem"):
        classes.append("al-flagged")
    if row.get("is_error") or row.get("stop_reason") == "error":
        classes.append("al-is-error")
    if row.get("in_request") is False:
        classes.append("al-left-out")
    call_id = f' data-call-id="{escape(row["call_id"])}"' if row.get("call_id") else ""
    parts = [f'<li class="{" ".join(classes)}" data-index="{row["index"]}"{call_id}>',
             '<div class="al-line">',
             f'<span class="al-index">{row.get("number", row["index"])}</span>',
             f'<span class="al-role">{escape(role)}</span>']
    if row.get("tool_name"):
        parts.append(_tag(row["tool_name"]))
    if role == "toolResult":
        where = (f'row {row.get("call_number", row["call_row"])}' if "call_row" in row else
                 "its call is not kept" if row.get("call_not_kept") else "no such call")
        parts.append(_tag(f'answers {row.get("call_id")} · {where}', "al-answers"))
    if row.get("is_error"):
        parts.append(_tag("is_error", "al-error"))
    if row.get("stop_reason"):
        parts.append(_tag(f'stop_reason: {row["stop_reason"]}'))
    if row.get("in_request") is False:
        parts.append(_tag(left_out_label, "al-out"))
    parts.extend(_tag(words, "al-took") for words in row.get("meter", []))
    parts.append('</div><div class="al-body">')
    if row.get("problem"):
        parts.append(f'<div class="al-problem">{escape(row["problem"])}</div>')
    parts.append(text_block_html(row))
    if row.get("error_message"):
        parts.append(f'<pre class="al-error-message">error_message: '
                     f'{escape(row["error_message"])}</pre>')
    if row.get("calls"):
        parts.append('<div class="al-calls">')
        parts.extend(_chip(row["index"], call) for call in row["calls"])
        parts.append("</div>")
    parts.append("</div>")
    if row.get("complaints"):
        parts.append('<ul class="al-complaints">')
        parts.extend(f'<li class="{"" if entry["request"] else "al-soft"}">'
                     f'{escape(said(entry))}{_where(entry)}</li>' for entry in row["complaints"])
        parts.append("</ul>")
    parts.append(f'<details class="al-raw-json"><summary>JSON</summary>'
                 f'<pre class="al-raw">{escape(row["raw"])}</pre></details>')
    if row.get("gap_after"):
        parts.append(f'<div class="al-gap al-note">{escape(row["gap_after"])}</div>')
    parts.append("</li>")
    return "".join(parts)


def said(complaint: dict[str, Any]) -> str:
    """A complaint as drawn: the provider's words, and where the record holds what it
    says is missing."""
    return f'{complaint["text"]} ({complaint["note"]})' if "note" in complaint else \
        complaint["text"]


def _where(complaint: dict[str, Any]) -> str:
    """Which list a complaint is about, when it is not about both."""
    if not complaint["request"]:
        return " (not in the request context_for_model computes)"
    if not complaint["as_is"]:
        return " (only in the request context_for_model computes)"
    return ""


def _tag(text: str, kind: str = "") -> str:
    return f'<span class="al-tag {kind}">{escape(text)}</span>'


def _chip(index: int, call: dict[str, Any]) -> str:
    attributes = f' data-row="{index}"'
    if call["id"]:
        attributes += f' data-call-id="{escape(call["id"])}"'
    if "result_row" in call:
        attributes += f' data-result-row="{call["result_row"]}"'
    answered = (f' → row {call.get("result_number", call["result_row"])}'
                f'{", out of place" * call.get("out_of_place", False)}' if "result_row" in call
                else " → its result is not kept" if call.get("not_kept") else " → no result")
    return (f'<span class="al-chip"{attributes}>'
            f'<span class="al-call-id">{escape(call["id"] or "(no id)")}</span> '
            f'<span class="al-call-name">{escape(call["name"] or "?")}</span>'
            f'<span class="al-call-args"> {escape(call["arguments"])}</span>{answered}</span>')


def text_block_html(part: dict[str, Any]) -> str:
    """A collapsed text: its first lines, the rest in a <details>, and its notice in view."""
    parts = []
    if part.get("text"):
        parts.append(f'<pre class="al-text">{escape(part["text"])}</pre>')
    if part.get("rest"):
        parts.append('<details class="al-rest"><summary>show more</summary>'
                     f'<pre class="al-text">{escape(part["rest"])}</pre></details>')
    if part.get("more"):
        parts.append(f'<div class="al-more">{escape(part["more"])}</div>')
    if part.get("notice"):
        parts.append(f'<pre class="al-notice">{escape(part["notice"])}</pre>')
    return "".join(parts)


def transcript_text(source: Any, data: dict[str, Any], indent: str = "") -> str:
    """The transcript as text: its summary and verdicts, then lab.show's line for each message
    with its complaints under it. `source` is what `data` was made from."""
    lines = [f'{"Request" if data["source"] == "request" else "Record"}: {data["summary"]}']
    if data.get("meter"):
        lines.append(" · ".join(data["meter"]))
    if "format_note" in data:
        lines.append(data["format_note"])
    if data["shape"]:
        lines.append(_clip(f'shape: {data["shape"]}'))
    if data.get("request_shape"):
        lines.append(_clip(f'request shape: {data["request_shape"]}'))
    if data["verdict"]:
        lines.append(data["verdict"])
    if "request_verdict" in data:
        lines.append(data["request_verdict"])
    messages = messages_of(source)
    for row in drawn_rows(data):
        if isinstance(row, int):
            lines.append(f"… {row:,} unflagged message{'s' * (row != 1)} not drawn here")
            continue
        meter = f'  ({" · ".join(row["meter"])})' if row.get("meter") else ""
        number = row.get("number", row["index"])
        lines.append(_clip(f'[{number}] {show([messages[row["index"]]])}') + meter)
        if row.get("problem"):
            lines.append(f'    ! {row["problem"]}')
        lines.extend(f'    ✗ {said(entry)}{_where(entry)}'
                     for entry in row.get("complaints", []))
        if row.get("in_request") is False:
            lines.append(f'    ({data["left_out_label"]})')
        if row.get("gap_after"):
            lines.append(row["gap_after"])
    if data.get("complete", True) is False:
        lines.append(unjudged_note(data))
    return "\n".join(indent + line for line in lines)


def _clip(line: str) -> str:
    return line if len(line) <= LINE_CAP else f"{line[:LINE_CAP]}…"
