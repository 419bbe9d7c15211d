"""A report's diagnosis: failures grouped by cause, each cause one sentence.

Every failing test has one cause, a sentence read off the evidence its run left (`cause_of`):
the name it stopped on, the line it was spinning on, the reply after which the loop called
the model again, the first request the provider refused, the line that raised, or else its own
message. Failures whose causes match once call ids are set aside ("call c1" and "call c4" are
one cause) are one group (`causes`): one lead sentence names the cause and where to change, the
run of its first test is the one drawing, and each test keeps its own line. The class report
counts causes by their lead sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentlab_magics.checking.cell_source import not_written
from agentlab_magics.checking.refusals import first_refusal

if TYPE_CHECKING:  # for types only: report.py imports this module
    from agentlab_magics.checking.report import CheckReport, SentRequest, TestOutcome

CALL_ID = re.compile(r"\bc\d+\b")
# A value test's message starts with the call it made: "user_message('Hi.') gave ...".
CALLED = re.compile(r"^(\w+)\(")
UNDEFINED = re.compile(r"NameError: name '(\w+)' is not defined")
# A cause that blames one function, which its own tests and the uses of its name share.
BLAMES = re.compile(r"^\w+ (?:makes a message the provider refuses|is not written yet)")


@dataclass(frozen=True)
class Cause:
    """One cause of failure: its sentence, the names of the tests it fails (report order), and
    the lead sentence a report shows above them."""

    sentence: str
    tests: list[str]
    drawn_by: str
    """The test whose run is drawn for the whole cause: of those with a run to draw, the one
    that sent the fewest requests, its record the shortest (the first of those)."""
    own: bool = False
    """Whether the sentence is no more than its one test's own message, which every report
    shows under the test: then it leads nothing."""
    failing: int = 0
    """How many tests of the report fail, this cause's and others'."""

    @property
    def lead(self) -> str:
        """The sentence a report leads with; where other tests fail for other reasons, it
        counts this cause's among all that fail."""
        count = len(self.tests)
        if count == 1:
            return self.sentence if self.sentence.endswith(".") else f"{self.sentence}."
        if self.failing > count:
            return (f"{count} of the {self.failing} failing tests fail for one reason: "
                    f"{self.sentence}.")
        return f"{count} tests fail for one reason: {self.sentence}."


def causes(report: CheckReport) -> list[Cause]:
    """The report's failures grouped by cause, in the order each cause first fails. A cause
    that blames one function (its messages refused, its name not written) takes in that
    function's own value tests ("user_message('Hi.') gave ...") and the NameErrors of its name."""
    failing = [outcome for outcome in report.outcomes if not outcome.passed]
    sentences = [outcome.cause or outcome.message or outcome.sentence for outcome in failing]
    blamed = {sentence.split()[0]: sentence for sentence in sentences
              if BLAMES.match(sentence)}
    groups: dict[str, list[TestOutcome]] = {}
    first: dict[str, str] = {}
    for outcome, sentence in zip(failing, sentences):
        named = CALLED.match(outcome.message) or UNDEFINED.search(outcome.message)
        if named and named.group(1) in blamed:
            sentence = blamed[named.group(1)]
        key = CALL_ID.sub("c#", sentence)
        groups.setdefault(key, []).append(outcome)
        first.setdefault(key, sentence)
    return [Cause(first[key], [outcome.name for outcome in members],
                  min(members, key=_size).name, own=_own_words(first[key], members),
                  failing=len(failing))
            for key, members in groups.items()]


def leads(report: CheckReport) -> list[Cause]:
    """The causes a report leads with, in the order each first fails: each shared by several
    failures, and each of one failure that says more than its message (a line the run spun
    on, a reply the loop went on after, a refusal)."""
    return [cause for cause in causes(report) if not cause.own]


def _own_words(sentence: str, members: list[TestOutcome]) -> bool:
    said = members[0].message or members[0].sentence
    return len(members) == 1 and sentence.rstrip(".") == said.rstrip(".")


def _size(outcome: TestOutcome) -> tuple[bool, int, int]:
    """How much a run draws: one with nothing to draw last, then by requests and messages."""
    drawable = bool(outcome.requests or outcome.record or outcome.events)
    return not drawable, outcome.requests_sent, len(outcome.record or []) + outcome.record_omitted


def cause_of(outcome: TestOutcome) -> str:
    """The cause of one failing test, from its run's evidence, as a clause: what happened and
    where to change; "" for a test that passed."""
    if outcome.passed:
        return ""
    if not_written(outcome.message):
        return outcome.message.rstrip(".")
    if outcome.spun_at:
        return (f"the time ran out while your code was on {outcome.spun_at}: that line never "
                "lets the run finish")
    if outcome.record == [] and outcome.requests_sent:
        return ("the caller's list stayed empty though the model was called: append to the "
                "list run_agent was handed, not to a copy of its own")
    went_on = went_on_after(outcome.record, outcome.requests)
    if went_on is not None:
        return went_on_cause(went_on[1])
    if outcome.events and outcome.events.get("problem"):
        return str(outcome.events["problem"])
    refused = first_refusal(outcome.requests)
    if refused is not None:
        return refused
    return outcome.message.rstrip(".") or outcome.sentence.rstrip(".")


def went_on_after(record: list[Any] | None, requests: list[SentRequest] | None
                  ) -> tuple[int, str] | None:
    """(row, "no tool" or "failed") for the first reply after which the loop called the model
    again though the reply should have ended the run: a reply that asked for no tool, or one
    that failed. Read off the record (another reply follows with no user message between) or,
    where the record stops short, off the requests (one was sent ending on such a reply)."""
    for row, (message, after) in enumerate(zip(record or [], (record or [])[1:])):
        if _assistant(message) and _assistant(after) and not _calls(message):
            return row, "failed" if message.get("stop_reason") == "error" else "no tool"
    for request in requests or []:
        tokens = request.shape.split()
        if tokens and tokens[-1] in ("A", "A(error)"):
            return len(tokens) - 1, "failed" if tokens[-1] == "A(error)" else "no tool"
    return None


def went_on_cause(kind: str) -> str:
    """The cause of a loop that went on after a reply that should have ended the run."""
    if kind == "failed":
        return ("run_agent called the model again after a failed reply (stop_reason "
                "\"error\"): a failed reply ends the run")
    return ("run_agent called the model again after a reply that asked for no tool: a reply "
            "with no toolCall block is the answer, whatever its stop_reason says, so return it "
            "there")


def went_on_evidence(row: int, kind: str) -> str:
    """One test's line for a loop that went on: the row of the record it went on after."""
    said = "failed" if kind == "failed" else "asked for no tool"
    return f"The reply at row {row} {said}, and run_agent called the model again."


def _assistant(message: Any) -> bool:
    return type(message) is dict and message.get("role") == "assistant"


def _calls(message: dict) -> bool:
    content = message.get("content")
    return type(content) is list and any(
        type(block) is dict and block.get("type") == "toolCall" for block in content)
