"""The teaching runtime a lesson imports as `lab`: a strict fake provider and what goes with it.

Messages are plain dicts, exactly as students write them. Each name is imported from its module
when it is first used (PEP 562), so a process that needs one part of `lab` (the student process
needs its caps) does not pay for the rest: importing all of it takes about 18 ms.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what a type checker reads; at run time each name comes from __getattr__
    from agentlab_magics.lab.drive import drive
    from agentlab_magics.lab.fork import fork
    from agentlab_magics.lab.messages import call, fail, reply, say, text, tool_result, user
    from agentlab_magics.lab.model import Request, ScriptedModel, ScriptError, estimate_tokens
    from agentlab_magics.lab.replay import recording, replay
    from agentlab_magics.lab.rules import shape_problem, validate
    from agentlab_magics.lab.runs import export_run, read_run
    from agentlab_magics.lab.steps import forever, forgetful, pager, stuck
    from agentlab_magics.lab.views import diff, shape, show
    from agentlab_magics.lab.workspace import Shell, Workspace, big_log

_FROM = {
    "drive": ("drive",),
    "fork": ("fork",),
    "messages": ("call", "fail", "reply", "say", "text", "tool_result", "user"),
    "model": ("Request", "ScriptedModel", "ScriptError", "estimate_tokens"),
    "replay": ("recording", "replay"),
    "rules": ("shape_problem", "validate"),
    "runs": ("export_run", "read_run"),
    "steps": ("forever", "forgetful", "pager", "stuck"),
    "views": ("diff", "shape", "show"),
    "workspace": ("Shell", "Workspace", "big_log"),
}
_MODULE_OF = {name: module for module, names in _FROM.items() for name in names}

__all__ = [  # the names of _FROM
    "Request", "ScriptError", "ScriptedModel", "Shell", "Workspace", "big_log", "call", "diff",
    "drive", "estimate_tokens", "export_run", "fail", "forever", "forgetful", "fork", "pager",
    "read_run", "recording", "replay", "reply", "say", "shape", "shape_problem", "show",
    "stuck", "text", "tool_result", "user", "validate",
]


class _Lab(types.ModuleType):
    """The package, whose names `drive`, `fork` and `replay` stay the functions when their
    modules of the same name are loaded (the import system then sets the module as the package's
    attribute)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _MODULE_OF and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Lab


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
