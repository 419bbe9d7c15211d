"""The labs of the bounded-loop unit: one function each, written in the unit's notebooks.

ch03-a and its transfer decide admission; ch03-b is Unit B's repair, a loop whose charge
was moved after the provider call, so that a provider that keeps failing looked free.
Their starters are files of the student package; their references are the instructor's
(agentlab_instructor.reference.functions).
"""

from __future__ import annotations

from agentlab_magics.course.lab_model import Lab


def bounded_labs() -> list[Lab]:
    return [
        Lab(id="ch03-a", title="Ch03 unit A: admit the next model call", lesson="ch03-a",
            module="admission", names=["decide_admission"],
            purposes={"decide_admission": "decides whether the next model attempt may begin"},
            tests="agentlab_magics.course.labtests.ch03_a"),
        Lab(id="ch03-a-transfer", title="Ch03 unit A transfer: a variable-cost attempt",
            lesson="ch03-a", module="transfer", names=["transfer_check"],
            purposes={"transfer_check": "decides the next attempt when its cost varies"},
            tests="agentlab_magics.course.labtests.ch03_a_transfer"),
        Lab(id="ch03-b", title="Ch03 unit B: charge at admission", lesson="ch03-b",
            module="attempts", names=["attempt"],
            purposes={"attempt": "admits, charges and makes provider attempts until one answers"},
            tests="agentlab_magics.course.labtests.ch03_b"),
    ]
