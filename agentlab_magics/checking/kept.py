"""What a report keeps of a test's run: texts cut to a size, the record's ends, the last
requests the lab's model was sent; a whole report stays under REPORT_CAP bytes."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from agentlab_magics.checking.protocol.caps import RECORD_EDGE
from agentlab_magics.checking.report import CheckReport, SentRequest
from agentlab_magics.lab.model import ScriptedModel
from agentlab_magics.lab.rules import a_type, validate
from agentlab_magics.lab.views import shape

TEXT_CAP = 2_000          # characters of one message or string in a report
REQUESTS_KEPT = 12        # requests a test's model was sent that a report lists (the last ones)
REQUEST_SHAPE_CAP = 400   # characters of one request's shape, or its refusal, in a report
REPORT_CAP = 1_000_000    # bytes of a whole report as JSON
ITEMS_CAP = 200           # items of one list or dict `plain` keeps


def cap(text: str, limit: int = TEXT_CAP) -> str:
    """`text`, cut to `limit` characters with a note of how many were left out, every
    character one UTF-8 can carry (a lone surrogate, which the student's code may print or
    raise, is shown as its escape)."""
    if len(text) > limit:
        text = f"{text[:limit]} … ({len(text) - limit:,} more characters left out)"
    elif text.isascii():  # the most of a report's texts: nothing to cut, nothing to escape
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def plain(value: Any, depth: int = 0) -> Any:
    """A copy of `value` made of plain JSON data, strings cut, anything else named by its type."""
    kind = type(value)
    if value is None or kind in (bool, int, float):
        return value if kind is not float or math.isfinite(value) else repr(value)
    if kind is str:
        return cap(value)
    if depth > 20:
        return "<nested too deeply>"
    if kind is dict:
        return {cap(k) if type(k) is str else f"<{type(k).__name__} key>": plain(v, depth + 1)
                for k, v in list(value.items())[:ITEMS_CAP]}
    if kind in (list, tuple):
        return [plain(item, depth + 1) for item in list(value)[:ITEMS_CAP]]
    return f"<{kind.__name__} object>"


def kept_record(messages: Any) -> tuple[list | None, int, list[str] | None]:
    """The first and last messages of a run's record, how many were left out between, and,
    when some were, the whole record's complaints about what is kept (whole_complaints)."""
    if type(messages) is not list:
        return None, 0, None
    if len(messages) <= 2 * RECORD_EDGE:
        return plain(messages), 0, None
    return (plain(messages[:RECORD_EDGE] + messages[-RECORD_EDGE:]),
            len(messages) - 2 * RECORD_EDGE, whole_complaints(messages))


def whole_complaints(messages: list) -> list[str]:
    """What a strict provider would say of the whole record, cut to what its kept ends can
    show: the first complaint (the verdict's) and those about the first and last RECORD_EDGE
    messages, each capped. A record is judged whole, never as the shorter list kept of it."""
    said = validate(messages)
    last = len(messages) - RECORD_EDGE
    kept = [text for text in said
            if not RECORD_EDGE <= int(text[len("messages["):text.index("]")]) < last]
    return [cap(text, REQUEST_SHAPE_CAP) for text in dict.fromkeys(said[:1] + kept)]


def sent_requests(model: Any) -> tuple[list[SentRequest] | None, int]:
    """The last REQUESTS_KEPT requests a lab ScriptedModel was sent, each as its number, shape
    and the strict provider's refusal, and how many there were."""
    if type(model) is not ScriptedModel:
        return None, 0
    kept = [SentRequest(number=number, shape=cap(_shape(request.messages), REQUEST_SHAPE_CAP),
                        refused=cap(request.refused, REQUEST_SHAPE_CAP) if request.refused
                        else None)
            for number, request in list(enumerate(model.calls, start=1))[-REQUESTS_KEPT:]]
    return kept, len(model.calls)


def _shape(messages: Any) -> str:
    """The shape of what the code sent the model as its messages (the shape of its `plain`
    copy); what it is, where that is not a list (the provider refuses it, and says so)."""
    if type(messages) not in (list, tuple):
        return f"({a_type(plain(messages))}, not a list)"
    return shape([_read(message, MESSAGE_READ, 1, _read_blocks)
                  for message in list(messages)[:ITEMS_CAP]])


MESSAGE_READ = frozenset({"role", "tool_call_id", "stop_reason", "content"})
BLOCK_READ = frozenset({"type", "id"})


def _read(value: Any, keys: frozenset[str], depth: int,
          content: Callable[[Any], Any] | None = None) -> Any:
    """What `shape` reads of `plain(value, depth)`, made without copying the rest: of a dict,
    the `keys` among the items `plain` keeps, their values as `plain` makes them ("content" by
    `content`); anything else is no message or block to `shape`, and stands as None."""
    if type(value) is not dict:
        return None
    return {key: content(item) if key == "content" and content else plain(item, depth + 1)
            for key, item in list(value.items())[:ITEMS_CAP]
            if type(key) is str and key in keys}


def _read_blocks(content: Any) -> Any:
    """What `shape` reads of a message's `plain` content: each block's type and id."""
    if type(content) not in (list, tuple):
        return None  # `shape` reads blocks of a list alone
    return [_read(block, BLOCK_READ, 3) for block in list(content)[:ITEMS_CAP]]


def within_size(report: CheckReport) -> CheckReport:
    """Drop kept records, largest first, until the report's JSON is under REPORT_CAP bytes."""
    while len(report.model_dump_json()) > REPORT_CAP:
        with_records = [o for o in report.outcomes if o.record]
        if not with_records:
            break
        biggest = max(with_records, key=lambda o: len(json.dumps(o.record)))
        biggest.record_omitted += len(biggest.record or [])
        biggest.record = None
    return report
