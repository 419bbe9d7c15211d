"""Lesson 4, one call in, one result out: checked arguments, and run_tool, which never raises."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import (
    exact,
    failing_tool,
    files_tool,
    gave,
    message_of,
    plain,
    run,
    said,
    told,
)

FILES = {"config.py": "PORT = 9090\n", "notes.txt": "Ask Ada about the port.\n"}


def a_tool(name, execute):
    """A tool of the lab's own whose function is `execute`."""
    return {"name": name, "description": f"The {name} tool.",
            "parameters": {"type": "object", "properties": {}}, "execute": execute}


def raised(function, *args):
    """What calling function(*args) raised, or None (with what it returned) if it did not."""
    try:
        return None, function(*args)
    except Exception as exc:
        return exc, None


def did(name, exc, value):
    """"raised ValueError('…')" or "gave '…'", for a failure message: what `name` returned is
    shown only once proven plain, and an exception by its type and message."""
    if exc is not None:
        return f"raised {told(exc)!r}"
    return f"gave {plain(value, f'what {name} returned')!r}"


def refused(exc, message):
    """Whether `exc` is a ValueError, exactly, whose message is exactly `message` (a subclass
    could say anything when the model reads it)."""
    return type(exc) is ValueError and exact(message_of(exc), message,
                                              "the message of the ValueError raised")


def safe_run_tool(harness, tools, call):
    """The result run_tool gives for `call`; a plain failure if run_tool raises instead."""
    exc, result = raised(harness.run_tool, tools, call)
    assert exc is None, (
        f"run_tool raised {told(exc)} for a call to {call['name']}; it must "
        "never raise, but return a result with is_error True, so the model can read what "
        "went wrong and every call still gets its answer.")
    return plain(result, "what run_tool returned")


def loop_needs_run_tool(harness):
    """The file's run_agent calls run_tool: a missing run_tool fails here, in a sentence."""
    return harness.run_tool


def refuse_the_path(arguments):
    raise ValueError("bad path")


def retry_after_typo(request):
    """Reads the newest result: told the misspelt tool is not found, asks again, spelt right."""
    result = request.last_result
    if result and result["is_error"] and "raed" in result["content"]:
        return lab.reply(lab.call("read", {"path": "config.py"}))
    return lab.say("I cannot continue.")


def test_a_mistyped_tool_name_is_answered_and_the_model_retries(harness, record):
    """The model asks for "raed", is told there is no such tool, and asks again, spelt right."""
    loop_needs_run_tool(harness)
    model, messages, _ = run(harness, [lab.reply(lab.call("raed", {"path": "config.py"})),
                                       retry_after_typo, lab.say("The port is 9090.")],
                             tools=[files_tool(FILES)], prompt="What port does config.py use?",
                             record=record)
    assert lab.shape(messages) == "U A[c1] R(c1) A[c2] R(c2) A" and len(model.calls) == 3, (
        f"The model misspelt read as raed, then would retry once told; the run made "
        f"{said(model, messages)}, expected 3 model calls and 'U A[c1] R(c1) A[c2] R(c2) A'.\n"
        f"{lab.show(messages)}")
    first = messages[2]
    assert exact((first["content"], first["is_error"]), ("Tool raed not found", True),
                 "the result of the call to raed"), (
        f"The call to raed got {lab.show([first])}; expected the error result "
        "'Tool raed not found', with is_error True.")


def test_three_calls_one_failing_get_three_results_in_order(harness, record):
    """Three calls in one reply, the second to a tool that raises: three results, in call order."""
    loop_needs_run_tool(harness)
    tools = [files_tool(FILES), failing_tool("grep", "grep: invalid pattern '('")]
    model, messages, _ = run(harness, [
        lab.reply(lab.call("read", {"path": "config.py"}), lab.call("grep", {"pattern": "("}),
                  lab.call("read", {"path": "notes.txt"})),
        lab.say("The port is 9090.")], tools=tools, record=record)
    assert lab.shape(messages) == "U A[c1,c2,c3] R(c1) R(c2) R(c3) A", (
        f"Three calls, the second failing: the run made {said(model, messages)}; expected "
        "'U A[c1,c2,c3] R(c1) R(c2) R(c3) A'.")
    results = [(m["content"], m["is_error"]) for m in messages if m["role"] == "toolResult"]
    expected = [(FILES["config.py"], False), ("grep: invalid pattern '('", True),
                (FILES["notes.txt"], False)]
    assert exact(results, expected, "the results"), (
        f"The results hold {results}; expected {expected}: only the second is an error, and "
        "its content is the message of what the tool raised.")


def test_str_arg_returns_the_string(harness):
    """str_arg gives back the argument when it is a string, the empty string included."""
    for arguments, name, expected in (({"path": "a.txt", "limit": 3}, "path", "a.txt"),
                                      ({"pattern": ""}, "pattern", "")):
        exc, value = raised(harness.str_arg, arguments, name)
        assert exc is None and exact(value, expected, "what str_arg returned"), (
            f"str_arg({arguments!r}, {name!r}) {did('str_arg', exc, value)}; "
            f"expected {expected!r}, the string itself.")


def test_str_arg_refuses_what_is_not_a_string(harness):
    """A missing, None or non-string argument raises ValueError("path must be a string")."""
    for arguments in ({}, {"path": None}, {"path": 5}, {"path": ["a.txt"]}):
        exc, value = raised(harness.str_arg, arguments, "path")
        assert refused(exc, "path must be a string"), (
            f"str_arg({arguments!r}, 'path') {did('str_arg', exc, value)}; expected "
            "ValueError('path must be a string'): the model does not always send what the "
            "schema asks for, and that sentence is what it reads to put it right.")


def test_int_arg_gives_the_default_when_missing_or_none(harness):
    """int_arg gives the default when the argument is missing or None."""
    for arguments, default in (({}, 10), ({"limit": None}, 10), ({}, None)):
        exc, value = raised(harness.int_arg, arguments, "limit", default)
        assert exc is None and exact(value, default, "what int_arg returned"), (
            f"int_arg({arguments!r}, 'limit', {default!r}) {did('int_arg', exc, value)}; "
            f"expected the default, {default!r}: an optional argument left out, or sent as "
            "null, is absent.")


def test_int_arg_returns_whole_numbers(harness):
    """int_arg gives back a whole number as it is, 0 and negative numbers included."""
    for number in (5, 0, -3):
        exc, value = raised(harness.int_arg, {"offset": number}, "offset", 1)
        assert exc is None and exact(value, number, "what int_arg returned"), (
            f"int_arg({{'offset': {number}}}, 'offset', 1) {did('int_arg', exc, value)}; "
            f"expected {number}.")


def test_int_arg_refuses_strings_and_fractions(harness):
    """A string like "5" or a fraction like 2.5 raises ValueError("offset must be an integer")."""
    for wrong in ("5", 2.5):
        exc, value = raised(harness.int_arg, {"offset": wrong}, "offset", 1)
        assert refused(exc, "offset must be an integer"), (
            f"int_arg({{'offset': {wrong!r}}}, 'offset', 1) {did('int_arg', exc, value)}; "
            "expected ValueError('offset must be an integer'): guessing what the model meant hides "
            "its mistake from it.")


def test_run_tool_gives_exactly_one_result_dict(harness):
    """run_tool returns the result dict: role, tool_call_id, tool_name, content and is_error."""
    call = lab.call("read", {"path": "config.py"}, id="call_7")
    result = safe_run_tool(harness, [files_tool(FILES)], call)
    expected = {"role": "toolResult", "tool_call_id": "call_7", "tool_name": "read",
                "content": "PORT = 9090\n", "is_error": False}
    assert exact(result, expected, "what run_tool returned"), (
        f"run_tool gave {gave(result, expected)}: exactly these five keys, answering "
        "the call by its id and name, with the tool's output as the content.")


def test_run_tool_answers_an_unknown_tool_with_an_error_result(harness):
    """A call to a tool that does not exist gets an error result, "Tool raed not found"."""
    call = lab.call("raed", {"path": "config.py"}, id="c1")
    result = safe_run_tool(harness, [files_tool(FILES)], call)
    expected = {"role": "toolResult", "tool_call_id": "c1", "tool_name": "raed",
                "content": "Tool raed not found", "is_error": True}
    assert exact(result, expected, "what run_tool returned"), (
        f"For a call to raed, which no tool is called, run_tool gave "
        f"{gave(result, expected)}.")


def test_run_tool_turns_any_exception_into_an_error_result(harness):
    """Whatever a tool raises, run_tool returns an error result holding the exception's message."""
    tools = [a_tool("check", refuse_the_path),
             a_tool("lookup", lambda arguments: arguments["key"]),
             a_tool("divide", lambda arguments: str(1 / 0))]
    for name, message in (("check", "bad path"), ("lookup", "'key'"),
                          ("divide", "division by zero")):
        result = safe_run_tool(harness, tools, lab.call(name, {}, id="c9"))
        got = ((result.get("content"), result.get("is_error")) if isinstance(result, dict)
               else result)
        assert exact(got, (message, True), "what run_tool returned"), (
            f"The {name} tool raised an exception whose message is {message!r}; run_tool gave "
            f"{result!r}, expected content {message!r} with is_error True.")


def test_run_tool_runs_the_tool_the_call_names(harness):
    """Each result comes from the tool its call names and answers that call's id and name."""
    tools = [a_tool("first", lambda arguments: "from first"),
             a_tool("second", lambda arguments: f"from second, {arguments['n']}")]
    for call, content in ((lab.call("second", {"n": 2}, id="x2"), "from second, 2"),
                          (lab.call("first", {}, id="x1"), "from first")):
        expected = {"tool_call_id": call["id"], "tool_name": call["name"], "content": content}
        result = safe_run_tool(harness, tools, call)
        got = {key: result.get(key) for key in ("tool_call_id", "tool_name", "content")}
        assert exact(got, expected, "what run_tool returned"), (
            f"For the call {call['id']} to {call['name']}, run_tool gave "
            f"{gave(got, expected)}.")
