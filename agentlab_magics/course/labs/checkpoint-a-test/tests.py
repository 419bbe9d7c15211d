"""Checkpoint A, the test you write: a script and a check that part the two loops."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import a_type, model_calls, plain, settle
from agentlab_magics.lab.steps import Step
from agentlab_magics.reference import loops

PROMPT = "Find the port."


def read_tool():
    """One read tool that always answers with the same config file."""
    return {"name": "read", "description": "Read a text file and return its contents.",
            "parameters": {"type": "object", "required": ["path"],
                           "properties": {"path": {"type": "string"}}},
            "execute": lambda arguments: "PORT = 9090\n"}


def script_of(harness):
    """The steps script() returned, once proven a non-empty plain list whose every step is
    plain data, a function of the request, or one of the lab's lasting steps."""
    steps = settle(harness.script())
    assert type(steps) is list and steps, (
        f"script() returned {_described(steps)}: it must return a non-empty list of steps, one "
        "per model call.")
    for number, step in enumerate(steps, start=1):
        if not (callable(step) or issubclass(type(step), Step)):
            plain(step, f"step {number} of your script",
                  "make each step with lab.reply, lab.say or lab.fail.")
    return steps


def _described(steps):
    """An empty list as it is, anything but a plain list by its type alone: its repr could lie."""
    return repr(steps) if type(steps) is list else f"{a_type(steps)}, not a plain list"


def run_with(harness, loop, record=None):
    """(model, messages, final) of `loop` playing the student's script, cut off at twelve calls;
    the record and the final reply, made of what the script's steps said, are proven plain."""
    model, messages = lab.ScriptedModel(script_of(harness), max_calls=12), []
    if record is not None:
        record(messages, model)
    final = settle(loop(model, "You are a careful debugger.", messages, [read_tool()], PROMPT))
    plain(messages, "the record your script left")
    return model, messages, plain(final, "the last reply your script gave")


def check_fails(harness, run):
    """The AssertionError the student's check raises on `run`, or None if it passes."""
    try:
        settle(harness.check(*run))
    except AssertionError as exc:
        return exc
    return None


def test_the_reference_loop_finishes_the_script(harness, record):
    """script() is a non-empty list of steps that lesson 5's loop runs to the end, with no
    cut-off."""
    model, messages, final = run_with(harness, loops.reference, record)
    assert not model.cut_off and final.get("stop_reason") != "error", (
        f"The reference loop did not finish your script: it made {model_calls(len(model.calls))} "
        f"and ended on {lab.show([final])}. Give the model a last step that answers.")


def test_the_check_passes_the_reference_loop(harness, record):
    """The loop that reads the reply's content is handed to your check, and your check passes it."""
    failure = check_fails(harness, run_with(harness, loops.reference, record))
    assert failure is None, f"Your check failed the reference loop, which is correct: {failure}"


def test_the_check_fails_the_buggy_loop(harness, record):
    """The loop that believes the reply's label is handed to your check, and your check fails it."""
    model, messages, final = run_with(harness, loops.buggy, record)
    assert check_fails(harness, (model, messages, final)) is not None, (
        f"Your check passed the buggy loop, which left {lab.shape(messages)!r}. Your script needs "
        "a reply whose label and content disagree, and your check must notice what that left.")


def test_the_failure_says_what_happened(harness):
    """When your check fails, it says what the loop did and what it should have done."""
    failure = check_fails(harness, run_with(harness, loops.buggy))
    assert failure is not None, "Your check does not fail the buggy loop yet, so it says nothing."
    assert plain(str(failure), "the message your check fails with").strip(), (
        "Your check fails the buggy loop without a message. Add one to the assert: what the "
        "model asked for, what the loop left, and what you expected.")
