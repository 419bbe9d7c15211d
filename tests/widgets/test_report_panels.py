"""Which panels a check report draws under a test: only those that explain its failure, made of
what the student's own code did (the requests it sent, the record it left), never the course's
rule for the request; and the provider's verdict only where the failure is about it."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from agentlab_magics import lab
from agentlab_magics.checking.kept import kept_record, sent_requests
from agentlab_magics.checking.report import CheckReport, SentRequest, TestOutcome
from agentlab_magics.checking.runner import run
from agentlab_magics.course import find_lab
from agentlab_magics.lab.rules import validate
from agentlab_magics.widgets import ReportView
from agentlab_magics.widgets.report_view import report_data
from tests.student_notebook import SENDS_THE_RECORD
from tests.widgets.cases import FAILED, HOSTILE, U

NOT_WRITTEN = "run_agent is not written yet: it runs the loop."
REFUSED = "400 invalid_request: messages[1]: assistant message has empty content"
RECORD = [U, FAILED, lab.user("try again"), lab.fail(REFUSED)]


def outcome(name="t", outcome="failed", message="The record is wrong.", **fields):
    return TestOutcome(name=name, sentence=f"The {name} test.", outcome=outcome,
                       message=message, **fields)


def drawn(*outcomes):
    return report_data(CheckReport(lab_id="lesson5", title="Lesson 5",
                                   outcomes=list(outcomes)))["tests"]


def test_no_panel_where_the_run_explains_nothing():
    tests = drawn(outcome("passed", "passed", "", record=RECORD),
                     outcome("missing", message=NOT_WRITTEN, record=[U]),
                     outcome("empty", record=[]),
                     outcome("lost", outcome="timeout", message="too long"))
    assert [("transcript" in test, "sent" in test) for test in tests] == [(False, False)] * 4


def test_a_repeated_not_written_yet_is_drawn_closed():
    tests = drawn(outcome("a", message=NOT_WRITTEN), outcome("b", message=NOT_WRITTEN),
                     outcome("c"), outcome("d", "passed", ""))
    assert [test["open"] for test in tests] == [True, False, True, False]


def test_a_record_panel_carries_nothing_of_the_courses_rule():
    panel = drawn(outcome(record=RECORD))[0]["transcript"]
    assert not {"request_verdict", "request_shape", "record_note"} & set(panel)
    assert all("in_request" not in row and "complaints" not in row for row in panel["rows"])
    assert panel["verdict"] == "" and panel["summary"] == "4 messages · 0 tool calls"


def test_the_providers_verdict_is_drawn_where_the_failure_is_about_it():
    refused = [SentRequest(number=1, shape="U"),
               SentRequest(number=2, shape="U A(error) U", refused=REFUSED)]
    for test in drawn(outcome(record=RECORD, requests=refused, requests_sent=2),
                         outcome(record=RECORD, message="The strict provider refuses this.")):
        panel = test["transcript"]
        assert panel["verdict"].startswith("Sent as is, a strict provider would refuse")
        assert panel["rows"][1]["complaints"] == [
            {"text": "assistant message has empty content", "as_is": True, "request": True}]


def test_the_requests_panel_counts_model_calls_and_keeps_the_last_in_view():
    requests = [SentRequest(number=n, shape="U") for n in range(5, 13)]
    sent = drawn(outcome(record=RECORD, requests=requests, requests_sent=12))[0]["sent"]
    assert sent["heading"] == "Requests your code sent the model: 12 model calls"
    assert [r["number"] for r in sent["earlier"]] == [5, 6]
    assert [r["number"] for r in sent["shown"]] == list(range(7, 13))
    assert sent["not_kept"] == 4


def test_the_requests_panel_is_escaped_and_in_the_text():
    report = CheckReport(lab_id="lesson5", title="Lesson 5", outcomes=[outcome(
        record=[U], requests=[SentRequest(number=1, shape=HOSTILE, refused=HOSTILE)],
        requests_sent=1)])
    view = ReportView(report, static=True)
    page = BeautifulSoup(view.to_html(), "html.parser")
    assert not page.find_all(["script", "img"])
    assert page.select_one(".al-sent-request .al-shape").get_text() == HOSTILE
    assert f"      1. {HOSTILE}  refused: {HOSTILE}" in view.to_text().splitlines()


def test_the_requests_are_read_from_the_lab_model_whatever_they_hold():
    model = lab.ScriptedModel([lab.say("hi")])
    model.complete("s", [U], [])
    model.complete("s", [U, FAILED, lab.user("again")], [])
    assert sent_requests(model) == ([
        SentRequest(number=1, shape="U", refused=None),
        SentRequest(number=2, shape="U A(error) U", refused=REFUSED)], 2)
    stranger = type("Reply", (), {})()  # what stands for a student's object in the judge
    model.calls[0].messages = [stranger]
    assert [r.shape for r in sent_requests(model)[0]] == ["?", "U A(error) U"]
    assert sent_requests(object()) == (None, 0)


def test_a_real_failure_draws_the_request_its_sentence_names():
    report = run("lesson5", None, source=SENDS_THE_RECORD.apply(find_lab("lesson5").reference))
    data = report_data(report)
    test = {t["name"]: t for t in data["tests"]}["test_try_again_after_a_503"]
    named = re.search(r"The second request was '([^']*)'", test["message"]["text"]).group(1)
    (cause,) = [c for c in data["causes"] if test["name"] in c["tests"]]  # drawn once, there
    second = next(r for r in cause["sent"]["shown"] if r["number"] == 2)
    assert second["shape"] == named == "U A(error) U" and second["refused"]


def test_the_starter_of_lesson_5_draws_no_panel():
    report = run("lesson5", None, source=find_lab("lesson5").starter)
    assert not [t["name"] for t in report_data(report)["tests"]
                if "transcript" in t or "sent" in t]


def test_a_record_kept_in_part_says_how_many_it_kept_of_how_many():
    record = [lab.user(f"turn {turn}") for turn in range(50)]
    panel = drawn(outcome(record=record, record_omitted=21_549))[0]["transcript"]
    assert panel["summary"] == "50 of 21,599 messages kept · 50 messages · 0 tool calls"
    assert panel["record_note"] == (
        "The run's record held 21,599 messages: this panel keeps its first 25 and its last 25, "
        "numbered as in the whole record, and leaves out the 21,549 between them. Only its "
        "ends came back from your code's process, so the record is not judged.")
    text = ReportView(CheckReport(lab_id="lesson5", title="Lesson 5", outcomes=[
        outcome(record=record, record_omitted=21_549)])).to_text()
    assert "50 of 21,599 messages kept" in text


def whole_record(dropped: int | None = None) -> list[dict]:
    """Two questions, then thirty calls each answered at once: 62 messages, whose kept ends
    (0-24, 37-61) part call c11 (row 24) from its result and result c17 (row 37) from its
    call; `dropped` leaves out that call's result."""
    messages = [lab.user("Read thirty files."), lab.user("All of them.")]
    for number in range(30):
        call = lab.call("read", {"path": f"f{number}.py"}, id=f"c{number}")
        messages.append(lab.reply(call))
        if number != dropped:
            messages.append(lab.tool_result(call, f"file {number}"))
    return messages


def cut_panel(messages: list[dict], judged_whole: bool = True) -> dict:
    """The record panel of a failure about what the provider accepts, the run's record kept
    by the checker as it keeps every long one (its ends, judged whole unless not)."""
    record, omitted, complaints = kept_record(messages)
    return drawn(outcome(record=record, record_omitted=omitted,
                         record_complaints=complaints if judged_whole else None,
                         message="The strict provider refuses the request."))[0]["transcript"]


def test_a_cut_record_is_judged_whole_and_its_cut_is_drawn_as_a_gap():
    record, _, _ = kept_record(whole_record())
    assert "messages[24]: toolCall c11 has no toolResult" in validate(record)  # the cut list
    panel = cut_panel(whole_record())
    assert panel["verdict"] == "Sent as is, a strict provider would accept this list."
    assert not [row for row in panel["rows"] if row.get("complaints")]
    call, result = panel["rows"][24], panel["rows"][25]
    assert call["calls"][0]["not_kept"] and "result_row" not in call["calls"][0]
    assert call["gap_after"] == ("… 12 messages of the run not kept here: messages[25] to "
                                 "messages[36]")
    assert (result["number"], result["call_id"], result["call_not_kept"]) == (37, "c17", True)
    assert panel["rows"][26]["calls"][0] == {"id": "c18", "name": "read", "arguments":
                                             '{"path": "f18.py"}', "result_row": 27,
                                             "result_number": 39}


def test_every_rendering_of_a_cut_record_draws_the_gap_and_invents_no_complaint():
    record, omitted, complaints = kept_record(whole_record())
    report = CheckReport(lab_id="lesson3", title="03 The loop", outcomes=[outcome(
        record=record, record_omitted=omitted, record_complaints=complaints,
        message="The strict provider refuses the request.")])
    view = ReportView(report, static=True)
    page = BeautifulSoup(view.to_html(), "html.parser")
    assert page.select_one(".al-gap").get_text() == (
        "… 12 messages of the run not kept here: messages[25] to messages[36]")
    assert [index.get_text() for index in page.select(".al-index")][24:27] == ["24", "37", "38"]
    chip = page.select_one('.al-chip[data-call-id="c11"]').get_text()
    assert chip == 'c11 read {"path": "f11.py"} → its result is not kept'
    assert page.select_one('[data-call-id="c17"] .al-answers').get_text() == (
        "answers c17 · its call is not kept")
    for rendering in (view.to_html(), view.to_text()):
        assert "has no toolResult" not in rendering and "no toolCall" not in rendering
    assert "    [37] toolResult c17" in view.to_text()


def test_a_complaint_in_the_cut_away_part_is_the_verdict_and_is_on_no_row():
    panel = cut_panel(whole_record(dropped=13))
    assert panel["verdict"] == ("Sent as is, a strict provider would refuse this list: "
                                "messages[28]: toolCall c13 has no toolResult")
    assert not [row for row in panel["rows"] if row.get("complaints")]


def test_a_complaint_about_a_kept_message_sits_on_its_row_under_its_whole_number():
    panel = cut_panel(whole_record(dropped=29))
    last = panel["rows"][-1]
    assert last["number"] == 60 and last["calls"][0]["id"] == "c29"
    assert "not_kept" not in last["calls"][0]  # the whole record has no result for it
    assert last["complaints"] == [{"text": "toolCall c29 has no toolResult", "as_is": True,
                                   "request": True}]
    assert panel["verdict"].endswith("messages[60]: toolCall c29 has no toolResult")


def test_a_record_whose_ends_alone_came_back_is_not_judged_and_calls_nothing_missing():
    panel = cut_panel(whole_record(dropped=13), judged_whole=False)
    assert panel["verdict"] == "" and panel["counts"]["complaints"] == 0
    assert panel["rows"][24]["calls"][0]["not_kept"]
    assert panel["rows"][25]["call_not_kept"]
