"""Reports lead with the cause: for each typical student bug, checked as %%check checks it, the
first cause's lead sentence names the bug's cause (the sentence a student should read first, in
CASES), no failing test's message names a wrong cause, and each shared cause is drawn once."""

from __future__ import annotations

import functools

import pytest

from agentlab_magics.checking.diagnosis import causes, leads
from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.runner import run
from agentlab_magics.checking.text_report import render
from agentlab_magics.course import find_lab
from agentlab_magics.widgets.report_view import report_data, report_text
from tests.mutation.mutants import MUTANTS, Mutant

MUTANT = {mutant.name: mutant for mutant in MUTANTS}
# Words that would send a student to a wrong place in any of these reports.
NEVER = ["Add a step", "after a failed reply instead of ending", "not to a copy",
         "not its label", "was None where"]
# Words of NEVER that are right for a bug, where its first sentence does not hold them.
RIGHT_FOR = {"the loop believes the label": ["not its label"]}


def bug(name: str, lab: str, old: str, new: str) -> Mutant:
    return Mutant(name, lab, old, new)


# (bug, the sentence a student should read first: what the lead says, words no message may say)
CASES: list[tuple[Mutant, str, list[str]]] = [
    # the issue's cases
    (bug("lesson 3: no return when a reply asks for no tool", "lesson3",
         "        if not calls:\n            return reply\n",
         "        if not calls:\n            pass\n"),
     "10 tests fail for one reason: run_agent called the model again after a reply that asked "
     "for no tool", ["failed reply", "stop_reason is \"error\""]),
    (bug("lesson 3: the tool result is never appended", "lesson3",
         "            messages.append({\"role\": \"toolResult\"",
         "            ({\"role\": \"toolResult\""),
     "8 tests fail for one reason: call c1 never gets a toolResult: append a result for every "
     "call of a reply", []),
    (MUTANT["user_message with content blocks"],
     "4 tests fail for one reason: user_message makes a message the provider refuses", []),
    (bug("lesson 7: tool_start without its turn", "lesson7",
         '{"type": "tool_start", "turn": turn, "call": call}',
         '{"type": "tool_start", "call": call}'),
     "4 tests fail for one reason: the tool_start events have no 'turn' key", []),
    (bug("lesson 7: kind for type", "lesson7", "def emit(listener, event):\n",
         "def emit(listener, event):\n"
         "    event = {('kind' if k == 'type' else k): v for k, v in event.items()}\n"),
     "tests fail for one reason: the events have no 'type' key (they have 'kind' instead)", []),
    # more typical bugs, across the labs
    (MUTANT["the chat that does not keep the reply"], "append the reply too", []),
    (MUTANT["the chat with no system prompt"], "carried the system prompt ''", []),
    (MUTANT["text_of that reads only the first block"], "text_of gave 'The port '", []),
    (MUTANT["tool_calls that gives None for a text-only reply"], "tool_calls gave None", []),
    (MUTANT["tool_specs without the parameters"], "['parameters'] is missing", []),
    (MUTANT["tool_calls that gives the first call only"], "tool_calls gave", []),
    (MUTANT["the loop believes the label"], "the answer, whatever its stop_reason says",
     ["not to a copy"]),
    (MUTANT["the copied list"], "the caller's list stayed empty though the model was called: "
     "append to the list run_agent was handed, not to a copy", []),
    (MUTANT["only the first call is answered"], "call c2 never gets a toolResult", []),
    (MUTANT["str_arg that accepts anything present"],
     "expected ValueError('path must be a string')", []),
    (MUTANT["int_arg that treats 0 as missing"], "int_arg({'offset': 0}, 'offset', 1) gave 1", []),
    (MUTANT["run_tool that answers with the tool's name as id"],
     "tests fail for one reason: the result of call c1 carries a tool_call_id that is not c1",
     ["never gets a toolResult"]),
    (MUTANT["run_tool with a message of its own for unknown tools"], "'Tool raed not found'", []),
    (MUTANT["a 503 is raised"], "Your code raised RuntimeError", []),
    (MUTANT["the record sent, not the request"],
     "3 tests fail for one reason: a failed reply (empty content) is sent back to the model", []),
    (MUTANT["a failed reply is retried with continue"],
     "tests fail for one reason: run_agent called the model again after a failed reply", []),
    (MUTANT["the turns counted from the list"], "count the turns of this run", []),
    (MUTANT["a result that is the user's message"],
     "tests fail for one reason: call c1 is followed by a user message, not its toolResult",
     ["never gets a toolResult"]),
    (MUTANT["a result without its tool_call_id"],
     "tests fail for one reason: the result of call c1 has no tool_call_id",
     ["never gets a toolResult"]),
    (MUTANT["a result without its tool_name and is_error"],
     "The results are a list whose [0]['tool_name'] is missing (expected 'read')", []),
    (MUTANT["max_turns one turn short"],
     "max_turns=1 allowed 0 model calls in the run: the limit is off by one",
     ["count the turns", "messages already on the list"]),
    (bug("lesson 5: max_turns one turn long", "lesson5", "turn > max_turns",
         "turn > max_turns + 1"),
     "max_turns=1 allowed 2 model calls in the run: the limit is off by one",
     ["count the turns", "messages already on the list"]),
    (MUTANT["the budget in characters, not bytes"], "6 bytes in UTF-8", []),
    (MUTANT["the quiet read"], "[Showing lines 1-1785 of 5000. Use offset=17", []),
    (MUTANT["the bash tool drops the exit code"], "exit", []),
    (MUTANT["rebuilt: context_for_model under another name"],
     "tests fail for one reason: context_for_model is not written yet", []),
    (MUTANT["rebuilt: only the first call is answered"],
     "tests fail for one reason: call c2 never gets a toolResult", []),
    (MUTANT["turns numbered from 0"], "'turn_start 0' where 'turn_start 1' belongs", []),
    # lesson 7's run_end: its reason under another key (the issue's case), and never told
    (bug("lesson 7: run_end's reason under another key", "lesson7",
         '{"type": "run_end", "reason": reason}', '{"type": "run_end", "why": reason}'),
     "6 tests fail for one reason: the run_end events have no 'reason' key and have a key "
     "'why' that does not belong", ["the reason is"]),
    (bug("lesson 7: run_end never told", "lesson7",
         '    finally:\n        emit(listener, {"type": "run_end", "reason": reason})',
         "    finally:\n        pass"),
     "it told 11 events and stopped before 'run_end'", ["fail for one reason"]),
    # a result's order, its label, a run that returns on unanswered calls, an unknown tool
    (MUTANT["the reversed results"],
     "the results of calls c1, c2 come in the order c2, c1: append each call's result in the "
     "order of the calls", ["never gets a toolResult"]),
    (MUTANT["error_message without its label"],
     "error_message labels a failed reply stop_reason \"error\"", ["leave failed replies out"]),
    (MUTANT["the limit leaves the last calls unanswered"],
     "call c3 is left unanswered: a user message comes right after the reply that asked for it",
     ["result is a message of role"]),
    (MUTANT["rebuilt: calls to unknown tools are skipped"],
     "call c1 never gets a toolResult: append a result for every call of a reply, right after "
     "the reply (a call to a tool that fails or does not exist gets one too)", []),
    (MUTANT["emit tells the listener only the event's type"],
     "tests fail for one reason: an event is str, not a dict", []),
]


@pytest.fixture(scope="module")
def check(tmp_path_factory):
    @functools.cache
    def checked(mutant: Mutant) -> CheckReport:
        lab = find_lab(mutant.lab)
        path = tmp_path_factory.mktemp(lab.module) / f"{lab.module}.py"
        path.write_text(mutant.apply(lab.reference), encoding="utf-8")
        return run(mutant.lab, path, timeout=5)

    return checked


@pytest.mark.parametrize(("mutant", "lead", "wrong"), CASES, ids=[c[0].name for c in CASES])
def test_the_lead_sentence_names_the_bugs_cause(mutant, lead, wrong, check):
    report = check(mutant)
    first = leads(report) or causes(report)  # what a report's text says first
    assert first and lead.lower() in first[0].lead.lower(), [c.lead for c in first]


@pytest.mark.parametrize(("mutant", "lead", "wrong"), CASES, ids=[c[0].name for c in CASES])
def test_no_failing_message_names_a_wrong_cause(mutant, lead, wrong, check):
    report = check(mutant)
    said = [o.message for o in report.outcomes if not o.passed] + [c.lead for c in causes(report)]
    for words in [*NEVER, *wrong]:
        if words.lower() in lead.lower() or words in RIGHT_FOR.get(mutant.name, []):
            continue
        assert not [text for text in said if words.lower() in text.lower()], words


@pytest.mark.parametrize(("mutant", "lead", "wrong"), CASES, ids=[c[0].name for c in CASES])
def test_each_shared_cause_is_drawn_once(mutant, lead, wrong, check):
    data = report_data(check(mutant))
    drawings = ("events", "parting", "sent", "transcript")
    shared = {name for cause in data["causes"] if len(cause["tests"]) > 1
              for name in cause["tests"]}
    assert not [t["name"] for t in data["tests"]
                if t["name"] in shared and any(key in t for key in drawings)]
    for cause in data["causes"]:
        if len(cause["tests"]) > 1:
            assert any(key in cause for key in drawings) or "not written yet" in cause["lead"]
        else:  # the one test of a cause is drawn where it stands
            assert not any(key in cause for key in drawings)


@pytest.mark.parametrize(("mutant", "lead", "wrong"), CASES, ids=[c[0].name for c in CASES])
def test_every_report_leads_with_the_same_cause(mutant, lead, wrong, check):
    """`agentlab check`'s text, the view's text and its page put the same leads first, right
    under the summary (none where each cause is only its test's own message, shown under
    it); `--json` carries every failure's cause."""
    report = check(mutant)
    data = report_data(report)
    said = [cause.lead for cause in leads(report)]
    assert [cause["lead"] for cause in data["causes"]] == said
    assert [line for line in render(report).splitlines() if line in said] == said
    assert [line for line in report_text(report, data).splitlines() if line in said] == said
    if said:
        assert render(report).splitlines()[1] == said[0] == report_text(
            report, data).splitlines()[1]
    else:
        assert all(cause.own for cause in causes(report))
    assert all(outcome.cause for outcome in report.outcomes if not outcome.passed)


def test_an_event_stream_that_differs_is_drawn_as_events_first_difference_marked(check):
    mutant = CASES[3][0]
    data = report_data(check(mutant))
    events = data["causes"][0]["events"]
    assert events["yours"][events["first"]] == "tool_start"
    assert events["expected"][events["first"]] == "tool_start 1"
    from agentlab_magics.widgets.report_view import report_html

    assert report_html(data).count('class="al-parts"') == 1


def test_a_visible_test_that_goes_on_is_drawn_beside_the_reference_from_where_they_part(check):
    data = report_data(check(CASES[0][0]))  # lesson 3 with no return
    assert data["causes"][0]["parting"] == {
        "yours": ["U A"], "expected": [""], "first": 0, "start": 2,
        "summary": "The reference stops after 1 call; yours went on to 2."}
    from agentlab_magics.widgets.report_view import report_html

    assert report_html(data).count("al-parting") == 1


def test_there_are_the_issues_cases_and_at_least_twenty_more():
    assert len(CASES) >= 5 + 20


def test_a_lead_counts_its_tests_among_all_that_fail(check):
    """A cause that some of the failures share says how many of how many: the others keep
    their own sentences, and no reader takes the lead for every failure."""
    report = check(MUTANT["run_tool that answers with the tool's name as id"])
    failing = sum(not outcome.passed for outcome in report.outcomes)
    (shared, *_) = [cause for cause in causes(report) if len(cause.tests) > 1]
    assert len(shared.tests) < failing
    assert shared.lead.startswith(
        f"{len(shared.tests)} of the {failing} failing tests fail for one reason: ")
