"""Messages the widget tests share: the page's one turn, its broken arrangements, hostile text."""

from __future__ import annotations

from agentlab_magics import lab

C1 = lab.call("read", {"path": "a.py"}, id="c1")
C2 = lab.call("read", {"path": "b.py"}, id="c2")
U = lab.user("Read a.py and b.py.")
A = lab.reply(C1, C2)
R1 = lab.tool_result(C1, "A = 1\n")
R2 = lab.tool_result(C2, "B = 2\n")
FAILED = lab.fail("503 overloaded")

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
HOSTILE = f"{SCRIPT} {IMG}"


def hostile_messages() -> list[dict]:
    """A run in which a student, a model and a tool each put markup where text belongs."""
    call = lab.call("write", {"path": HOSTILE, "content": HOSTILE}, id="c1")
    return [
        lab.user(f"Please {HOSTILE}"),
        lab.reply(f"Sure {HOSTILE}", call),
        lab.tool_result(call, f"{HOSTILE}\n" * 30 + "[Showing lines 1-30 of 90. Use offset=31 "
                        "to continue.]", is_error=True),
        lab.fail(f"400 {HOSTILE}"),
        {"role": HOSTILE, "content": HOSTILE},
        HOSTILE,
    ]


def long_run(size: int, lines: int = 2_000) -> list[dict]:
    """`size` messages in which every tool output is `lines` lines long and ends in a notice,
    and every call carries a long argument: the worst realistic case for the payload."""
    messages: list[dict] = []
    turn = 0
    while len(messages) < size:
        turn += 1
        call = lab.call("write", {"path": f"f{turn}.py", "content": "x = 1\n" * 500},
                        id=f"c{turn}")
        output = "\n".join(f"line {number} of the output, with é and \"quotes\""
                           for number in range(lines))
        messages += [lab.user(f"Turn {turn}. " + "Please look. " * 40),
                     lab.reply("Writing it. " * 40, call),
                     lab.tool_result(call, output + f"\n[Showing lines 1-{lines} of 9000. "
                                     f"Use offset={lines + 1} to continue.]"),
                     lab.say("Done. " * 100)]
    return messages[:size]


def turns(count: int) -> list[dict]:
    """`count` well-formed turns: a question, a reply with one call, its result, an answer."""
    messages = []
    for turn in range(count):
        call = lab.call("read", {"path": f"f{turn}.py"}, id=f"c{turn}")
        messages += [lab.user(f"question {turn}"), lab.reply(f"reading {turn}", call),
                     lab.tool_result(call, f"contents {turn}"), lab.say(f"answer {turn}")]
    return messages
