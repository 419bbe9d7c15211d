"""Lesson 4's held-back tests: errors that name any argument, and three calls, each going wrong
its own way."""

from agentlab_labs.lesson4.tests import a_tool, did, loop_needs_run_tool, raised, refused
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, files_tool, run, said


def refuse_to_deploy(arguments):
    raise PermissionError("deploy needs the admin role")


def test_str_arg_and_int_arg_name_the_argument_in_their_errors(harness):
    """str_arg and int_arg name the argument they were asked about, whatever it is called."""
    for name, arguments, message in (
            ("str_arg", ({"command": 3}, "command"), "command must be a string"),
            ("str_arg", ({"query": None}, "query"), "query must be a string"),
            ("int_arg", ({"limit": "ten"}, "limit", 20), "limit must be an integer"),
            ("int_arg", ({"depth": 1.5}, "depth", 2), "depth must be an integer")):
        exc, value = raised(getattr(harness, name), *arguments)
        assert refused(exc, message), (
            f"{name}{arguments!r} {did(name, exc, value)}; "
            f"expected ValueError({message!r}): the error names the argument that was wrong, "
            "so the model knows which one to put right.")


def test_three_calls_to_working_missing_and_raising_tools_get_three_results(harness, record):
    """A reply calls a working tool, a missing one and one that raises: three results, in order."""
    loop_needs_run_tool(harness)
    tools = [files_tool({"setup.cfg": "[app]\nport = 8181\n"}), a_tool("deploy", refuse_to_deploy)]
    model, messages, _ = run(harness, [
        lab.reply(lab.call("read", {"path": "setup.cfg"}), lab.call("lint", {}),
                  lab.call("deploy", {"target": "prod"})),
        lab.say("The port is 8181; I could not deploy.")], tools=tools, record=record)
    assert lab.shape(messages) == "U A[c1,c2,c3] R(c1) R(c2) R(c3) A", (
        f"Three calls, to read, to lint (no such tool) and to deploy (which raises): the run made "
        f"{said(model, messages)}; expected 'U A[c1,c2,c3] R(c1) R(c2) R(c3) A'.")
    results = [(m["content"], m["is_error"]) for m in messages if m["role"] == "toolResult"]
    expected = [("[app]\nport = 8181\n", False), ("Tool lint not found", True),
                ("deploy needs the admin role", True)]
    assert exact(results, expected, "the results"), (
        f"The results hold {results}; expected {expected}: the file, then an error for the "
        "tool that does not exist, then the message of what deploy raised.")
