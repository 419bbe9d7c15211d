"""The labs of the bounded-loop unit: one function each, written in the unit's notebooks.

ch03-a and its transfer decide admission; ch03-b is Unit B's repair, a loop whose charge
was moved after the provider call, so that a provider that keeps failing looked free.
"""

from __future__ import annotations

from agentlab_magics.course.catalog import Lab
from agentlab_magics.course.harness_file import solution_bodies

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


def bounded_labs() -> list[Lab]:
    return [
        Lab(id="ch03-a", title="Ch03 unit A: admit the next model call", lesson="ch03-a",
            module="admission", names=["decide_admission"],
            purposes={"decide_admission": "decides whether the next model attempt may begin"},
            tests="agentlab_magics.course.labtests.ch03_a",
            starter=ADMISSION_STARTER, reference=ADMISSION_REFERENCE,
            marked=solution_bodies(ADMISSION_STARTER, ADMISSION_REFERENCE,
                                   ["decide_admission"])),
        Lab(id="ch03-a-transfer", title="Ch03 unit A transfer: a variable-cost attempt",
            lesson="ch03-a", module="transfer", names=["transfer_check"],
            purposes={"transfer_check": "decides the next attempt when its cost varies"},
            tests="agentlab_magics.course.labtests.ch03_a_transfer",
            starter=TRANSFER_STARTER, reference=TRANSFER_REFERENCE,
            marked=solution_bodies(TRANSFER_STARTER, TRANSFER_REFERENCE,
                                   ["transfer_check"])),
        Lab(id="ch03-b", title="Ch03 unit B: charge at admission", lesson="ch03-b",
            module="attempts", names=["attempt"],
            purposes={"attempt": "admits, charges and makes provider attempts until one answers"},
            tests="agentlab_magics.course.labtests.ch03_b",
            starter=ATTEMPTS_STARTER, reference=ATTEMPTS_REFERENCE,
            marked=solution_bodies(ATTEMPTS_STARTER, ATTEMPTS_REFERENCE, ["attempt"])),
    ]
