"""transcript_data: each complaint on the row it names, the request computed from the record,
calls tied to results, malformed messages as rows that say what is wrong, bounded payloads."""

import json

import pytest

from agentlab_magics import lab
from agentlab_magics.widgets.transcript import Transcript
from agentlab_magics.widgets.transcript_data import collapse, transcript_data
from tests.widgets.cases import C1, FAILED, R1, R2, A, U, long_run


def complaints(data: dict) -> dict[int, list[str]]:
    """The complaints a strict provider would make of the list sent as is, by row."""
    return {row["index"]: [entry["text"] for entry in row["complaints"] if entry["as_is"]]
            for row in data["rows"] if row.get("complaints")}


def test_a_well_formed_turn_is_accepted_and_every_call_is_tied_to_its_result():
    data = transcript_data([U, A, R1, R2])
    assert complaints(data) == {}
    assert data["accepted"] and data["verdict"] == (
        "Sent as is, a strict provider would accept this list.")
    assert [(call["id"], call["result_row"]) for call in data["rows"][1]["calls"]] == [
        ("c1", 2), ("c2", 3)]
    assert [(row["call_id"], row["call_row"]) for row in data["rows"][2:]] == [("c1", 1), ("c2", 1)]
    assert data["shape"] == "U A[c1,c2] R(c1) R(c2)"
    assert data["counts"] == {"messages": 4, "user": 1, "assistant": 1, "toolResult": 2,
                              "calls": 2, "malformed": 0, "complaints": 0, "left_out": 0}


def test_a_call_with_no_result_is_marked_on_the_reply_that_made_it():
    data = transcript_data([U, A, R1])
    assert complaints(data) == {1: ["toolCall c2 has no toolResult"]}
    assert "result_row" not in data["rows"][1]["calls"][1]
    assert data["verdict"] == ("Sent as is, a strict provider would refuse this list: "
                               "messages[1]: toolCall c2 has no toolResult")


def test_a_result_with_no_call_is_marked_on_the_result():
    data = transcript_data([U, R1])
    assert complaints(data) == {1: ["toolResult c1 has no toolCall before it"]}
    assert "call_row" not in data["rows"][1]


def test_results_out_of_call_order_are_marked_as_the_page_prints_them():
    data = transcript_data([U, A, R2, R1])
    assert complaints(data) == {
        1: ["toolCall c1 has no toolResult"],
        2: ["toolResult c2 must directly follow its assistant message, in call order"],
        3: ["toolResult c1 must directly follow its assistant message, in call order"],
    }
    assert [(call["id"], call["result_row"]) for call in data["rows"][1]["calls"]] == [
        ("c1", 3), ("c2", 2)]


def test_results_before_their_call_are_still_tied_to_the_call_that_comes_later():
    data = transcript_data([U, R1, R2, A])
    assert complaints(data) == {1: ["toolResult c1 has no toolCall before it"],
                                2: ["toolResult c2 has no toolCall before it"],
                                3: ["toolCall c1 has no toolResult"]}
    assert [row.get("call_row") for row in data["rows"][1:3]] == [3, 3]


def test_the_sentence_on_a_call_agrees_with_its_chip_when_its_result_is_out_of_place():
    data = transcript_data([U, A, R2, R1])
    reply = data["rows"][1]
    assert reply["complaints"] == [{
        "text": "toolCall c1 has no toolResult", "as_is": True, "request": True,
        "note": "its toolResult is at row 3; it must come right after this message, in call "
                "order"}]
    assert [(call["result_row"], call.get("out_of_place")) for call in reply["calls"]] == [
        (3, True), (2, True)]
    text = Transcript([U, A, R2, R1], static=True).to_text()
    assert ("    ✗ toolCall c1 has no toolResult (its toolResult is at row 3; it must come right "
            "after this message, in call order)") in text.splitlines()


def test_a_call_that_truly_has_no_result_and_one_answered_in_place_carry_no_such_words():
    reply = transcript_data([U, A, R1])["rows"][1]
    assert reply["complaints"] == [{"text": "toolCall c2 has no toolResult", "as_is": True,
                                    "request": True}]
    assert [call.get("out_of_place") for call in reply["calls"]] == [None, None]


@pytest.mark.parametrize("record", [[U, A, R1, R2], [U, A, R2, R1], [U, A, R1], [U, R1],
                                    [U, lab.reply(C1), lab.user("stop"), R1]],
                         ids=["answered", "swapped", "unanswered", "stray", "late"])
def test_a_record_with_no_failed_reply_says_nothing_of_lesson_5s_request(record):
    view = Transcript(record, static=True)
    assert not {"request_verdict", "request_shape", "record_note"} & set(view.data())
    assert "context_for_model" not in view.to_html() + view.to_text()


def test_the_key_explains_the_marks_the_transcript_holds_and_no_others():
    swapped = transcript_data([U, A, R2, R1])["key"]
    assert [kind for kind, _ in swapped["marks"]] == [
        "al-role-user", "al-role-assistant", "al-role-toolResult", "al-flagged"]
    assert swapped["chips"].startswith("A chip is a tool call")
    failed = transcript_data([U, FAILED, lab.user("again")])["key"]
    assert [kind for kind, _ in failed["marks"]] == ["al-role-user", "al-role-assistant",
                                                     "al-is-error", "al-flagged"]
    assert "chips" not in failed
    assert "key" not in transcript_data([U, A, R1, R2], rule=False)  # a report's panel


def test_an_empty_failed_reply_is_fine_on_the_record_but_left_out_of_the_request():
    data = transcript_data([U, FAILED, lab.user("try again")])
    failed = data["rows"][1]
    assert failed["in_request"] is False
    assert failed["complaints"] == [{"text": "assistant message has empty content",
                                     "as_is": True, "request": False}]
    assert failed["stop_reason"] == "error" and failed["error_message"] == "503 overloaded"
    assert all(row.get("in_request", True) for row in (data["rows"][0], data["rows"][2]))
    assert not data["accepted"] and data["request_accepted"]
    assert data["request_shape"] == "U U"
    assert data["request_verdict"] == ("The request context_for_model computes from it "
                                       "(2 of 3 messages) would be accepted.")
    assert "fine on a record" in data["record_note"]
    assert "context_for_model leaves it out" in data["record_note"]
    assert data["counts"]["left_out"] == 1


def test_a_failed_reply_that_said_something_stays_in_the_request():
    data = transcript_data([U, lab.fail("cut off", "partial answer")])
    assert data["rows"][1].get("in_request", True) and "record_note" not in data


def test_the_request_view_keeps_its_own_complaints_where_the_record_differs():
    data = transcript_data([U, lab.reply(C1), FAILED, R1], view="request")
    assert data["view"] == "request"
    rows = data["rows"]
    assert rows[2]["in_request"] is False
    assert {entry["text"]: (entry["as_is"], entry["request"]) for entry in rows[1]["complaints"]} \
        == {"toolCall c1 has no toolResult": (True, False)}
    assert data["request_accepted"] and not data["accepted"]


def test_a_request_is_judged_as_it_was_sent():
    model = lab.ScriptedModel([lab.say("The port is 9090.")])
    model.complete("You are helpful.", [U, FAILED], [{"name": "read", "description": "",
                                                      "parameters": {}}])
    data = transcript_data(model.calls[0])
    assert data["source"] == data["view"] == "request"
    assert all(row.get("in_request", True) for row in data["rows"])
    assert data["verdict"] == ("A strict provider refuses this request: "
                               "messages[1]: assistant message has empty content")
    assert data["system"] == "You are helpful." and data["tools"] == ["read"]
    assert "request_verdict" not in data


@pytest.mark.parametrize(("message", "words"), [
    ("hello", "This message is a str, not a message dict."),
    ({"role": "system", "content": "Be brief."},
     "This message cannot be read: role must be 'user', 'assistant' or 'toolResult', "
     "got 'system'."),
    ({"role": "assistant", "content": [{"type": "toolCall", "name": "read", "arguments": {}}]},
     "This message cannot be read: content[0] is a toolCall to read with no id."),
])
def test_a_malformed_message_is_a_row_that_says_what_is_wrong(message, words):
    data = transcript_data([U, message, lab.user("next")])
    row = data["rows"][1]
    assert row["problem"] == words
    assert "complaints" not in row  # the provider's words are the row's own sentence
    assert data["verdict"].startswith(
        "Sent as is, a strict provider would refuse this list: messages[1]: ")
    assert data["counts"]["malformed"] == 1
    assert json.loads(row["raw"]) == message


def test_a_call_with_no_id_still_shows_as_a_chip():
    data = transcript_data([{"role": "assistant", "content": [
        {"type": "text", "text": "reading"}, {"type": "toolCall", "name": "read",
                                              "arguments": {"path": "a.py"}}]}])
    assert data["rows"][0]["calls"] == [{"id": None, "name": "read",
                                         "arguments": '{"path": "a.py"}'}]
    assert data["rows"][0]["text"] == "reading"


def test_nothing_a_student_can_pass_makes_it_raise():
    looped: dict = {"role": "user"}
    looped["content"] = looped
    odd = [None, 42, looped, {"role": "assistant", "content": "not a list"},
           {"role": "toolResult", "content": 5}, {1: 2, (3,): object()},
           {"role": "assistant", "content": [{"type": "toolCall", "id": 7, "name": None}, 3]}]
    data = transcript_data(odd)
    assert [bool(row.get("problem")) for row in data["rows"]] == [True] * len(odd)
    json.dumps(data)
    assert transcript_data({"role": "user", "content": "hi"})["problem"] == (
        "messages must be a list of message dicts, got dict")


def test_an_unknown_view_is_refused():
    with pytest.raises(ValueError, match="view must be 'record' or 'request'"):
        transcript_data([U], view="both")


def test_collapsing_keeps_the_first_lines_and_the_read_tools_notice():
    notice = "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]"
    content = "".join(f"line {number}\n" for number in range(1, 1786)) + notice
    data = transcript_data([U, lab.reply(C1), lab.tool_result(C1, content)])
    row = data["rows"][2]
    assert row["text"] == "".join(f"line {number}\n" for number in range(1, 7))
    assert row["rest"].startswith("line 7\n")
    assert row["notice"] == notice
    assert row["more"] == "… 1,745 more lines not shown"


def test_collapsing_keeps_both_notice_lines_of_a_failed_command():
    tail = ("[Showing the last 2000 of 5000 lines. Narrow the command for more.]\n"
            "Command exited with code 1")
    part = collapse("output\n" * 2000 + tail, 4000)
    assert part["notice"] == tail
    assert part["text"] == "output\n" * 6
    exit_only = collapse("error\n" * 50 + "Command exited with code 2", 4000)
    assert exit_only["notice"] == "Command exited with code 2"


def test_a_short_output_is_kept_whole_even_when_its_last_line_starts_with_a_bracket():
    assert collapse("ok\n[1, 2, 3]", 4000) == {"text": "ok\n[1, 2, 3]"}


def test_a_long_output_with_no_notice_has_none_and_one_long_line_is_cut_by_characters():
    part = collapse("\n".join(f"row {number}" for number in range(100)), 4000)
    assert "notice" not in part and part["more"] == "… 60 more lines not shown"
    line = collapse("x" * 10_000, 4000)
    assert len(line["text"]) == 4000 and line["more"] == "… 6,000 more characters not shown"


def test_ten_thousand_long_messages_make_under_five_megabytes():
    data = transcript_data(long_run(10_000))
    size = len(json.dumps(data, ensure_ascii=False).encode())
    assert size < 5_000_000, f"{size:,} bytes"
    assert data["rows"][2]["notice"].startswith("[Showing lines 1-2000 of 9000.")


def test_a_short_transcript_sends_its_texts_uncut():
    data = transcript_data(long_run(8, lines=200))
    result = data["rows"][2]
    assert len(result["text"]) + len(result["rest"]) > 1000
    assert result["more"] == "… 160 more lines not shown"
