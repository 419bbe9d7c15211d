"""`agentlab demo`: four afternoons with the reference harness, and whether each record can be sent
again.

A typo the model recovers from, a 5,000-line log read through the budget, a model that
never stops, and a provider outage; then each record is judged and turned into a request.
The reference harness is the instructor's, so `play` needs the instructor package; `agentlab
course build` records what it printed and the records it made into the student package
(`course/starters/demo-recording.json`, checked by `course build --check`), and `run` shows
that recording: the same lines and records, on any machine.
"""

from __future__ import annotations

import importlib.resources
import json
from types import ModuleType

from agentlab_magics import lab
from agentlab_magics.course.instructor import instructor_module

PORT_PROMPT = "What port does config.py use?"
RECORDING = "demo-recording.json"  # in the starters' package, made by `agentlab course build`


def _retry_after_typo(request: lab.Request) -> dict:
    """Retries with the right tool name when the last result reports the misspelled one."""
    result = request.last_result
    if result and result["is_error"] and "raed" in result["content"]:
        return lab.reply(lab.call("read", {"path": "config.py"}))
    return lab.say("I cannot continue.")


def _scenarios() -> list[tuple[str, lab.ScriptedModel, str, dict]]:
    """(label, model, prompt, options) per run, in order; a label may share its record."""
    typo = lab.ScriptedModel([lab.reply(lab.call("raed", {"path": "config.py"})),
                              _retry_after_typo, lab.say("The port is 9090."),
                              lab.say("You are welcome.")])
    outage = lab.ScriptedModel([lab.fail("503 overloaded"), lab.say("The port is 9090.")])
    return [
        ("a typo", typo, PORT_PROMPT, {}),
        ("and again", typo, "Thanks.", {}),
        ("a firehose", lab.ScriptedModel([lab.pager("def target")]),
         "Is there a `def target` in big.log?", {}),
        ("a runaway", lab.ScriptedModel([lab.stuck(lab.call("read", {"path": "missing.py"}))]),
         "Find the port.", {"max_turns": 3}),
        ("an outage", outage, "Find the port.", {}),
        ("try again", outage, "try again", {}),
    ]


def run(print_line=print) -> dict[str, list]:
    """Print what the four runs did and how each record was judged, and return the records,
    as the reference harness made them (the recording `agentlab course build` keeps)."""
    from agentlab_magics.course.starter_files import PACKAGE

    text = importlib.resources.files(PACKAGE).joinpath(RECORDING).read_text(encoding="utf-8")
    recording = json.loads(text)
    for line in recording["lines"]:
        print_line(line)
    return recording["records"]


def recording() -> str:
    """The JSON text `run` shows: what `play` prints and returns. Needs the instructor package."""
    lines: list[str] = []
    records = play(lines.append)
    return json.dumps({"lines": lines, "records": records}, indent=1, ensure_ascii=False) + "\n"


def play(print_line=print) -> dict[str, list]:
    """Play the four runs with the reference harness, print what each did, then judge every
    record. Returns the records."""
    harness = reference_harness()
    ws = lab.Workspace({"config.py": "PORT = 9090\n", "big.log": lab.big_log()})
    tools = [harness.make_read_tool(ws)]
    records: dict[str, list] = {}
    by_model: dict[int, list] = {}
    for label, model, prompt, options in _scenarios():
        messages = by_model.setdefault(id(model), [])
        records.setdefault(_first_label(label), messages)
        harness.run_agent(model, harness.SYSTEM, messages, tools, prompt, **options)
        print_line(f"{label:10}: {len(model.calls)} model call(s), {lab.shape(messages)}")
        print_line(f"            ends on: {lab.show(messages[-1:])}")
    print_line("")
    for label, messages in records.items():
        valid = lab.validate(messages, record=True) == []
        request = lab.shape(harness.context_for_model(messages))
        print_line(f"{label:10}: record valid: {valid} | what the next request would carry: "
                   f"{request}")
    return records


def _first_label(label: str) -> str:
    """The follow-up runs ("and again", "try again") add to the record of the run before."""
    return {"and again": "a typo", "try again": "an outage"}.get(label, label)


def reference_harness() -> ModuleType:
    """The reference harness, from the instructor package (InstructorPackageMissing without)."""
    return instructor_module("reference.harness",
                             "The demonstration plays the reference harness and")
