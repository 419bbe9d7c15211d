"""What a transcript view draws, computed in Python: one plain JSON-able dict per list of messages.

Every rule check and the record-vs-request comparison happen here, so they are testable without
a browser; the HTML, text and widget renderings only draw this dict. Building it never raises on
a malformed message: what cannot be read becomes a row that says what is wrong with it.
"""

from __future__ import annotations

import bisect
import json
import re
import reprlib
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agentlab_magics.lab.model import Request
from agentlab_magics.lab.rules import shape_problem, validate
from agentlab_magics.lab.views import shape
from agentlab_magics.traces.run import Run
from agentlab_magics.widgets.chat_record import SYSTEM, as_course, is_chat
from agentlab_magics.widgets.run_meter import request_meter, trace_meter, unit_meter
from agentlab_magics.widgets.words import clip, plural

VIEWS = ("record", "request")
BUDGET = 800_000        # characters of message text per transcript, shared out between messages
MAX_CAP = 4_000         # characters of text sent for one message, however short the transcript
MIN_CAP = 80            # characters of text sent for one message, however long the transcript
HEAD_LINES = 40         # first lines of a long text that are sent
PREVIEW_LINES = 6       # of those, the lines shown before "more"
NOTICE_LINES = 2        # a truncation notice is at most this many last lines
NAME_CAP = 80           # characters of an id, a tool name or a stop reason
SHAPE_CAP = 2_000       # characters of a transcript's shape, shown in its header
NOTICE_CAP = 200        # characters of a truncation notice, which is always kept in view
STRING_CAP = 120        # characters of any one string inside the raw JSON of a message
DEPTH_CAP = 12          # nesting shown in the raw JSON of a message
SEARCH_CAP = 1_000_000  # characters of any one string searched inside a call's arguments

LEFT_OUT = "left out of the request by context_for_model"
EMPTY_FAILED_NOTE = ("An empty failed reply is fine on a record, which keeps what happened, but a "
                     "request holding it would be refused; context_for_model leaves it out.")
CHAT_NOTE = ("Read as a chat-completions record (system and tool messages, calls under "
             "tool_calls), drawn as the course's messages; the system message is not judged.")
CHAT_HINT = ("These look like chat-completions messages, the bounded unit's: give %transcript "
             "the LoopResult itself to draw them as a chat-completions record.")

# The key to a transcript's marks: what each kind of row looks like, and how chips work.
MARKS = {"user": ("al-role-user", "user message"),
         "assistant": ("al-role-assistant", "assistant reply"),
         "toolResult": ("al-role-toolResult", "toolResult, indented under its reply"),
         "error": ("al-is-error", "a failed reply or an error result"),
         "flagged": ("al-flagged", "a message the provider would complain about")}
CHIPS = ('A chip is a tool call; "→ row N" is the toolResult that answers it, and that '
         'result\'s "answers" tag points back.')
CHIP_KEYS = "Click either, or reach it with Tab and press Enter, to light up both and go there."

_PREFIX = re.compile(r"messages\[(\d+)\]: (.*)", re.DOTALL)
_UNANSWERED = re.compile(r"toolCall (.*) has no toolResult", re.DOTALL)
_STRAY = re.compile(r"toolResult (.*) has no toolCall before it", re.DOTALL)
_MISPLACED = re.compile(r"toolResult (.*) must directly follow its assistant message, in call "
                        r"order", re.DOTALL)
_REPR = reprlib.Repr()  # a bounded repr of whatever is not a string where one was expected
_REPR.maxstring = _REPR.maxother = STRING_CAP


@dataclass(frozen=True)
class Cut:
    """Where a record kept in part leaves messages out: the first `at` kept messages are the
    record's first, then `omitted` messages are missing, then the rest are its last.

    `complaints` are the strict provider's complaints about the whole record, worded as
    validate words them (messages[i] by the whole record's index), made where the whole
    record was; None when it never was whole anywhere (its ends were all that came back), so
    nothing is judged. A cut record is never judged as the shorter list it is here."""

    at: int
    omitted: int
    complaints: list[str] | None = None

    def number(self, position: int) -> int:
        """A kept message's index in the whole record."""
        return position if position < self.at else position + self.omitted

    def positions(self, kept: int) -> dict[int, int]:
        """{index in the whole record: position here} for the `kept` messages here: a
        complaint about a missing message has no row to sit on."""
        return {self.number(position): position for position in range(kept)}

    def gap(self) -> str:
        """The sentence drawn where the missing messages would be."""
        last = self.at + self.omitted - 1
        return (f"… {plural(self.omitted, 'message')} of the run not kept here: "
                f"messages[{self.at:,}] to messages[{last:,}]")


def transcript_data(source: Any, *, view: str = "record", rule: bool = True,
                    judged: bool = True, cut: Cut | None = None) -> dict[str, Any]:
    """The transcript of `source` (a list of messages, a lab Request, or a bounded LoopResult)
    as one JSON-able dict.

    Every complaint a strict provider would make about the list sent as is sits on the row it
    names; each row also says whether the request context_for_model computes from the list
    would carry it, and what that request would be refused for. A Request is shown as the
    request it was: every message in it, judged as sent. A LoopResult's chat-completions record
    is drawn as the course's messages (widgets.chat_record) and judged as sent: the bounded
    unit sends its whole record, so no context_for_model rule applies to it.

    A check report draws a run's record with less: rule=False leaves out the key to the
    marks and everything the course's own context_for_model rule says (the report shows the
    requests the student's code sent instead), and judged=False leaves out the provider's
    verdict and complaints (for a failure that is not about what a provider accepts). A
    record kept in part comes with its `cut`.
    """
    judgement = Judgement(source, view=view, rule=rule, judged=judged, cut=cut)
    return {**judgement.head(),
            "rows": judgement.rows(0, judgement.total, budget_cap(judgement.total))}


def budget_cap(total: int) -> int:
    """Characters of text one row holds when all `total` rows are sent or drawn at once."""
    return max(MIN_CAP, min(MAX_CAP, BUDGET // max(total, 1)))


def first_screen(source: Any, *, view: str = "record", rows: int) -> dict[str, Any]:
    """What a view needs before anything is judged: the header's words and the first `rows`
    rows as drawn, unjudged, at MAX_CAP. Its cost does not grow with the transcript."""
    check_view(view)
    is_request = isinstance(source, Request)
    written = written_of(source)
    total = len(written) if isinstance(written, list) else 0
    kept = written[:rows] if isinstance(written, list) else []
    shown = as_course(kept) if from_chat(source, written) else kept
    return {**_kind(view, is_request), "total": total, "summary": plural(total, "message"),
            "shape": "", "verdict": "", "counts": {},
            "rows": [message_row(index, message, original) for index, (message, original)
                     in enumerate(zip(shown, kept))]}


def message_row(index: int, message: Any, written: Any = None) -> dict[str, Any]:
    """Message `index` as a row is drawn before anything is judged: its own problem only."""
    return _row(index, message, shape_problem(message), MAX_CAP, written)


def check_view(view: str) -> None:
    if view not in VIEWS:
        raise ValueError(f"view must be 'record' or 'request', got {view!r}")


def _kind(view: str, is_request: bool) -> dict[str, Any]:
    return {"kind": "transcript", "view": "request" if is_request else view,
            "source": "request" if is_request else "record", "left_out_label": LEFT_OUT}


class Judgement:
    """A transcript judged once: every complaint, which rows a request keeps, which result
    answers which call. The header and any run of rows are drawn from it on demand, so a view
    never builds rows nobody looks at.

    What a run cost goes beside it: `notes` are a row's tags (the seconds a call took, its
    tokens or cents) and `meter` the header's totals and limits; a LoopResult brings its own
    (widgets.run_meter). A record kept in part is judged by its `cut`'s complaints, made of
    the whole record, and each row says its index in the whole record."""

    def __init__(self, source: Any, *, view: str = "record", rule: bool = True,
                 judged: bool = True, notes: dict[int, list[str]] | None = None,
                 meter: list[str] | None = None, cut: Cut | None = None) -> None:
        check_view(view)
        self.source = source
        self.is_request = isinstance(source, Request)
        self.written = written_of(source)
        self.chat = from_chat(source, self.written)
        self.messages = as_course(self.written) if self.chat else self.written
        if is_loop_result(source) and notes is None and meter is None:
            meter, notes = unit_meter(source)
        elif isinstance(source, Run) and notes is None and meter is None:
            meter, notes = trace_meter(source)
        elif self.is_request and meter is None:
            meter = request_meter(source)
        self.notes, self.meter = notes or {}, meter or []
        self.view, self.rule, self.cut = view, rule and not self.chat, cut
        self.alone = rule  # drawn on its own, not as a check report's panel
        self.judged = judged and (cut is None or cut.complaints is not None)
        self._head: dict[str, Any] | None = None
        if not isinstance(self.messages, list):
            self.total = 0
            return
        messages = self.messages
        self.total = len(messages)
        self.problems = [_problem(message, True) for message in messages] if self.chat \
            else list(map(shape_problem, messages))
        self.call_rows, self.result_rows, self.tally, empty_failed = _links(messages)
        self.kept = [True] * self.total
        if self.rule and not self.is_request:
            for index in empty_failed:
                self.kept[index] = self.problems[index] is not None
        self.request_rows = [index for index, keep in enumerate(self.kept) if keep]
        self.first: str | None = None  # the first complaint about the list sent as is
        if not self.judged:
            self.as_is: dict[int, list[str]] = {}
        elif cut is not None and cut.complaints is not None:
            self.as_is = _placed(cut.complaints, cut.positions(self.total))
            self.first = cut.complaints[0] if cut.complaints else None
        else:
            self.as_is = self._sent_as_is(messages)
            self.first = f"messages[{min(self.as_is)}]: {self.as_is[min(self.as_is)][0]}" \
                if self.as_is else None
        # a request carries every row of a record that has no empty failed reply: as it is
        same = cut is None and len(self.request_rows) == self.total
        self.in_request = self.as_is if self.is_request or not (self.rule and self.judged) \
            or same else _placed(validate(
                [messages[index] for index in self.request_rows],
                problems=[self.problems[index] for index in self.request_rows]),
                dict(enumerate(self.request_rows)))

    def _sent_as_is(self, messages: list) -> dict[int, list[str]]:
        """The strict provider's complaints about the record sent as it is, by row; a chat
        record's system messages are no part of what it judges."""
        if not self.chat:
            return _placed(validate(messages, problems=self.problems), _Rows(self.total))
        judged_rows = [index for index, message in enumerate(messages)
                       if not _is_system(message)]
        said = validate([messages[index] for index in judged_rows],
                        problems=[self.problems[index] for index in judged_rows])
        return _placed(said, dict(enumerate(judged_rows)))

    def head(self) -> dict[str, Any]:
        """The transcript's header: counts, shapes and verdicts, everything but the rows;
        made once (a shape is a pass over the whole record), a fresh dict each time."""
        if self._head is None:
            self._head = self._made_head()
        return dict(self._head)

    def _made_head(self) -> dict[str, Any]:
        data = _kind(self.view, self.is_request)
        if not isinstance(self.messages, list):
            problem = validate(self.messages)[0]
            return {**data, "problem": problem, "verdict": f"Nothing to draw: {problem}.",
                    "accepted": False, "shape": "", "counts": _counts([], {}, [], {}),
                    "summary": "", "total": 0}
        messages, as_is = self.messages, self.as_is
        counts = _counts(self.problems, as_is, self.kept, self.tally)
        data.update(total=self.total, shape=_shape(messages, self.chat),
                    counts=counts, summary=_summary(counts), accepted=self.first is None,
                    verdict=_verdict(self.is_request, self.first) if self.judged else "")
        if self.chat or is_chat(messages):
            data["format_note"] = CHAT_NOTE if self.chat else CHAT_HINT
        if self.meter:
            data["meter"] = self.meter
        if self.alone and messages:
            data["key"] = _key(counts, self.tally["errors"] > 0)
        if not self.is_request and self.rule and not all(self.kept):
            # The request differs from the record only where the record holds a failed reply
            # (lesson 5's idea): only then is it drawn, so earlier lessons never meet it.
            request = [messages[index] for index in self.request_rows]
            data["request_shape"] = _shape(request, False)
            data["request_accepted"] = not self.in_request
            data["request_verdict"] = _request_verdict(len(request), self.total,
                                                       self.in_request)
            data["record_note"] = EMPTY_FAILED_NOTE
        elif self.is_request:
            source = self.source
            data["system"] = clip(source.system if isinstance(source.system, str)
                                   else _REPR.repr(source.system), MAX_CAP)
            tools = source.tools if isinstance(source.tools, list) else []
            data["tools"] = [clip(str(tool.get("name")), NAME_CAP) if isinstance(tool, dict)
                             else "?" for tool in tools]
        return data

    def rows(self, start: int, stop: int, cap: int = MAX_CAP) -> list[dict[str, Any]]:
        """Rows start..stop-1 as drawn, each string within `cap` characters."""
        return [self.row(index, cap) for index in range(max(start, 0), min(stop, self.total))]

    def row(self, index: int, cap: int = MAX_CAP) -> dict[str, Any]:
        """Row `index`: the message as drawn, its complaints, its links, its place in the
        request."""
        row = _row(index, self.messages[index], self.problems[index], cap,
                   self.written[index])
        if index in self.notes:
            row["meter"] = self.notes[index]
        said = self.as_is.get(index, [])
        if self.cut is not None:
            self._place_in_whole(row)
        answered = self.call_rows.get(index)
        if "call_id" in row and answered is not None and answered[0] == row["call_id"]:
            row["call_row"] = answered[1]
            self._number(row, "call_row", "call_number")
        elif row["role"] == "toolResult" and self._cut_away(_STRAY, index, row.get("call_id")):
            row["call_not_kept"] = True
        for call in row.get("calls", []):
            result = self.result_rows.get((index, call["id"]))
            if result is not None:
                call["result_row"] = result
                self._number(call, "result_row", "result_number")
                if self._out_of_place(index, call["id"], result):
                    call["out_of_place"] = True
            elif self._cut_away(_UNANSWERED, index, call["id"]):
                call["not_kept"] = True
        if not self.kept[index]:
            row["in_request"] = False
        complaints = _complaints(said, self.in_request.get(index, []), self.problems[index])
        for entry in complaints:
            self._locate(index, entry)
        if complaints:
            row["complaints"] = complaints
        return row

    def _place_in_whole(self, row: dict[str, Any]) -> None:
        """A cut record's row: its index in the whole record, and the gap after the last of
        the record's first messages."""
        assert self.cut is not None
        index = row["index"]
        if self.cut.number(index) != index:
            row["number"] = self.cut.number(index)
        if index == self.cut.at - 1:
            row["gap_after"] = self.cut.gap()

    def _number(self, holder: dict[str, Any], key: str, label: str) -> None:
        """Beside a link to a row of a cut record, that row's index in the whole record."""
        if self.cut is not None and self.cut.number(holder[key]) != holder[key]:
            holder[label] = self.cut.number(holder[key])

    def _cut_away(self, missing: re.Pattern[str], index: int, call_id: str | None) -> bool:
        """Whether, in a cut record, the other end of row `index`'s link for `call_id`
        (nothing here answers it) may lie in the messages not kept: a call's result before
        the gap, a result's call after it, and the whole record's judgement does not say it
        is `missing` (a record never judged whole cannot say, so it is not called missing)."""
        if self.cut is None or call_id is None:
            return False
        is_call = missing is _UNANSWERED
        if (index < self.cut.at) != is_call:
            return False
        return not any((match := missing.fullmatch(text)) and match.group(1) == call_id
                       for text in self.as_is.get(index, []))

    def _out_of_place(self, index: int, call_id: str | None, result: int) -> bool:
        """Whether call `call_id` of row `index` has its result, at row `result`, somewhere
        other than where the provider looks for it: the call is said to have none, or the
        result is said to be out of place."""
        return any((match := pattern.fullmatch(text)) is not None and match.group(1) == call_id
                   for pattern, row in ((_UNANSWERED, index), (_MISPLACED, result))
                   for text in self.as_is.get(row, []))

    def _locate(self, index: int, entry: dict[str, Any]) -> None:
        """A complaint that a call has no toolResult, where the record does hold one (out of
        order, or after something else), says where it is: the sentence agrees with the
        call's chip, which points at it."""
        match = _UNANSWERED.fullmatch(entry["text"])
        result = self.result_rows.get((index, match.group(1))) if match else None
        if result is not None:
            number = result if self.cut is None else self.cut.number(result)
            entry["note"] = (f"its toolResult is at row {number:,}; it must come right after "
                             "this message, in call order")

    def search(self, query: str) -> list[int]:
        """The rows whose message holds `query` (lower case) anywhere in its whole text, or
        whose problem or complaints do: what a row draws is clipped, what is searched is not."""
        return [index for index in range(self.total) if query in self._haystack(index)]

    def _haystack(self, index: int) -> str:
        words = [self.problems[index] or "", *self.as_is.get(index, []),
                 *self.in_request.get(index, []), searchable(self.messages[index])]
        return "\n".join(words).lower()

    def flagged(self) -> list[int]:
        """The rows with something to say: a complaint, a malformed message, left out."""
        return [index for index in range(self.total)
                if index in self.as_is or index in self.in_request or self.problems[index]
                or not self.kept[index]]


def searchable(message: Any) -> str:
    """Every word of a message a student could look for: its role, texts, call ids, names and
    arguments, result ids, stop reason and error, whole; anything odd by its bounded repr."""
    if not isinstance(message, dict):
        return _REPR.repr(message)
    words = [_word(message.get(key)) for key in
             ("role", "tool_call_id", "tool_name", "stop_reason", "error_message")]
    content = message.get("content")
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, dict):
            words += [_word(block.get(key)) for key in ("text", "id", "name")]
            if "arguments" in block:
                words.append(json.dumps(_clipped(block["arguments"], SEARCH_CAP),
                                        ensure_ascii=False))
        else:
            words.append(_word(block))
    return "\n".join(word for word in words if word)


def _word(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else _REPR.repr(value)


def written_of(source: Any) -> Any:
    """The messages a source holds, as written: a lab Request's, a LoopResult's or a trace's
    run's own, or the source itself."""
    return source.messages if isinstance(source, (Request, Run)) or is_loop_result(source) \
        else source


def messages_of(source: Any) -> Any:
    """The messages a source holds as the course's messages: a LoopResult's chat-completions
    record read one for one (widgets.chat_record), any other as written. A list is never read
    as chat-completions: in a course record, a "system" or "tool" message is a slip to flag."""
    written = written_of(source)
    return as_course(written) if from_chat(source, written) else written


def from_chat(source: Any, written: Any) -> bool:
    """Whether the messages `written` that `source` holds are read from chat-completions."""
    return is_loop_result(source) and is_chat(written)


def is_loop_result(source: Any) -> bool:
    """Whether `source` is a bounded unit's LoopResult; the unit is looked up, never
    imported, since no LoopResult exists where it is not loaded."""
    loop = sys.modules.get("agentlab_magics.bounded.loop")
    return loop is not None and isinstance(source, loop.LoopResult)


def _is_system(message: Any) -> bool:
    return type(message) is dict and message.get("role") == SYSTEM


def _problem(message: Any, chat: bool) -> str | None:
    """A message's shape problem; a chat record's system message needs only its text."""
    if chat and _is_system(message):
        return None if type(message.get("content")) is str else "system content must be a string"
    return shape_problem(message)


def _shape(messages: list, chat: bool, cap: int = SHAPE_CAP) -> str:
    """The record's shape (a chat record's system message is "S"), its first `cap` characters
    at most, cut after a message, then how many messages are left: made no further than it
    is shown, however long the record."""
    tokens: list[str] = []
    length = -1
    for index, message in enumerate(messages):
        token = "S" if chat and _is_system(message) else shape([message])
        length += len(token) + 1
        if length > cap:
            return f"{' '.join(tokens)} … (+{len(messages) - index:,} more messages)"
        tokens.append(token)
    return " ".join(tokens)


class _Rows(Mapping[int, int]):
    """Each index of a judged list that is the whole record is its own row."""

    def __init__(self, total: int) -> None:
        self.total = total

    def __getitem__(self, index: int) -> int:
        if 0 <= index < self.total:
            return index
        raise KeyError(index)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.total))

    def __len__(self) -> int:
        return self.total


def _placed(complaints: list[str], rows: Mapping[int, int]) -> dict[int, list[str]]:
    """Complaints by the row they name; `rows` maps an index in the judged list to its row,
    and a complaint about a message with no row here is left out."""
    placed: dict[int, list[str]] = {}
    for complaint in complaints:
        match = _PREFIX.fullmatch(complaint)
        assert match is not None, "validate names the message each complaint is about"
        row = rows.get(int(match.group(1)))
        if row is not None:
            placed.setdefault(row, []).append(match.group(2))
    return placed


def _complaints(as_is: list[str], in_request: list[str],
                problem: str | None) -> list[dict[str, Any]]:
    """One entry per sentence: made of the list sent as is, of the computed request, or both.

    The complaint that only repeats a malformed message's shape problem is left to the row's
    own sentence about it.
    """
    return [{"text": text, "as_is": text in as_is, "request": text in in_request}
            for text in dict.fromkeys(as_is + in_request) if text != problem]


def _verdict(is_request: bool, first: str | None) -> str:
    """The verdict on the list sent as is, from its first complaint as validate says it."""
    if first is None:
        return ("A strict provider accepts this request." if is_request else
                "Sent as is, a strict provider would accept this list.")
    return (f"A strict provider refuses this request: {first}" if is_request else
            f"Sent as is, a strict provider would refuse this list: {first}")


def _request_verdict(size: int, total: int, in_request: dict[int, list[str]]) -> str:
    computed = (f"The request context_for_model computes from it ({size:,} of {total:,} "
                "messages)")
    if not in_request:
        return f"{computed} would be accepted."
    row = min(in_request)
    return f"{computed} would still be refused, for row {row}: {in_request[row][0]}"


def _row(index: int, message: Any, problem: str | None, cap: int,
         written: Any = None) -> dict[str, Any]:
    """One message as the renderers draw it: only what it holds, every string within `cap`;
    its JSON is the message as `written`, where it was read from another format."""
    row: dict[str, Any] = {"index": index,
                           "raw": clip(_raw(message if written is None else written), cap)}
    if problem:
        row["problem"] = (f"This message {problem}." if problem.startswith("is ") else
                          f"This message cannot be read: {problem}.")
    if not isinstance(message, dict):
        row["role"] = "?"
        row.update(collapse(_REPR.repr(message), cap))
        return row
    role = message.get("role")
    row["role"] = clip(role if isinstance(role, str) else _REPR.repr(role), NAME_CAP)
    content = message.get("content")
    blocks = [block for block in content if isinstance(block, dict)] \
        if isinstance(content, list) else []
    if role == "assistant":
        words = "\n".join(block["text"] for block in blocks
                          if block.get("type") == "text" and isinstance(block.get("text"), str))
        row.update(collapse(words, cap))
        calls = [block for block in blocks if block.get("type") == "toolCall"]
        if calls:
            share = max(MIN_CAP, cap // len(calls))
            row["calls"] = [_call(block, share) for block in calls]
    else:
        row.update(collapse(content if isinstance(content, str) else _REPR.repr(content), cap))
    if role == "toolResult":
        row["call_id"] = _name(message.get("tool_call_id"))
        row["tool_name"] = _name(message.get("tool_name"))
    if message.get("is_error"):
        row["is_error"] = True
    for key in ("stop_reason", "error_message"):
        if message.get(key) is not None:
            row[key] = clip(str(message[key]), NAME_CAP if key == "stop_reason" else cap)
    return row


def _call(block: dict, cap: int) -> dict[str, Any]:
    arguments = json.dumps(_clipped(block.get("arguments"), cap), ensure_ascii=False)
    return {"id": _name(block.get("id")), "name": _name(block.get("name")),
            "arguments": clip(arguments, cap)}


def _name(value: Any) -> str | None:
    """An id or a name as drawn: None when it is missing or empty."""
    if value is None or value == "":
        return None
    return clip(value if isinstance(value, str) else _REPR.repr(value), NAME_CAP)


def _links(messages: list) -> tuple[dict[int, tuple[str, int]], dict[tuple[int, str], int],
                                   dict[str, int], list[int]]:
    """Which call each result answers and which result answers each call, by call id as drawn;
    and, found on the way, the messages of each role, the calls and the failures (`_counts`),
    and the empty failed replies.

    A result answers the nearest call with its id before it, or failing that the first after
    it (a jumbled record); a call's result is the first result that answers it. Returns
    ({result row: (call id, call row)}, {(call row, call id): result row}, the tally, the rows
    of the empty failed replies).

    A request leaves out exactly the empty failed replies (a failed assistant reply with no
    content: the record keeps it, a request does not), keeping everything else in order; that
    is the transcript's own statement of the rule context_for_model follows (a malformed one
    cannot be judged, so it would go out as is: `Judgement.kept`).
    """
    call_rows: dict[str, int | list[int]] = {}  # an id's row, or its rows where it has several
    results: list[tuple[int, str]] = []
    empty_failed: list[int] = []
    users = assistants = tool_results = calls = errors = 0
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        failed = message.get("stop_reason") == "error"
        if (failed or message.get("is_error")) and type(message) is dict:
            errors += 1  # drawn as a failure (a dict of another type is drawn as a stranger)
        role = message.get("role")
        if role == "assistant":
            assistants += 1
            content = message.get("content")
            if failed and not content:
                empty_failed.append(index)
            for block in content if isinstance(content, list) else ():
                if not (isinstance(block, dict) and block.get("type") == "toolCall"):
                    continue
                calls += 1
                call_id = _drawn_id(block.get("id"))
                if call_id is None:
                    continue
                held = call_rows.setdefault(call_id, index)
                if held != index:
                    call_rows[call_id] = [*held, index] if isinstance(held, list) \
                        else [held, index]
        elif role == "toolResult":
            tool_results += 1
            call_id = _drawn_id(message.get("tool_call_id"))
            if call_id is not None:
                results.append((index, call_id))
        elif role == "user":
            users += 1
    answers: dict[int, tuple[str, int]] = {}
    answered: dict[tuple[int, str], int] = {}
    for index, call_id in results:
        candidates = call_rows.get(call_id)
        if candidates is None:
            continue
        if isinstance(candidates, list):
            before = bisect.bisect_left(candidates, index)
            call_row = candidates[before - 1] if before else candidates[0]
        else:
            call_row = candidates
        answers[index] = (call_id, call_row)
        answered.setdefault((call_row, call_id), index)
    tally = {"user": users, "assistant": assistants, "toolResult": tool_results, "calls": calls,
             "errors": errors}
    return answers, answered, tally, empty_failed


def _drawn_id(value: Any) -> str | None:
    """`_name` of an id, at once for the usual one: a short string."""
    return value if type(value) is str and 0 < len(value) <= NAME_CAP else _name(value)


def collapse(text: str, cap: int) -> dict[str, str]:
    """`text` as sent to a view: whole when short; else its first lines, a sentence saying how
    much is left out, and its truncation notice (its last lines, when they read like one).

    The keys are text (shown at once), rest (shown on asking), more and notice; a key is
    absent when it would be empty. Text and rest together hold at most `cap` characters.
    """
    if len(text) <= cap and text.count("\n") < PREVIEW_LINES:
        return {"text": text} if text else {}
    body, notice = _split_notice(text)
    notice = clip(notice, NOTICE_CAP)
    head = body[:min(_line_end(body, HEAD_LINES), cap)]
    preview_end = _line_end(head, PREVIEW_LINES)
    parts = {"text": head[:preview_end], "rest": head[preview_end:], "notice": notice,
             "more": _more(body, head)}
    return {key: value for key, value in parts.items() if value}


def _split_notice(text: str) -> tuple[str, str]:
    """(body, notice): the notice is the last lines that start with "[" or report an exit code."""
    body = text.rstrip("\n")
    lines: list[str] = []
    while len(lines) < NOTICE_LINES:
        cut = body.rfind("\n")
        last = body[cut + 1:]
        if not last.startswith(("[", "Command exited with code")):
            break
        lines.insert(0, last)
        body = body[:max(cut, 0)]
    return (body, "\n".join(lines)) if lines else (text, "")


def _line_end(text: str, lines: int) -> int:
    """Where the first `lines` lines of `text` end."""
    end = 0
    for _ in range(lines):
        newline = text.find("\n", end)
        if newline < 0:
            return len(text)
        end = newline + 1
    return end


def _more(body: str, head: str) -> str:
    """How much of `body` the view does not hold, in lines when it was cut at a line's end."""
    if len(head) == len(body):
        return ""
    if head.endswith("\n"):
        hidden = body.count("\n", len(head)) + (not body.endswith("\n"))
        return f"… {hidden:,} more line{'s' * (hidden != 1)} not shown"
    return f"… {len(body) - len(head):,} more characters not shown"


def _raw(message: Any) -> str:
    """The message as JSON, each long string shortened, so its shape is readable at a glance."""
    return json.dumps(_clipped(message, STRING_CAP), ensure_ascii=False)


def _clipped(value: Any, cap: int, depth: int = 0) -> Any:
    """A JSON-able copy of `value`: strings at most `cap` characters, nesting bounded."""
    if isinstance(value, str):
        return clip(value, cap)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= DEPTH_CAP:
        return "…"
    if isinstance(value, dict):
        return {clip(str(key), NAME_CAP): _clipped(item, cap, depth + 1)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clipped(item, cap, depth + 1) for item in value]
    return _REPR.repr(value)


def _counts(problems: list, as_is: dict[int, list[str]], kept: list[bool],
            tally: dict[str, int]) -> dict[str, int]:
    """The header's counts: `tally` is what `_links` counted of the messages."""
    return {
        "messages": len(problems),
        "user": tally.get("user", 0),
        "assistant": tally.get("assistant", 0),
        "toolResult": tally.get("toolResult", 0),
        "calls": tally.get("calls", 0),
        "malformed": len(problems) - problems.count(None),
        "complaints": sum(len(texts) for texts in as_is.values()),
        "left_out": kept.count(False),
    }


def _key(counts: dict[str, int], errors: bool) -> dict[str, Any]:
    """The key to the marks this transcript holds, and no others: a lesson's transcript never
    explains a mark of a later lesson's (a failed reply) it does not show."""
    held = {"user": counts["user"], "assistant": counts["assistant"],
            "toolResult": counts["toolResult"], "error": errors,
            "flagged": counts["complaints"] or counts["malformed"]}
    key: dict[str, Any] = {"title": "What the marks mean",
                           "marks": [list(MARKS[mark]) for mark, shown in held.items() if shown]}
    if counts["calls"]:
        key.update(chips=CHIPS, keys=CHIP_KEYS)
    return key


def _summary(counts: dict[str, int]) -> str:
    """The counts in words: "4 messages · 2 tool calls · 1 complaint · 1 left out of the
    request". The calls counted are the tool calls the replies hold; a report counts the
    requests sent to the model as "model calls"."""
    words = [plural(counts["messages"], "message"), plural(counts["calls"], "tool call")]
    if counts["complaints"]:
        words.append(plural(counts["complaints"], "complaint"))
    if counts["malformed"]:
        words.append(f"{counts['malformed']:,} malformed")
    if counts["left_out"]:
        words.append(f"{counts['left_out']:,} left out of the request")
    return " · ".join(words)
