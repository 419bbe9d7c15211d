"""The course's assignments as data: what each notebook says, shows, asks and grades.

An assignment is one nbgrader notebook. Its labs are the cells the student writes; each lab's
tests are split into groups, one graded cell per group, worth its group's `per_test` points
(one by default) for each test, visible and held back, and scored by the share of them that
pass. A group is named by a pattern over test names, and every test of a lab falls in exactly
one group.
The tests of earlier labs that a lab's `%%check` also runs ("still holds") are in no group:
they tell the student what broke, and a grade counts each test once, in its own lab.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, PositiveInt

from agentlab_magics.course.catalog import find_lab, labs
from agentlab_magics.course.lab_folder import NOTEBOOK
from agentlab_magics.course.lab_model import Lab


class Group(BaseModel):
    """The tests of one graded cell: those whose names match `match` (a regular expression),
    each worth `per_test` points."""

    id: str
    match: str
    per_test: PositiveInt = 1


class AssignedLab(BaseModel):
    """One lab inside an assignment: the text before its cell, the shapes and exact texts its
    tests compare against (shown before its cell, so nothing is learned by failing), and its
    graded groups."""

    lab: str
    text: str
    shapes: str = ""
    groups: list[Group]


class Demonstration(BaseModel):
    """A runnable demonstration: a paragraph, then the code that shows it."""

    text: str
    code: str


class Assignment(BaseModel):
    """One notebook: an introduction, questions, demonstrations, then the labs and grading."""

    id: str
    title: str
    intro: str
    demonstrations: list[Demonstration]
    labs: list[AssignedLab]
    files: list[Path] = []
    """Files the notebook reads, put beside it in the assignment's folder."""


# The patterns of lessons 3, 4 and 5, which checkpoint A's rebuild is graded by again.
LOOP_REQUESTS = "whole_list|callers_list|another_prompt|four_model_calls"
LOOP_CALLS = "call_labelled|two_calls"
LOOP_ENDING = "whatever_its_label|turn_count|one_call|final_reply"
TOOL_LOOP = "mistyped|three_calls"
FAILURES = "error_message|503|failed_reply|context_for_model|view"
TURN_LIMITS = "max_turns"

# What each lesson's tests compare a student's values with, key for key, shown in a markdown
# cell above the lab's cell (tests/course/test_lessons_show_demands.py reads the tests'
# demands and proves each one is shown there). A lesson shows the shapes of the ones before it.
MESSAGES = """\
Every message is a plain dict, and the tests compare yours with these key for key: a key
missing, added or spelt another way makes a different message.

```python
{"role": "user", "content": "What port does config.py use?"}   # content: the string typed
{"role": "assistant",                                          # a reply, as the model gives it
 "content": [{"type": "text", "text": "Let me look."},         # words
             {"type": "toolCall", "id": "c1", "name": "read",  # a call to run
              "arguments": {"path": "config.py"}}],
 "stop_reason": "toolUse"}     # "toolUse" over calls, "stop" over words only ("length", "error")
```"""
TOOL = """\
A tool is a dict: the model is told its `"name"`, `"description"` and `"parameters"` (a JSON
schema); `"execute"` is the function only your program runs, `tool["execute"](arguments)`.

```python
{"name": "read", "description": "Read a whole text file.",
 "parameters": {"type": "object", "required": ["path"],
                "properties": {"path": {"type": "string"}}},
 "execute": read_file}
```"""
RESULT = """\
Each call is answered by one toolResult, appended right after the reply, in call order:

```python
{"role": "toolResult", "tool_call_id": "c1", "tool_name": "read",  # the call's "id" and "name"
 "content": "PORT = 9090\\n", "is_error": False}                  # what execute returned
```"""
FAILED = """\
A provider that fails gives a reply with no words, labelled "error", the reason in its own key;
`error_message(text)` makes the same dict, and a run stopped by `max_turns` ends on
`error_message(f"Agent stopped after max_turns={max_turns}")`, which calls no model:

```python
{"role": "assistant", "content": [], "stop_reason": "error", "error_message": "503 overloaded"}
{"role": "assistant", "content": [], "stop_reason": "error",
 "error_message": "Agent stopped after max_turns=1"}
```

A failed reply is written down and returned, never raised; a call it holds is not run. An
exception the model raises (a dropped connection) is not a failed reply: let it reach the
caller, uncaught; lesson 7 tells a listener that such a run ended "raised"."""
EVENTS = """\
The events are plain dicts, each with a `"type"`. A run that reads one file, then answers,
tells these, in this order (`watch()` draws them; `help(watch)` lists them too):

```python
{"type": "run_start", "prompt": "Find the port."}      # first, before anything is appended
{"type": "message", "message": user_message}          # right after each append
{"type": "turn_start", "turn": 1}                      # each model call is a turn, from 1
{"type": "message", "message": reply}
{"type": "tool_start", "turn": 1, "call": call}        # before the tool runs
{"type": "tool_end", "turn": 1, "call": call, "result": result}  # once the result is appended
{"type": "message", "message": result}
{"type": "turn_end", "turn": 1}
{"type": "turn_start", "turn": 2}
{"type": "message", "message": answer}
{"type": "turn_end", "turn": 2}
{"type": "run_end", "reason": "done"}                  # last, exactly once, however it ends
```

The `"reason"` is "done" (a reply asked for nothing), "failed" (a failed reply: its turn still
ends), "max_turns" (the stop's reply is told as a message, with no turn: it calls no model) or
"raised" (an exception is on its way to the caller: tell run_end from a `finally`)."""


def shapes(*parts: str, heading: str = "What the tests compare") -> str:
    """The markdown above a lab's cell: a heading, then each of `parts`."""
    return "\n\n".join([f"### {heading}", *parts])


SETUP = """\
%load_ext agentlab_magics
from agentlab_magics import lab
from agentlab_magics.grading import grade"""

ASSIGNMENTS = [
    Assignment(
        id="lesson1", title="Lesson 1: the conversation is a list",
        intro="A model answers one request at a time and remembers nothing in between. "
              "Whatever it should know about the conversation so far has to travel inside the "
              "request. In this lesson you keep the conversation as a list of messages, one "
              "dict per message, and send all of it on every call.",
        demonstrations=[
            Demonstration(
                text="The same fake model, asked the same question twice: once with only the "
                     "new message, once with the whole conversation. `lab.forgetful()` answers "
                     "from what the request holds and nothing else.",
                code="""\
model = lab.ScriptedModel([lab.forgetful()])
only_new = [lab.user("What is my name?")]
whole = [lab.user("My name is Ada."), lab.say("Nice to meet you, Ada."), lab.user("What is my name?")]
print("only the new message:", lab.show([model.complete("You are helpful.", only_new, [])]))
print("the whole list:      ", lab.show([model.complete("You are helpful.", whole, [])]))"""),  # noqa: E501
        ],
        labs=[AssignedLab(
            lab="lesson1",
            text="Write `user_message`, `text_of` and `chat`. `chat` appends to the list it is "
                 "given, so the caller's list is the conversation; run the cell to check it.",
            shapes=shapes(MESSAGES, "`text_of` joins the `\"text\"` of every text block, in "
                          "order, and leaves the calls out: a reply of calls only has no words, "
                          "`\"\"`. `chat(model, system, messages, text)` appends the user's "
                          "message, sends `model.complete(system, messages, [])` and appends "
                          "and returns the reply.", heading="Message shapes"),
            groups=[Group(id="messages", match="user_message|text_of"),
                    Group(id="chat", match="chat")])],
    ),
    Assignment(
        id="lesson2", title="Lesson 2: tool calls and results",
        intro="A reply can ask for tools instead of, or as well as, saying something. Its "
              "content is a list of blocks: text blocks are words, toolCall blocks are "
              "requests to run a tool. Every call must be answered by exactly one toolResult, "
              "right after the reply, in the order the calls were made.",
        demonstrations=[
            Demonstration(
                text="Two calls answered in the wrong order. The strict provider's rules, "
                     "`lab.validate`, say what is wrong; `%transcript` draws it (hover or click "
                     "a call to find its result).",
                code="""\
c1 = lab.call("read", {"path": "a.py"}, id="c1")
c2 = lab.call("read", {"path": "b.py"}, id="c2")
swapped = [lab.user("Compare a.py and b.py."), lab.reply(lab.text("Checking both."), c1, c2),
           lab.tool_result(c2, "B = 2"), lab.tool_result(c1, "A = 1")]
print(lab.validate(swapped))"""),
            Demonstration(text="The same record as a diagram.", code="%transcript swapped"),
        ],
        labs=[AssignedLab(
            lab="lesson2",
            text="Write `tool_calls` (the calls of a reply, in order) and `tool_specs` (what the "
                 "model is told about each tool: everything but its function).",
            shapes=shapes(MESSAGES, TOOL),
            groups=[Group(id="tool-calls", match="tool_calls"),
                    Group(id="tool-specs", match="tool_specs")])],
    ),
    Assignment(
        id="lesson3", title="Lesson 3: the loop",
        intro="An agent is a loop: send the conversation, append the reply, run every call it "
              "asks for, append each result, and go round again until a reply asks for "
              "nothing. The loop decides by reading the reply's content, never its label.",
        demonstrations=[
            Demonstration(
                text="A reply that asks for a tool while its label says it is finished. A "
                     "loop that believed the label would stop here and leave the call "
                     "unanswered; the provider would refuse the next request.",
                code="""\
lying = lab.reply(lab.call("read", {"path": "config.py"}, id="c1"), stop_reason="stop")
left_behind = [lab.user("What port does config.py use?"), lying, lab.user("Well?")]
print(lab.validate(left_behind))"""),
            Demonstration(text="The record that loop leaves.", code="%transcript left_behind"),
        ],
        labs=[AssignedLab(
            lab="lesson3",
            text="Write `run_agent(model, system, messages, tools, prompt)`: append the prompt, "
                 "then loop until a reply asks for no tools, and return that reply.",
            shapes=shapes(MESSAGES, TOOL, RESULT, "Each request is "
                          "`model.complete(system, messages, tool_specs(tools))`, the whole list "
                          "as it stands."),
            groups=[Group(id="requests", match=LOOP_REQUESTS),
                    Group(id="calls", match=LOOP_CALLS),
                    Group(id="ending", match=LOOP_ENDING)])],
    ),
    Assignment(
        id="lesson4", title="Lesson 4: one call in, one result out",
        intro="Tools fail: a misspelt name, a missing argument, a file that is not there. None "
              "of that may leave a call without its result. `run_tool` is the one place where "
              "a failure becomes a result the model can read and act on.",
        demonstrations=[
            Demonstration(
                text="A call to a tool that does not exist, skipped by a loop that logs a "
                     "warning instead of answering it.",
                code="""\
typo = lab.call("raed", {"path": "config.py"}, id="c1")
skipped = [lab.user("What port does config.py use?"), lab.reply(typo), lab.user("Well?")]
print(lab.validate(skipped))
answered = [lab.user("What port does config.py use?"), lab.reply(typo),
            lab.tool_result(typo, "Tool raed not found", is_error=True)]
print(lab.validate(answered))"""),
        ],
        labs=[AssignedLab(
            lab="lesson4",
            text="Write `str_arg` and `int_arg` (arguments read and checked) and `run_tool` "
                 "(exactly one toolResult for every call, whatever happens).",
            shapes=shapes(MESSAGES, RESULT, """\
The exact texts: `str_arg(arguments, "path")` raises `ValueError("path must be a string")`
when the value is not a string; `int_arg(arguments, "limit", 100)` gives 100 when "limit"
is absent or None, and raises `ValueError("limit must be an integer")` when it is not a whole
number. A call to a tool you do not have is answered with
an error result, and a tool that raises with `str(exc)` as the content:

```python
{"role": "toolResult", "tool_call_id": "c1", "tool_name": "raed",
 "content": "Tool raed not found", "is_error": True}
```"""),
            groups=[Group(id="arguments", match="str_arg|int_arg"),
                    Group(id="run-tool", match="run_tool"),
                    Group(id="loop", match=TOOL_LOOP)])],
    ),
    Assignment(
        id="lesson5", title="Lesson 5: failures and limits",
        intro="Providers fall over and models refuse to stop. The record keeps what happened, "
              "failed replies included; the request sent to the model is computed from the "
              "record, leaving out what a provider cannot read. A turn limit stops a model "
              "that will not stop, and the run can go on later.",
        demonstrations=[
            Demonstration(
                text="An outage leaves an empty failed reply on the record. The request view "
                     "(toggle it in the diagram) strikes out what `context_for_model` leaves "
                     "out.",
                code="""\
outage = [lab.user("What port does config.py use?"), lab.fail("503 overloaded"),
          lab.user("Try again, please.")]
print(lab.validate(outage))"""),
            Demonstration(
                text="The record, drawn as the request.", code="%transcript outage --request"),
        ],
        labs=[AssignedLab(
            lab="lesson5",
            text="Write `error_message`, `context_for_model` and the final `run_agent`, with "
                 "`max_turns` and a provider failure written down instead of raised.",
            shapes=shapes(MESSAGES, RESULT, FAILED),
            groups=[Group(id="failures", match=FAILURES),
                    Group(id="limits", match=TURN_LIMITS)])],
    ),
    Assignment(
        id="lesson6", title="Lesson 6: the firehose",
        intro="A tool result is re-read, and paid for, on every later turn. Each result gets a "
              "budget of lines and bytes; a result cut to fit says where it stopped and how "
              "to read on, so the model can page through a big file by itself.",
        demonstrations=[
            Demonstration(
                text="The log the lesson's tests use: five thousand lines, with the line that "
                     "matters far past the first page.",
                code="""\
log = lab.big_log()
lines = log.splitlines()
print(len(lines), "lines,", len(log.encode()), "bytes")
print([number + 1 for number, line in enumerate(lines) if "def target" in line])"""),
        ],
        labs=[AssignedLab(
            lab="lesson6",
            text="Write `truncate_head`, `truncate_tail` and the `read`, `write` and `bash` "
                 "tools, each within its budget and saying what it left out.",
            shapes=shapes(MESSAGES, """\
Each tool tells the model its arguments in `"parameters"`, a JSON Schema object: each
argument's type is as here, the descriptions are yours to word:

```python
{"type": "object", "required": ["path"],                        # read
 "properties": {"path": {"type": "string", "description": "..."},
                "offset": {"type": "integer", "description": "..."},
                "limit": {"type": "integer", "description": "..."}}}
{"type": "object", "required": ["path", "content"],             # write
 "properties": {"path": {"type": "string", "description": "..."},
                "content": {"type": "string", "description": "..."}}}
{"type": "object", "required": ["command"],                     # bash
 "properties": {"command": {"type": "string", "description": "..."}}}
```""", """\
The exact texts the tools give (what is in braces is the value of the moment):

- read, cut to fit: the lines, then `[Showing lines {offset}-{last} of {total}. Use
  offset={last + 1} to continue.]`
- read, a first line over the byte budget: `[Line {offset} of {path} is {size} bytes, over
  the {max_bytes}-byte budget of one read, so none of it is shown. Use offset={offset + 1} to
  skip it.]` (the last sentence only where there is a next line)
- read refuses, with ValueError: `offset and limit must be 1 or more`; `offset {offset} is
  past the end of {path}: {count} lines`; and with FileNotFoundError: `File not found:
  {path}. Files here: {the names, joined by ", "}`
- write: `Successfully wrote to {path}.`
- bash, cut to fit: the last lines, then a line `[Showing the last {shown} of {total} lines.
  Narrow the command for more.]`; a non-zero exit adds a last line `Command exited with code
  {code}`"""),
            groups=[Group(id="truncate", match="truncate"),
                    Group(id="read", match="read_tool|line_2400"),
                    Group(id="write-and-bash", match="write_tool|bash_tool|describe")])],
    ),
    Assignment(
        id="checkpoint-a", title="Checkpoint A: six broken runs",
        intro="Six teammates' runs went wrong. For each, commit to a diagnosis before reading "
              "why; then rebuild the loop from an empty gap, and write the test that tells a "
              "correct loop from one that believes the label.",
        demonstrations=[
            Demonstration(
                text="Four runs of a finished harness: a typo, a firehose, a runaway and an "
                     "outage, each judged for whether its record can be sent again.",
                code="""\
from agentlab_magics import four_runs
records = four_runs.show()"""),
        ],
        labs=[
            AssignedLab(lab="checkpoint-a",
                 text="Rebuild `error_message`, `context_for_model` and `run_agent`. The tests "
                      "are those of lessons 3, 4 and 5.",
                 groups=[Group(id="names", match="three_names"),
                         Group(id="loop",
                               match="|".join([LOOP_REQUESTS, LOOP_CALLS, LOOP_ENDING])),
                         Group(id="tools", match=TOOL_LOOP),
                         Group(id="failures", match=f"{FAILURES}|{TURN_LIMITS}")]),
            AssignedLab(lab="checkpoint-a-test",
                 text="Write `script` and `check`: a script on which the two loops part "
                      "company, and one assert that holds for the reference loop only.",
                 groups=[Group(id="test", match=".")]),
        ],
    ),
    Assignment(
        id="lesson7", title="Lesson 7: show your work",
        intro="Every run so far printed nothing until it was over, and a job that is working "
              "looked just like one that had hung. `run_agent` now tells a listener each step "
              "as it happens: the run's start and end, each turn, each message as it goes on "
              "the record, and each tool call before and after it runs. Whoever listens must "
              "never be able to break the run.",
        demonstrations=[
            Demonstration(
                text="The finished loop of lesson 5 against a model that takes a second per "
                     "call: nothing to see until the run is over.",
                code="""\
import time
from agentlab_magics.reference.loops import reference as lesson5_loop

def slow(step):
    def answer(request):
        time.sleep(1)
        return step
    return answer

notes = {"name": "notes", "description": "Read the notes.",
         "parameters": {"type": "object", "properties": {}},
         "execute": lambda arguments: "The port is 9090."}
quiet = []
started = time.monotonic()
lesson5_loop(lab.ScriptedModel([slow(lab.reply(lab.call("notes"))),
                                slow(lab.say("The port is 9090."))]),
             "You are terse.", quiet, [notes], "What port?")
print(f"{time.monotonic() - started:.1f} s of silence, then:", lab.shape(quiet))"""),
        ],
        labs=[AssignedLab(
            lab="lesson7",
            text="Write `emit(listener, event)` and `run_agent(..., listener=None)`: tell every "
                 "step as it happens, end every run with exactly one `run_end`, and let no "
                 "listener stop a run.",
            shapes=shapes(MESSAGES, RESULT, FAILED, EVENTS, heading="Message and event shapes"),
            groups=[Group(id="order", match="in_order|run_start|every_message|two_calls"
                                             "|second_run"),
                    Group(id="tools", match="tool_start|tool_that_raises"),
                    Group(id="endings", match="failed_reply|max_turns|model_that_raises"
                                              "|listener_that_fails|emit")])],
    ),
    Assignment(
        id="ch03-a", title="Chapter 3, unit A: admit the next model call",
        intro="Every model call costs money and time, so a bounded loop asks before each "
              "attempt whether it may begin: first the call count, then the estimated cost. "
              "Landing exactly on the budget is allowed; going past it is not.",
        demonstrations=[
            Demonstration(
                text="The unit's runtime: a scripted model, the shop's tools behind a strict "
                     "dispatcher, and the limits every attempt is admitted under.",
                code="""\
from agentlab_magics.bounded import Limits, ScriptedModel, describe, run_loop, scripted_turn
from agentlab_magics.bounded.shop import SHOP, build_tools

turns = [scripted_turn(calls=[{"name": "list_stock", "arguments": {}}]),
         scripted_turn("Vanilla and strawberry are below their reorder points.")]
messages = [{"role": "system", "content": "Use the stock tools. Never purchase."},
            {"role": "user", "content": "What needs ordering?"}]
print(describe(run_loop(ScriptedModel(turns), build_tools(SHOP), messages, limits=Limits()),
               "scripted"))
print(describe(run_loop(ScriptedModel(turns), build_tools(SHOP), messages,
                        limits=Limits(model_calls=1)), "scripted"))"""),
        ],
        labs=[
            AssignedLab(lab="ch03-a",
                 text="Write `decide_admission(case)`: CALL, MODEL_CALL_LIMIT or "
                      "MODEL_COST_LIMIT.",
                 groups=[Group(id="admission", match=".")]),
            AssignedLab(lab="ch03-a-transfer",
                 text="The same rule where the next attempt's estimate varies: write "
                      "`transfer_check(state)`.",
                 groups=[Group(id="transfer", match=".")]),
        ],
    ),
    Assignment(
        id="ch03-b", title="Chapter 3, unit B: charge at admission",
        intro="Unit B investigates a controlled failure. Someone moved the charge after the "
              "provider call, to charge only for attempts that worked. A provider that keeps "
              "failing now looks free, and the budget no longer bounds anything.",
        demonstrations=[
            Demonstration(
                text="The moved charge, run against a provider that always fails, with a fixed "
                     "outer bound of ten attempts so the experiment cannot run away. The "
                     "lab's tests expose it: every one of them fails.",
                code="""\
%%check ch03-b
""" + find_lab("ch03-b").starter.rstrip() + """


def always_down():
    raise RuntimeError("503 provider unavailable")


print(attempt(always_down, max_attempts=10, call_cost=2, budget=6)["events"])"""),
        ],
        labs=[AssignedLab(
            lab="ch03-b",
            text="Repair `attempt`: charge each attempt when it is admitted, before the provider "
                 "is called, so failed attempts count against the budget too.",
            groups=[Group(id="charge", match=".")])],
    ),
]


def assignments() -> list[Assignment]:
    """Every assignment: the built-in course's, then one per lab of the course packs."""
    return [*ASSIGNMENTS, *(pack_assignment(lab) for lab in labs().values()
                            if not lab.built_in)]


def pack_assignment(lab: Lab) -> Assignment:
    """A pack lab's assignment, from its folder: notebook.md's `# ` title line (else the
    lab's title), then its text; each ```python block with the paragraph before it (or, past
    the first, all the text since the block before) is a demonstration, the text before
    them the introduction, and the text after the last block goes above the lab's cell.
    Graded by lab.toml's groups (one group of every test when it names none)."""
    path = lab.folder / NOTEBOOK
    written = path.read_text(encoding="utf-8") if path.is_file() else ""
    title, _, body = written.partition("\n") if written.startswith("# ") else ("", "", written)
    parts = re.split(r"^```python\n(.*?)^```[ \t]*$", body, flags=re.S | re.M)
    texts, codes = [part.strip() for part in parts[::2]], parts[1::2]
    intro = ""
    if codes:
        intro, _, texts[0] = texts[0].rpartition("\n\n")
    asked = "; ".join(f"`{name}` {purpose}" for name, purpose in lab.purposes.items())
    return Assignment(
        id=lab.id, title=title[2:].strip() or lab.title, intro=intro.strip(),
        demonstrations=[Demonstration(text=text, code=code.rstrip())
                        for text, code in zip(texts[:-1], codes)],
        labs=[AssignedLab(lab=lab.id, text=texts[-1] or f"Write {asked}.",
                          groups=[Group(**group) for group in lab.groups]
                          or [Group(id="tests", match=".")])],
        files=[lab.folder / name for name in lab.files])


def find_assignment(assignment_id: str) -> Assignment:
    """The assignment `assignment_id`, or LookupError naming the ones there are."""
    every = assignments()
    for assignment in every:
        if assignment.id == assignment_id:
            return assignment
    known = ", ".join(a.id for a in every)
    raise LookupError(f"There is no assignment called {assignment_id!r}. They are: {known}.")
