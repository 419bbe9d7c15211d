"""What a refused request says was wrong, read off the strict provider's words and the shape of
the request it refused.

The provider names the first message it cannot read ("messages[5]: toolCall c3 has no
toolResult"); the shape ("U A[c1,c2] R(c2) R(c1)") says what stood there instead. A cause names
what the shape shows (results out of order, a result naming another id, no label on a failed
reply) only where the shape shows it; else it is the lessons' fix for the provider's words, else
the provider's words themselves.
"""

from __future__ import annotations

import re
from itertools import takewhile
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for types only: report.py imports diagnosis, which imports this module
    from agentlab_magics.checking.report import SentRequest

COMPLAINT_AT = re.compile(r"^400 invalid_request: (?:messages\[\d+\]: )?")
# What to change for the strict provider's commonest refusals, in the lessons' own words.
FIXES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"toolCall (c\d+) has no toolResult"),
     r"call \1 never gets a toolResult: append a result for every call of a reply, right after "
     "the reply (a call to a tool that fails or does not exist gets one too)"),
    (re.compile(r"user content must be a string"),
     "user_message makes a message the provider refuses (a user's content must be the plain "
     "string they typed): fix user_message first"),
    (re.compile(r"toolResult (c\d+) has no toolCall before it"),
     r"a request holds the result of call \1 but not the call: send the whole record"),
    (re.compile(r"assistant message has empty content"),
     "a failed reply (empty content) is sent back to the model: leave failed replies out of "
     "the request"),
]
# The provider's refusal of a call left unanswered: the message's index and the call's id.
UNANSWERED = re.compile(r"messages\[(\d+)\]: toolCall (c\d+) has no toolResult")
# The provider's refusal of a reply with no content: the message's index.
EMPTY = re.compile(r"messages\[(\d+)\]: assistant message has empty content")
# The call ids of a reply's token in a shape: "A[c1,c2]" or "A[c1,c2](error)".
REPLY_CALLS = re.compile(r"^A\[(.*)\]")


def first_refusal(requests: list[SentRequest] | None) -> str | None:
    """The first refusal among the requests kept, as a cause: what the request's shape shows
    stood where the provider looked, else what to change where the lessons say it, else the
    provider's own words."""
    for request in requests or []:
        if request.refused:
            complaint = COMPLAINT_AT.sub("", request.refused)
            return (_shown(request.refused, request.shape.split()) or _fix_of(complaint)
                    or f"the provider refused a request: {complaint}")
    return None


def _fix_of(text: str) -> str:
    for pattern, fix in FIXES:
        match = pattern.search(text)
        if match:
            return match.expand(fix)
    return ""


def _shown(refused: str, tokens: list[str]) -> str:
    """What the shape shows of the refused message's fault ("" where it shows nothing more
    than the provider said, or the shape kept is too short to say)."""
    unanswered = UNANSWERED.search(refused)
    if unanswered and int(unanswered[1]) < len(tokens):
        return _unanswered(int(unanswered[1]), unanswered[2], tokens)
    empty = EMPTY.search(refused)
    if empty and int(empty[1]) < len(tokens) and tokens[int(empty[1])] == "A":
        return ("a reply with empty content and no stop_reason \"error\" is sent back to the "
                "model: error_message labels a failed reply stop_reason \"error\", and the "
                "request leaves the replies so labelled out")
    return ""


def _unanswered(index: int, call: str, tokens: list[str]) -> str:
    """For call `call` of the reply at `index`, found unanswered: what stands where its result
    belongs. Results out of the calls' order, a result naming an id the reply's calls do not
    have or none, or a user message: where the code makes toolResults elsewhere in the request,
    that message came before the call was answered (a run that ended on it, say); else it
    stands where the result belongs, whether it is the result or the next prompt."""
    reply = REPLY_CALLS.match(tokens[index])
    calls = reply[1].split(",") if reply else []
    answered = [token[2:-1] for token in takewhile(lambda t: t.startswith("R("),
                                                  tokens[index + 1:])]
    after = tokens[index + 1 + len(answered):]
    if "None" in answered:
        return (f"the result of call {call} has no tool_call_id: a toolResult names the call "
                "it answers, tool_call_id the call's id")
    if any(answer not in calls for answer in answered):
        return (f"the result of call {call} carries a tool_call_id that is not {call}: a "
                "toolResult's tool_call_id is the id of the call it answers")
    if call in answered:
        return (f"the results of calls {', '.join(calls)} come in the order "
                f"{', '.join(answered)}: append each call's result in the order of the calls")
    if after[:1] != ["U"]:
        return ""
    if any(token.startswith("R(") for token in tokens):
        return (f"call {call} is left unanswered: a user message comes right after the reply "
                "that asked for it, though your code answers other calls with toolResults: "
                "every call of a reply gets its toolResult before anything else, even when "
                "the run stops at a turn limit")
    return (f"call {call} is followed by a user message, not its toolResult: each call's "
            "result is a message of role \"toolResult\" (naming the call in tool_call_id), "
            "right after the reply that asked for it")
