"""lab.validate: each rule of the strict provider, and bad input as complaints, never crashes."""

from agentlab_magics import lab

C1 = lab.call("read", {"path": "a.py"}, id="c1")
C2 = lab.call("read", {"path": "b.py"}, id="c2")
U = lab.user("Read a.py and b.py.")
A = lab.reply(C1, C2)
R1 = lab.tool_result(C1, "A = 1\n")
R2 = lab.tool_result(C2, "B = 2\n")


def test_a_well_formed_turn_has_no_complaints():
    assert lab.validate([U, A, R1, R2]) == []


def test_a_call_with_no_result():
    assert lab.validate([U, A, R1]) == ["messages[1]: toolCall c2 has no toolResult"]


def test_a_call_whose_result_never_comes_before_the_next_user_message():
    assert lab.validate([U, lab.reply(C1), lab.user("and?")]) == [
        "messages[1]: toolCall c1 has no toolResult"]


def test_a_result_with_no_call_before_it():
    assert lab.validate([U, R1]) == ["messages[1]: toolResult c1 has no toolCall before it"]


def test_results_out_of_call_order():
    assert lab.validate([U, A, R2, R1]) == [
        "messages[1]: toolCall c1 has no toolResult",
        "messages[2]: toolResult c2 must directly follow its assistant message, in call order",
        "messages[3]: toolResult c1 must directly follow its assistant message, in call order",
    ]


def test_a_result_separated_from_its_call():
    complaints = lab.validate([U, lab.reply(C1), lab.user("wait"), R1])
    assert complaints == [
        "messages[1]: toolCall c1 has no toolResult",
        "messages[3]: toolResult c1 must directly follow its assistant message, in call order",
    ]


def test_an_empty_assistant_message_is_refused_in_a_request():
    failed = lab.fail("503 overloaded")
    assert lab.validate([U, failed, lab.user("again")]) == [
        "messages[1]: assistant message has empty content"]
    assert lab.validate([U, lab.reply()]) == ["messages[1]: assistant message has empty content"]


def test_a_record_may_hold_an_empty_failed_reply_but_not_an_empty_ordinary_one():
    assert lab.validate([U, lab.fail("503 overloaded"), lab.user("again")], record=True) == []
    assert lab.validate([U, lab.reply()], record=True) == [
        "messages[1]: assistant message has empty content"]


def test_a_failed_reply_with_text_is_fine_in_a_request():
    assert lab.validate([U, lab.fail("cut off", "partial answer")]) == []


def test_bad_input_becomes_complaints():
    assert lab.validate("U A") == ["messages must be a list of message dicts, got str"]
    assert lab.validate([U, "hello"]) == ["messages[1]: is a str, not a message dict"]
    assert lab.validate([{"role": "system", "content": "x"}]) == [
        "messages[0]: role must be 'user', 'assistant' or 'toolResult', got 'system'"]
    assert lab.validate([{"role": "user", "content": ["x"]}]) == [
        "messages[0]: user content must be a string"]
    no_id = {"role": "assistant", "stop_reason": "toolUse",
             "content": [{"type": "toolCall", "name": "read", "arguments": {}}]}
    assert lab.validate([U, no_id]) == ["messages[1]: content[0] is a toolCall to read with no id"]
    assert lab.validate([U, {"role": "toolResult", "content": "x"}]) == [
        "messages[1]: toolResult has no tool_call_id"]
    assert lab.validate([U, {"role": "assistant", "content": "hi"}]) == [
        "messages[1]: assistant content must be a list of text and toolCall blocks"]
