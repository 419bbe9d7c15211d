"""The two labs of unit ch03-a: one function each, written in the unit's notebook."""

from __future__ import annotations

from agentlab_magics.course.catalog import Lab

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


def bounded_labs() -> list[Lab]:
    return [
        Lab(id="ch03-a", title="Ch03 unit A: admit the next model call", lesson="ch03-a",
            module="admission", names=["decide_admission"],
            purposes={"decide_admission": "decides whether the next model attempt may begin"},
            tests="agentlab_magics.course.labtests.ch03_a",
            starter=ADMISSION_STARTER, reference=ADMISSION_REFERENCE),
        Lab(id="ch03-a-transfer", title="Ch03 unit A transfer: a variable-cost attempt",
            lesson="ch03-a", module="transfer", names=["transfer_check"],
            purposes={"transfer_check": "decides the next attempt when its cost varies"},
            tests="agentlab_magics.course.labtests.ch03_a_transfer",
            starter=TRANSFER_STARTER, reference=TRANSFER_REFERENCE),
    ]
