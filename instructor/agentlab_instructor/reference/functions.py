"""The one-function labs, each as the student starts it and as the instructor solved it.

A lab here is one small file (its module named in the lab's catalog entry): the starter is
written by hand, since it is not the reference with gaps (ch03-b's starter is a loop with a bug
to repair); the marked file is made from the two (`harness_file.solution_bodies`).
"""

# Checkpoint A's test lab (my_test.py): the script on which the two loops of loops.py part
# company, and the assert that tells them apart.

TEST_LAB_STARTER = '''"""my_test.py: the script on which two loops part company, and the assert that tells them apart.

loops.reference reads a reply's content to decide whether there is more to do; loops.buggy
believes its stop_reason. Both run your script, then your check is handed each run.
"""

import lab


def script():
    """The model's side of the run: one step per model call, for lab.ScriptedModel."""
    # --- your code ---
    # Builders: lab.reply, lab.say, lab.text, lab.call, lab.fail; lab.reply(..., stop_reason=...)
    # gives a reply a label its content does not support.
    return []
    # --- end ---


def check(model, messages, final):
    """One assert about what the run left behind: true of the reference loop, false of the buggy one."""
    # --- your code ---
    # messages: the record the loop appended to; model.calls: every request sent;
    # final: what the loop returned. lab.shape, lab.show and lab.diff make a message readable.
    # --- end ---
'''

TEST_LAB_REFERENCE = '''"""my_test.py: a reply whose label lies, and the record only an honest loop leaves."""

import lab


def script():
    """A call labelled "stop", then the answer a loop that reads the content will ask for."""
    return [lab.reply(lab.call("read", {"path": "config.py"}), stop_reason="stop"),
            lab.say("The port is 9090.")]


def check(model, messages, final):
    """The call was answered and the model was asked again: the record is U A[c1] R(c1) A."""
    expected = "U A[c1] R(c1) A"
    assert lab.shape(messages) == expected, (
        f"The model asked to read config.py in a reply labelled 'stop'. The loop made "
        f"{len(model.calls)} model call(s), returned {lab.show([final])!r} and left "
        f"{lab.shape(messages)!r}, where {expected!r} was expected: a call is a call whatever "
        f"the label says, so the tool must run and its result go back.\\n{lab.show(messages)}")
'''


# Chapter 3, unit A (admission.py): admit the next model call.

ADMISSION_STARTER = '''def decide_admission(case):
    """Return CALL, MODEL_CALL_LIMIT, or MODEL_COST_LIMIT."""
    return "CALL"
'''

ADMISSION_REFERENCE = '''def decide_admission(case):
    """May the next model attempt begin? The call count is checked first, then the money:
    spending exactly the budget is allowed, going past it is not."""
    if case["used_calls"] >= case["max_calls"]:
        return "MODEL_CALL_LIMIT"
    if case["spent"] + case["next_cost"] > case["budget"]:
        return "MODEL_COST_LIMIT"
    return "CALL"
'''


# Chapter 3, unit A's transfer (transfer.py): the same rule, the cost varying.

TRANSFER_STARTER = '''def transfer_check(state):
    raise NotImplementedError("Decide before admitting the next attempt")
'''

TRANSFER_REFERENCE = '''def transfer_check(state):
    """The admission rule with a next-attempt estimate that can change on every attempt."""
    if state["calls"] >= state["max_calls"]:
        return "CALL_LIMIT"
    if state["spent"] + state["next_cost"] > state["budget"]:
        return "COST_LIMIT"
    return "CALL"
'''


# Chapter 3, unit B (attempts.py): a loop whose charge was moved after the provider call.

ATTEMPTS_STARTER = '''def attempt(provider, *, max_attempts, call_cost, budget):
    """Call provider() until it answers, admitting each attempt under the call and cost limits.

    Returns {"status", "attempts", "spent", "events", "answer"}; an event is
    (attempt number, cents spent after it was admitted, "ok" or "failed").
    """
    attempts, spent, events = 0, 0, []
    while True:
        if attempts >= max_attempts:
            return {"status": "MODEL_CALL_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        if spent + call_cost > budget:
            return {"status": "MODEL_COST_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        attempts += 1
        try:
            answer = provider()
        except Exception:
            events.append((attempts, spent, "failed"))
            continue
        spent += call_cost
        events.append((attempts, spent, "ok"))
        return {"status": "COMPLETED", "attempts": attempts, "spent": spent,
                "events": events, "answer": answer}
'''

ATTEMPTS_REFERENCE = '''def attempt(provider, *, max_attempts, call_cost, budget):
    """Charge every attempt when it is admitted, before the provider can fail."""
    attempts, spent, events = 0, 0, []
    while True:
        if attempts >= max_attempts:
            return {"status": "MODEL_CALL_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        if spent + call_cost > budget:
            return {"status": "MODEL_COST_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        attempts += 1
        spent += call_cost
        try:
            answer = provider()
        except Exception:
            events.append((attempts, spent, "failed"))
            continue
        events.append((attempts, spent, "ok"))
        return {"status": "COMPLETED", "attempts": attempts, "spent": spent,
                "events": events, "answer": answer}
'''
