"""shape, show, diff, drive, Workspace, Shell and big_log."""

import asyncio

from agentlab_instructor.reference import harness
from agentlab_magics import lab


def test_shape_and_show_formats():
    c1 = lab.call("read", {"path": "config.py"}, id="c1")
    messages = [lab.user("Find the port."), lab.reply(c1), lab.tool_result(c1, "PORT = 9090\n"),
                lab.fail("503 overloaded"), lab.say("The port is 9090.")]
    assert lab.shape(messages) == "U A[c1] R(c1) A(error) A"
    assert lab.show(messages).splitlines() == [
        'user -> "Find the port."',
        'assistant -> toolCall c1 read({"path": "config.py"})',
        'toolResult c1 -> "PORT = 9090\\n"',
        "assistant -> (nothing)  [error: 503 overloaded]",
        'assistant -> "The port is 9090."',
    ]
    assert lab.shape([]) == "" and lab.shape([42, {"role": "x"}]) == "? ?"


def test_show_shortens_long_strings_and_marks_errors():
    c1 = lab.call("read", id="c1")
    line = lab.show([lab.tool_result(c1, "x" * 500, is_error=True)])
    assert line.startswith('toolResult c1 -> error: "xxx') and "(+400 chars)" in line


def test_show_draws_arguments_json_cannot_hold_by_their_type():
    looped = {}
    looped["self"] = looped

    class Liar:
        def __eq__(self, other):
            return True

    lines = [lab.show([lab.reply(lab.call("read", arguments, id="c1"))])
             for arguments in (looped, {(1, 2): "tuple key"}, {"path": Liar()})]
    assert lines == ["assistant -> toolCall c1 read(<dict object>)",
                     "assistant -> toolCall c1 read(<dict object>)",
                     'assistant -> toolCall c1 read({"path": "<Liar object>"})']


def test_diff_marks_what_got_and_expected_hold():
    got = [lab.user("u")]
    expected = [lab.user("u"), lab.say("answer")]
    assert lab.diff(got, expected).splitlines()[-2:] == [' user -> "u"', '+assistant -> "answer"']
    assert lab.diff(got, got) == "(no difference)"


def test_drive_settles_plain_values_and_awaitables():
    async def later():
        return [lab.say("x")]

    assert asyncio.run(lab.drive(5)) == 5
    assert asyncio.run(lab.drive(later())) == [lab.say("x")]


def test_workspace_records_reads_and_lists_names():
    ws = lab.Workspace({"config.py": "PORT = 1\n", "src/a.py": "", "./b.txt": "b"})
    assert ws.listdir(".") == ["b.txt", "config.py", "src/"] and ws.listdir("src") == ["a.py"]
    ws.read_text("config.py")
    ws.read_text("./config.py")
    assert ws.reads == ["config.py", "config.py"]
    ws.write_text("new.txt", "n")
    assert ws.exists("new.txt") and ws.writes == ["new.txt"]


def test_shell_answers_from_its_script():
    shell = lab.Shell({"pytest": ("1 failed\n", 1), "ls": "a.py\n", "echo hi": lambda c: ("hi\n", 0)})
    assert shell.run("pytest") == ("1 failed\n", 1)
    assert shell.run("ls") == ("a.py\n", 0)
    assert shell.run("echo hi") == ("hi\n", 0)
    assert shell.run("rm -rf /") == ("bash: rm: command not found\n", 127)
    assert shell.commands == ["pytest", "ls", "echo hi", "rm -rf /"]


def test_big_log_is_cut_by_the_budget_where_the_page_says():
    log = lab.big_log()
    lines = log.splitlines()
    assert len(lines) == 5000 and "def target" in lines[2399]
    assert sum("def target" in line for line in lines) == 1
    assert harness.truncate_head(log)[1] == 1785
    assert harness.truncate_head("".join(log.splitlines(keepends=True)[1785:]))[1] == 1786
