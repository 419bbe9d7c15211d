"""The teaching runtime a lesson imports as `lab`: a strict fake provider and what goes with it.

Messages are plain dicts, exactly as students write them. This module imports nothing heavy.
"""

from agentlab_magics.lab.drive import drive
from agentlab_magics.lab.messages import call, fail, reply, say, text, tool_result, user
from agentlab_magics.lab.model import Request, ScriptedModel, ScriptError, estimate_tokens
from agentlab_magics.lab.replay import recording, replay
from agentlab_magics.lab.rules import shape_problem, validate
from agentlab_magics.lab.steps import forever, forgetful, pager, stuck
from agentlab_magics.lab.views import diff, shape, show
from agentlab_magics.lab.workspace import Shell, Workspace, big_log

__all__ = [
    "Request", "ScriptError", "ScriptedModel", "Shell", "Workspace", "big_log", "call", "diff",
    "drive", "estimate_tokens", "fail", "forever", "forgetful", "pager", "recording", "replay",
    "reply", "say", "shape", "shape_problem", "show", "stuck", "text", "tool_result", "user",
    "validate",
]
