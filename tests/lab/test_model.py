"""ScriptedModel: recording, refusing, playing each kind of step, numbering, limits, bad input."""

import pytest

from agentlab_instructor.reference import harness
from agentlab_magics import lab


def test_every_request_is_recorded_as_a_deep_copy():
    model = lab.ScriptedModel([lab.say("hi")])
    messages = [lab.user("hello")]
    model.complete("sys", messages, [{"name": "t"}])
    messages[0]["content"] = "changed"
    request = model.calls[0]
    assert (request.system, request.messages, request.tools) == (
        "sys", [lab.user("hello")], [{"name": "t"}])
    assert request.user_text == "hello" and request.last_result is None


def test_last_result_is_the_result_the_request_ends_on():
    c1 = lab.call("read", {}, id="c1")
    result = lab.tool_result(c1, "x")
    model = lab.ScriptedModel([lab.say("a"), lab.say("b")])
    model.complete("", [lab.user("u"), lab.reply(c1), result], [])
    model.complete("", [lab.user("u"), lab.reply(c1), result, lab.say("ok"), lab.user("v")], [])
    assert model.calls[0].last_result == result
    assert model.calls[1].last_result is None and model.calls[1].user_text == "v"


def test_an_invalid_request_is_refused_in_band_and_plays_no_step():
    model = lab.ScriptedModel([lab.say("first")])
    refused = model.complete("", [lab.user("u"), lab.fail("503"), lab.user("again")], [])
    assert refused == lab.fail("400 invalid_request: messages[1]: assistant message has empty content")
    assert model.complete("", [lab.user("u")], []) == lab.say("first")
    assert len(model.calls) == 2 and model.calls[0].refused


def test_calls_are_numbered_per_model_over_every_call_it_produced():
    model = lab.ScriptedModel([lab.reply(lab.call("a"), lab.call("b")), lab.reply(lab.call("c")),
                               lab.reply(lab.call("d", id="mine")), lab.reply(lab.call("e"))])
    ids = []
    for _ in range(4):
        ids += [b["id"] for b in model.complete("", [lab.user("u")], [])["content"]]
    assert ids == ["c1", "c2", "c3", "mine", "c5"]


def test_a_step_is_played_as_a_copy_so_a_script_can_be_reused():
    step = lab.reply(lab.call("read", {"path": "x"}))
    first = lab.ScriptedModel([step]).complete("", [lab.user("u")], [])
    first["content"][0]["arguments"]["path"] = "changed"
    assert step["content"][0]["id"] is None and step["content"][0]["arguments"] == {"path": "x"}


def test_labels_follow_content_unless_overridden():
    assert lab.reply(lab.call("x"))["stop_reason"] == "toolUse"
    assert lab.say("x")["stop_reason"] == "stop"
    assert lab.reply(lab.call("x"), stop_reason="stop")["stop_reason"] == "stop"
    assert lab.fail("boom") == {"role": "assistant", "content": [], "stop_reason": "error",
                                "error_message": "boom"}


def test_a_function_step_gets_the_request():
    seen = []
    model = lab.ScriptedModel([lambda request: seen.append(request.user_text) or lab.say("ok")])
    assert harness.text_of(model.complete("", [lab.user("question")], [])) == "ok"
    assert seen == ["question"]


def test_a_persistent_step_answers_every_later_call():
    model = lab.ScriptedModel([lab.say("first"), lab.forever(lambda r: lab.say(r.user_text))])
    answers = [harness.text_of(model.complete("", [lab.user(f"q{n}")], [])) for n in range(4)]
    assert answers == ["first", "q1", "q2", "q3"]


def test_stuck_asks_again_with_a_new_id_each_time():
    model = lab.ScriptedModel([lab.stuck(lab.call("read", {"path": "missing.py"}))])
    messages = []
    harness.run_agent(model, "", messages, [], "go", max_turns=3)
    assert lab.shape(messages) == "U A[c1] R(c1) A[c2] R(c2) A[c3] R(c3) A(error)"


def test_pager_reads_on_through_notices_and_reports_the_line():
    ws = lab.Workspace({"big.log": lab.big_log()})
    model, messages = lab.ScriptedModel([lab.pager("def target")]), []
    harness.run_agent(model, "", messages, [harness.make_read_tool(ws)], "Is it in big.log?")
    offsets = [b["arguments"].get("offset") for m in messages if m["role"] == "assistant"
               for b in m["content"] if b["type"] == "toolCall"]
    assert offsets == [None, 1786]
    assert harness.text_of(messages[-1]) == "`def target` is on line 2400 of big.log."


def test_pager_reports_absence_and_read_errors():
    ws = lab.Workspace({"a.log": "x\ny\n"})
    for prompt, answer in (("Look in a.log", "`needle` does not exist in a.log."),
                           ("Look in b.log", "I could not read b.log: File not found: b.log. "
                                             "Files here: a.log")):
        messages = []
        harness.run_agent(lab.ScriptedModel([lab.pager("needle")]), "", messages,
                          [harness.make_read_tool(ws)], prompt)
        assert harness.text_of(messages[-1]) == answer


def test_forgetful_knows_only_the_request():
    model = lab.ScriptedModel([lab.forgetful()])
    told = [lab.user("My name is Ada.")]
    assert harness.text_of(model.complete("", told, [])) == "Hello, Ada."
    asked = [lab.user("What is my name?")]
    assert harness.text_of(model.complete("", asked, [])) == "I don't know your name."
    both = told + [lab.say("Hello, Ada."), lab.user("What is my name?")]
    assert harness.text_of(model.complete("", both, [])) == "Your name is Ada."
    assert "knows only what is in this request" in repr(lab.forgetful())


def test_max_calls_ends_a_runaway_in_band():
    model = lab.ScriptedModel([lab.stuck(lab.call("read"))], max_calls=2)
    messages = []
    final = harness.run_agent(model, "", messages, [], "go")
    assert final["error_message"] == "ScriptedModel stopped the run: max_calls=2 reached"
    assert model.cut_off and len(model.calls) == 3


def test_the_bill_counts_served_requests_deterministically():
    model = lab.ScriptedModel([lab.say("a"), lab.say("b")])
    model.complete("sys", [lab.user("u")], [])
    model.complete("sys", [lab.user("u"), lab.fail("x"), lab.user("v")], [])  # refused: free
    assert model.bill == lab.estimate_tokens("sys", [lab.user("u")], []) > 0
    longer = lab.estimate_tokens("sys", [lab.user("u"), lab.say("a"), lab.user("v")], [])
    assert longer > model.bill


def test_an_exhausted_script_says_so():
    model = lab.ScriptedModel([lab.say("only")])
    model.complete("", [lab.user("u")], [])
    with pytest.raises(lab.ScriptError, match="The script is used up: it has 1 step"):
        model.complete("", [lab.user("u")], [])


def test_an_unknown_step_type_is_refused_when_the_model_is_built():
    with pytest.raises(TypeError, match="Step 2 of the script is a int"):
        lab.ScriptedModel([lab.say("ok"), 42])
    with pytest.raises(TypeError, match="Step 1 of the script is a dict with role 'user'"):
        lab.ScriptedModel([lab.user("hi")])
    with pytest.raises(TypeError, match="takes a list of steps"):
        lab.ScriptedModel(lab.say("hi"))


def test_a_function_step_that_returns_no_reply_says_so():
    def broken(request):
        return "The port is 9090."

    with pytest.raises(lab.ScriptError, match="The step broken returned a str"):
        lab.ScriptedModel([broken]).complete("", [lab.user("u")], [])


def test_builders_reject_bad_input_with_a_sentence():
    with pytest.raises(TypeError, match=r"lab\.reply takes blocks"):
        lab.reply(42)
    with pytest.raises(TypeError, match="takes its arguments as a dict"):
        lab.call("read", "a.py")
    with pytest.raises(ValueError, match="has no id yet"):
        lab.tool_result(lab.call("read"), "x")
    with pytest.raises(TypeError, match=r"lab\.user takes a string"):
        lab.user(None)
