"""The four runs, played with the reference harness: a typo the model recovers from, a
5,000-line log read through the budget, a model that never stops, and a provider outage; then
each record is judged and turned into a request. What `play` prints and the records it makes
are the recording (course/starter_files.py's RECORDING) that `agentlab demo` and a
notebook's `four_runs.show()` show on any machine. Needs the instructor package.
"""

from __future__ import annotations

import json
from types import ModuleType

from agentlab_magics import lab
from agentlab_magics.course.instructor import instructor_module

PORT_PROMPT = "What port does config.py use?"


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
