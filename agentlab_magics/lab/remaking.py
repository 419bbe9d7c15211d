"""The lab's objects that cross between two processes as what they are made of.

A check runs the student's code in a process of its own; a request a scripted model hands to a
step, or the steps a student's script returns, travel to the other process as their class's
name and the arguments that make them, and are made there again by the class itself (its
checks included). Every other object of the lab stays in the process that made it.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any

from agentlab_magics.lab.model import Request
from agentlab_magics.lab.steps import Forever, Forgetful, Pager, Stuck


@cache
def value_classes() -> dict[str, tuple[type, tuple[str, ...]]]:
    """Each class by name, with the names of the arguments (and attributes) that make one."""
    return {"Request": (Request, tuple(field.name for field in fields(Request))),
            "Pager": (Pager, ("needle",)), "Forgetful": (Forgetful, ()),
            "Stuck": (Stuck, ("call_block",)), "Forever": (Forever, ("function",))}


def recipe(value: Any) -> tuple[str, list[Any]] | None:
    """(class name, the arguments that make `value`) when it is of one of `value_classes`
    exactly; None for anything else."""
    for name, (kind, names) in value_classes().items():
        if type(value) is kind:
            return name, [vars(value)[attribute] for attribute in names]
    return None


def made(name: str, arguments: list[Any]) -> Any:
    """The object `recipe` described, made by its class; KeyError for an unknown class and
    TypeError (or the class's own ValueError) for arguments it refuses."""
    kind, names = value_classes()[name]
    if type(arguments) is not list or len(arguments) != len(names):
        raise TypeError(f"{name} takes {len(names)} argument(s)")
    return kind(**dict(zip(names, arguments)))
