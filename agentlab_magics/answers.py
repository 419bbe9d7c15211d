"""The course's own answers, announced: a function of the package that does what a lab asks
students to write (checkpoint A's loops, the bounded unit's admission rule) first raises the
audit event ANSWER naming the lab names it answers. Anywhere else the event costs nothing;
while a lab is checked, the checker's guard refuses it when the name is one of that lab's,
whoever calls it (checking.guard): the lab's tests never need the course's own answer, and
the student's code must not reach it, directly or through anything it hands over (a
functools.partial, a callback). Nothing here imports the rest of the package."""

from __future__ import annotations

import sys

ANSWER = "agentlab.answer"


def announce(*names: str) -> None:
    """Say that the caller is the course's own answer to `names` (lab names, such as
    "run_agent")."""
    sys.audit(ANSWER, *names)
