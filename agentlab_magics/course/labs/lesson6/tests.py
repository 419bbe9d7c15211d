"""Lesson 6, the firehose: budgets of whole lines and bytes, and tools that say where they stop."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, message_of, plain, run, said, told

BIG_LOG_NOTICE = "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]"


def numbered(count, word="line"):
    """`count` short lines, "line 01" to "line NN", each ending in a newline."""
    return "".join(f"{word} {number:02d}\n" for number in range(1, count + 1))


def made(tool, maker):
    """The tool `maker` made, once proven a dict of plain data but for its execute function."""
    described = ({key: value for key, value in tool.items() if key != "execute"}
                 if type(tool) is dict else tool)
    plain(described, f"the tool {maker} made")
    return tool


def read_tool(harness, ws, **budgets):
    """The student's read tool over `ws`, proven as `made` says."""
    return made(harness.make_read_tool(ws, **budgets), "make_read_tool")


def write_tool(harness, ws):
    """The student's write tool over `ws`, proven as `made` says."""
    return made(harness.make_write_tool(ws), "make_write_tool")


def bash_tool(harness, shell, **budgets):
    """The student's bash tool over `shell`, proven as `made` says."""
    return made(harness.make_bash_tool(shell, **budgets), "make_bash_tool")


def model_sees(tool, arguments):
    """(content, is_error) as the model would read it: a raised exception becomes its message.
    Either is proven plain data before anything reads it."""
    try:
        content, failed = tool["execute"](arguments), False
    except Exception as exc:
        content, failed = message_of(exc), True
    what = "the message the tool raised" if failed else "what the tool returned"
    return plain(content, what), failed


def words(text):
    """The lines of `text` that are not blank."""
    return [line for line in text.splitlines() if line.strip()]


# -- truncate_head and truncate_tail --

def test_truncate_head_keeps_whole_lines_only(harness):
    """truncate_head keeps only whole lines: a line that does not fit is left out entirely."""
    text = "alpha\nbravo\ncharlie\n"
    got = harness.truncate_head(text, max_lines=100, max_bytes=15)
    assert exact(got, ("alpha\nbravo\n", 2), "what truncate_head returned"), (
        f"truncate_head({text!r}, max_bytes=15) gave {got!r}; expected ('alpha\\nbravo\\n', 2): "
        "the first two lines take 12 bytes, and 'charlie\\n' would take it to 20, so it is left "
        "out whole rather than cut in the middle.")


def test_truncate_head_fills_the_budget_exactly(harness):
    """A line that ends exactly on the byte budget still fits, and is kept; one byte less of
    budget and it is left out."""
    text = "alpha\nbravo\ncharlie\n"
    got = harness.truncate_head(text, max_lines=100, max_bytes=12)
    assert exact(got, ("alpha\nbravo\n", 2), "what truncate_head returned"), (
        f"truncate_head({text!r}, max_bytes=12) gave {got!r}; expected ('alpha\\nbravo\\n', 2): "
        "those two lines are exactly 12 bytes, which is within a budget of 12.")
    got = harness.truncate_head(text, max_lines=100, max_bytes=11)
    assert exact(got, ("alpha\n", 1), "what truncate_head returned"), (
        f"truncate_head({text!r}, max_bytes=11) gave {got!r}; expected ('alpha\\n', 1): the "
        "first two lines are 12 bytes, one more than a budget of 11.")


def test_truncate_head_counts_bytes_not_characters(harness):
    """The byte budget counts UTF-8 bytes, so "é" counts as two."""
    text = "été\n" * 4
    got = harness.truncate_head(text, max_lines=100, max_bytes=16)
    assert exact(got, ("été\nété\n", 2), "what truncate_head returned"), (
        f"truncate_head('été\\n' * 4, max_bytes=16) gave {got!r}; "
        "expected ('été\\nété\\n', 2): "
        "each line is 4 characters but 6 bytes in UTF-8, so only two fit in 16 bytes. "
        "Measure len(line.encode('utf-8')), not len(line).")


def test_truncate_head_keeps_nothing_when_the_first_line_is_too_big(harness):
    """If the very first line is over the byte budget, truncate_head keeps nothing: ("", 0)."""
    text = "x" * 80 + "\nshort\n"
    got = harness.truncate_head(text, max_lines=100, max_bytes=50)
    assert exact(got, ("", 0), "what truncate_head returned"), (
        f"truncate_head of an 81-byte first line with max_bytes=50 gave {got!r:.120}; expected "
        "('', 0): a line that does not fit is not shown, not even the first one, and not in "
        "part.")


def test_truncate_head_stops_at_the_line_budget(harness):
    """truncate_head keeps at most max_lines lines, and a text that fits comes back whole."""
    got = harness.truncate_head(numbered(10), max_lines=3, max_bytes=10_000)
    assert exact(got, (numbered(3), 3), "what truncate_head returned"), (
        f"truncate_head of ten lines with max_lines=3 gave {got!r}; expected "
        f"({numbered(3)!r}, 3).")
    got = harness.truncate_head("one\ntwo", max_lines=3, max_bytes=10_000)
    assert exact(got, ("one\ntwo", 2), "what truncate_head returned"), (
        f"truncate_head('one\\ntwo', max_lines=3) gave {got!r}; expected ('one\\ntwo', 2): "
        "a text within budget comes back exactly as it was, last line and all.")


def test_truncate_head_budgets_default_to_max_lines_and_max_bytes(harness):
    """Without budgets, truncate_head uses MAX_LINES lines and MAX_BYTES bytes."""
    log = lab.big_log()
    got = plain(harness.truncate_head(log), "what truncate_head returned")
    kept, shown = got
    assert exact(got, ("".join(log.splitlines(keepends=True)[:1785]), 1785),
                 "what truncate_head returned"), (
        f"truncate_head(lab.big_log()) kept {shown} lines; expected the first 1785, which is "
        "as many whole lines as fit in MAX_BYTES = 50,000 bytes.")
    got = plain(harness.truncate_head("x\n" * 2500), "what truncate_head returned")
    kept, shown = got
    assert exact(got, ("x\n" * 2000, 2000), "what truncate_head returned"), (
        f"truncate_head of 2,500 two-byte lines kept {shown}; expected 2000, MAX_LINES.")


def test_truncate_tail_keeps_the_end(harness):
    """truncate_tail keeps the last lines that fit, where a command's verdict is."""
    got = harness.truncate_tail(numbered(10), max_lines=3, max_bytes=10_000)
    expected = ("line 08\nline 09\nline 10\n", 3)
    assert exact(got, expected, "what truncate_tail returned"), (
        f"truncate_tail of ten lines with max_lines=3 gave {got!r}; expected {expected!r}: "
        "the last three lines, in their own order.")


def test_truncate_tail_counts_bytes_and_keeps_whole_lines(harness):
    """truncate_tail measures UTF-8 bytes too, and keeps only whole lines from the end."""
    text = "ok\n" + "été\n" * 3
    got = harness.truncate_tail(text, max_lines=100, max_bytes=14)
    assert exact(got, ("été\nété\n", 2), "what truncate_tail returned"), (
        f"truncate_tail({text!r}, max_bytes=14) gave {got!r}; expected ('été\\nété\\n', 2): "
        "each 'été' line is 6 bytes, so two whole lines from the end fit in 14.")
    got = harness.truncate_tail("ok\n" + "x" * 80 + "\n", max_lines=100, max_bytes=50)
    assert exact(got, ("", 0), "what truncate_tail returned"), (
        f"truncate_tail with a last line of 81 bytes and max_bytes=50 gave {got!r:.120}; "
        "expected ('', 0): the last line does not fit, so nothing does.")


# -- the read tool --

def test_read_tool_gives_a_small_file_whole(harness):
    """Reading a file that fits the budget gives its exact contents, with no notice."""
    ws = lab.Workspace({"a.txt": "one\ntwo\n"})
    got = model_sees(read_tool(harness, ws), {"path": "a.txt"})
    assert exact(got, ("one\ntwo\n", False), "what the read tool gave"), (
        f"Reading a.txt ('one\\ntwo\\n') gave {got!r}; expected the file exactly, "
        "not flagged as an error.")
    got = model_sees(read_tool(harness, lab.Workspace({"e.txt": ""})), {"path": "e.txt"})
    assert exact(got, ("", False), "what the read tool gave"), (
        f"Reading the empty file e.txt gave {got!r}; expected '', not flagged as an error: an "
        "empty file has nothing to show, and nothing is past its end at line 1.")


def test_read_tool_says_where_the_first_page_stops(harness):
    """Reading big.log stops at the budget and ends with a notice naming where to go on."""
    log = lab.big_log()
    content, failed = model_sees(read_tool(harness, lab.Workspace({"big.log": log})),
                                 {"path": "big.log"})
    page = "".join(log.splitlines(keepends=True)[:1785])
    assert exact((content, failed), (page + BIG_LOG_NOTICE, False), "what the read tool gave"), (
        f"Reading big.log ended with {content.splitlines()[-1] if content else content!r} after "
        f"{len(content.splitlines())} lines; expected lines 1-1785 and then the line "
        f"{BIG_LOG_NOTICE!r}, so the model knows the file goes on.")


def test_read_tool_reads_on_from_an_offset(harness):
    """Reading big.log from offset 1786 gives the second page, lines 1786-3571, with its notice."""
    log = lab.big_log()
    content, _ = model_sees(read_tool(harness, lab.Workspace({"big.log": log})),
                            {"path": "big.log", "offset": 1786})
    notice = "[Showing lines 1786-3571 of 5000. Use offset=3572 to continue.]"
    page = "".join(log.splitlines(keepends=True)[1785:3571])
    assert exact(content, page + notice, "what the read tool gave"), (
        f"Reading big.log from offset 1786 began {content.splitlines()[0] if content else ''!r} "
        f"and ended {content.splitlines()[-1] if content else ''!r}; expected lines 1786-3571 "
        f"and then {notice!r}.")


def test_a_model_finds_line_2400_by_following_the_notice(harness, record):
    """A model that follows the notice finds `def target` on line 2,400 of big.log."""
    tool = read_tool(harness, lab.Workspace({"big.log": lab.big_log()}))
    model, messages, final = run(harness, [lab.pager("def target")], tools=[tool],
                                 prompt="Is there a `def target` in big.log?", record=record)
    answer = lab.show(messages[-1:])
    assert exact(final, lab.say("`def target` is on line 2400 of big.log."),
                 "what run_agent returned") and len(model.calls) == 3, (
        f"The run ended on {answer} after {said(model, messages)}; expected two reads and the "
        "answer that `def target` is on line 2400: the model can only ask for the next page "
        "if the first one says there is one.")


def test_read_tool_takes_offset_and_limit(harness):
    """offset is the first line to read, from 1, and limit how many lines to read."""
    tool = read_tool(harness, lab.Workspace({"ten.txt": numbered(10)}))
    content, _ = model_sees(tool, {"path": "ten.txt", "offset": 3, "limit": 2})
    expected = "line 03\nline 04\n[Showing lines 3-4 of 10. Use offset=5 to continue.]"
    assert exact(content, expected, "what the read tool gave"), (
        f"Reading ten.txt with offset=3, limit=2 gave {content!r}; expected {expected!r}.")
    content, _ = model_sees(tool, {"path": "ten.txt", "offset": 3, "limit": 1})
    expected = "line 03\n[Showing lines 3-3 of 10. Use offset=4 to continue.]"
    assert exact(content, expected, "what the read tool gave"), (
        f"Reading ten.txt with offset=3, limit=1 gave {content!r}; expected {expected!r}: a "
        "limit of 1 reads one line.")
    content, _ = model_sees(tool, {"path": "ten.txt", "offset": 9})
    assert exact(content, "line 09\nline 10\n", "what the read tool gave"), (
        f"Reading ten.txt from offset=9 gave {content!r}; expected 'line 09\\nline 10\\n': "
        "the read reaches the end of the file, so there is nothing more to point to.")


def test_read_tool_explains_a_line_over_the_budget(harness):
    """A line too big for one read is not shown: the notice gives its size and the way past it."""
    text = "short\n" + "x" * 200 + "\nend\n"
    tool = read_tool(harness, lab.Workspace({"min.js": text}), max_bytes=100)
    content, _ = model_sees(tool, {"path": "min.js", "offset": 2})
    expected = ("[Line 2 of min.js is 201 bytes, over the 100-byte budget of one read, so none "
                "of it is shown. Use offset=3 to skip it.]")
    assert exact(content, expected, "what the read tool gave"), (
        f"Reading min.js from line 2, which is 201 bytes, with max_bytes=100 gave "
        f"{content!r:.160}; expected {expected!r}.")


def test_read_tool_over_budget_last_line_has_nothing_to_skip_to(harness):
    """When the line too big to show is the last one, the notice offers no offset to skip to."""
    text = "short\n" + "x" * 200 + "\n"
    tool = read_tool(harness, lab.Workspace({"min.js": text}), max_bytes=100)
    content, _ = model_sees(tool, {"path": "min.js", "offset": 2})
    expected = ("[Line 2 of min.js is 201 bytes, over the 100-byte budget of one read, so none "
                "of it is shown.]")
    assert exact(content, expected, "what the read tool gave"), (
        f"Reading the last line of min.js, 201 bytes, with max_bytes=100 gave {content!r:.160}; "
        f"expected {expected!r}: there is no line 3 to skip to.")


def test_read_tool_refuses_an_offset_past_the_end(harness):
    """An offset past the last line is an error that says how many lines the file has."""
    tool = read_tool(harness, lab.Workspace({"a.txt": "one\ntwo\n"}))
    got = model_sees(tool, {"path": "a.txt", "offset": 9})
    expected = ("offset 9 is past the end of a.txt: 2 lines", True)
    assert exact(got, expected, "what the read tool gave"), (
        f"Reading a.txt (2 lines) from offset 9 gave {got!r}; expected the error {expected[0]!r}, "
        "raised, so the result is flagged and the model knows where the file ends.")
    got = model_sees(read_tool(harness, lab.Workspace({"e.txt": ""})), {"path": "e.txt",
                                                                        "offset": 2})
    expected = ("offset 2 is past the end of e.txt: 0 lines", True)
    assert exact(got, expected, "what the read tool gave"), (
        f"Reading the empty file e.txt from offset 2 gave {got!r}; expected the error "
        f"{expected[0]!r}: only offset 1 reads an empty file.")


def test_read_tool_refuses_offset_or_limit_below_one(harness):
    """An offset or limit below 1 is an error: "offset and limit must be 1 or more"."""
    tool = read_tool(harness, lab.Workspace({"a.txt": "one\ntwo\n"}))
    for arguments in ({"path": "a.txt", "offset": 0}, {"path": "a.txt", "limit": 0},
                      {"path": "a.txt", "offset": -2}):
        got = model_sees(tool, arguments)
        assert exact(got, ("offset and limit must be 1 or more", True),
                     "what the read tool gave"), (
            f"Reading with {arguments} gave {got!r}; expected the error "
            "'offset and limit must be 1 or more': lines are counted from 1.")


def test_read_tool_names_the_files_there_are(harness):
    """Reading a file that does not exist is an error naming the files that do."""
    tool = read_tool(harness, lab.Workspace({"a": "1\n", "b": "2\n"}))
    got = model_sees(tool, {"path": "x"})
    expected = ("File not found: x. Files here: a, b", True)
    assert exact(got, expected, "what the read tool gave"), (
        f"Reading x, which does not exist, gave {got!r}; expected the error {expected[0]!r}, "
        "so the model can pick a file that is there.")


def test_read_tool_checks_its_arguments(harness):
    """A path that is not a string, or an offset that is not a whole number, is an error."""
    tool = read_tool(harness, lab.Workspace({"a.txt": "one\ntwo\n"}))
    for arguments, message in (({"path": 5}, "path must be a string"),
                               ({"path": "a.txt", "offset": "2"}, "offset must be an integer")):
        got = model_sees(tool, arguments)
        assert exact(got, (message, True), "what the read tool gave"), (
            f"Reading with {arguments} gave {got!r}; expected the error {message!r}, from "
            "str_arg and int_arg.")


# -- the write tool --

def test_write_tool_writes_exactly_the_content(harness):
    """The write tool says "Successfully wrote to PATH." and the file holds just the content."""
    ws = lab.Workspace({"notes.txt": "an old line that is much longer\n"})
    tool = write_tool(harness, ws)
    content = "PORT = 9090\nHOST = é.example\n"
    got = model_sees(tool, {"path": "notes.txt", "content": content})
    assert exact(got, ("Successfully wrote to notes.txt.", False), "what the write tool gave"), (
        f"Writing notes.txt gave {got!r}; expected 'Successfully wrote to notes.txt.'")
    assert exact(ws.files.get("notes.txt"), content, "what the write tool wrote"), (
        f"After the write, notes.txt holds {ws.files.get('notes.txt')!r}; expected exactly "
        f"{content!r}: the new contents replace the old ones whole.")


def test_write_tool_refuses_content_that_is_not_a_string(harness):
    """Content that is not a string is an error, and nothing is written."""
    ws = lab.Workspace({})
    got = model_sees(write_tool(harness, ws), {"path": "n.txt", "content": 5})
    assert exact(got, ("content must be a string", True), "what the write tool gave") and (
            "n.txt" not in ws.files), (
        f"Writing the content 5 gave {got!r} and left the files {sorted(ws.files)}; expected "
        "the error 'content must be a string' and no file written.")


# -- the bash tool --

def test_bash_tool_keeps_the_tail_of_long_output(harness):
    """Long command output keeps its last lines and says how many of how many it shows."""
    output = numbered(50, "step") + "BUILD OK\n"
    tool = bash_tool(harness, lab.Shell({"make": output}), max_lines=10)
    content, _ = model_sees(tool, {"command": "make"})
    expected = words(output)[-10:] + [
        "[Showing the last 10 of 51 lines. Narrow the command for more.]"]
    assert exact(words(content), expected, "what the bash tool gave"), (
        f"make printed 51 lines ending 'BUILD OK'; with max_lines=10 the bash tool gave "
        f"{words(content)}; expected the last 10 lines and then the line {expected[-1]!r}.")


def test_bash_tool_reports_a_non_zero_exit_code(harness):
    """A command that fails ends its result with "Command exited with code N"."""
    output = numbered(20, "test") + "1 failed\n"
    tool = bash_tool(harness, lab.Shell({"pytest": (output, 1)}), max_lines=5)
    content, _ = model_sees(tool, {"command": "pytest"})
    lines = words(content)
    assert exact(lines[-1:], ["Command exited with code 1"], "what the bash tool gave") and (
            "1 failed" in lines), (
        f"pytest printed '1 failed' and exited 1; the bash tool gave {lines}; expected the "
        "tail of the output and a last line 'Command exited with code 1'.")


def test_bash_tool_adds_nothing_to_a_command_that_succeeds(harness):
    """A command that exits 0 with short output gives exactly what it printed."""
    tool = bash_tool(harness, lab.Shell({"ls": "a.txt\nb.txt\n"}))
    got = model_sees(tool, {"command": "ls"})
    assert exact(got, ("a.txt\nb.txt\n", False), "what the bash tool gave"), (
        f"ls printed 'a.txt\\nb.txt\\n' and exited 0; the bash tool gave {got!r}; expected "
        "exactly that output: no exit-code line and no notice.")


def test_bash_tool_failing_command_is_an_ordinary_result(harness):
    """A command that fails is not a tool failure: its result is an ordinary string."""
    tool = bash_tool(harness, lab.Shell({"grep PORT x.py": ("grep: x.py: No such file\n", 2)}))
    try:
        content = tool["execute"]({"command": "grep PORT x.py"})
    except Exception as exc:
        raise AssertionError(
            f"The bash tool raised {told(exc)} for a command that exited 2; "
            "expected it to return the output and the exit-code line: the command ran, and "
            "its exit code is part of what happened.") from None
    plain(content, "what the bash tool returned")
    assert isinstance(content, str) and "Command exited with code 2" in content, (
        f"The bash tool returned {content!r}; expected a string holding the output and "
        "'Command exited with code 2'.")


# The type of each argument the tools take, in JSON Schema's words.
ARGUMENT_TYPES = {"path": "string", "offset": "integer", "limit": "integer",
                  "content": "string", "command": "string"}


def test_the_tools_describe_themselves(harness):
    """The tools are called read, write and bash, and each tells the model its arguments."""
    ws, shell = lab.Workspace({}), lab.Shell({})
    for tool, name, required, known in (
            (read_tool(harness, ws), "read", ["path"], ["path", "offset", "limit"]),
            (write_tool(harness, ws), "write", ["path", "content"], ["path", "content"]),
            (bash_tool(harness, shell), "bash", ["command"], ["command"])):
        parameters = tool.get("parameters", {})
        assert exact(tool.get("name"), name, f"the name of the {name} tool") and callable(
                tool.get("execute")), (
            f"The {name} tool is called {tool.get('name')!r}; expected {name!r}, "
            "with an execute function.")
        assert isinstance(tool.get("description"), str) and tool["description"], (
            f"The {name} tool has no description: the model reads it to know what the tool does.")
        properties = sorted(parameters.get("properties", {}))
        assert exact(sorted(parameters.get("required", [])), sorted(required),
                     f"what the {name} tool requires") and exact(
                properties, sorted(known), f"the properties of the {name} tool"), (
            f"The {name} tool's parameters are {parameters!r}; expected the properties "
            f"{known}, of which {required} are required.")
        types = {key: schema.get("type") if isinstance(schema, dict) else schema
                 for key, schema in parameters["properties"].items()}
        expected = {key: ARGUMENT_TYPES[key] for key in known}
        assert exact(parameters.get("type"), "object",
                     f"the type of the {name} tool's parameters") and exact(
                types, expected, f"the {name} tool's argument types"), (
            f"The {name} tool's parameters are of type {parameters.get('type')!r} with arguments "
            f"of types {types}; expected an \"object\" whose arguments are of types {expected}: "
            "the types tell the model what to send.")
