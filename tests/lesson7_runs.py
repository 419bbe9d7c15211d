"""What tests of lesson 7's runs share: the reference harness as a module, and a tool."""

from __future__ import annotations

import types

from agentlab_instructor.lab_files import lab_files

NOTES = {"name": "notes", "description": "Read the notes.",
         "parameters": {"type": "object", "properties": {}},
         "execute": lambda arguments: "The port is 9090."}


def reference_harness() -> types.ModuleType:
    """Lesson 7's reference, run as a module of its own (its run_agent takes a listener)."""
    module = types.ModuleType("harness")
    exec(lab_files("lesson7").reference, module.__dict__)
    return module
