"""Inspect AI .eval logs with mockllm scripted outputs (no network, no server).

Usage: python make_inspect.py -> inspect.eval (2 model calls), inspect_multi.eval (3 model calls)
       plus inspect.json / inspect_multi.json (same logs, plain JSON format)
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from where import FIXTURES

LOGS = os.path.join(FIXTURES, "inspect_logs")
os.environ.setdefault("INSPECT_LOG_DIR", LOGS)

from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, system_message, use_tools
from inspect_ai.tool import ToolCall, tool

INSTRUCTIONS = "You are a careful code reviewer. Use the tools to read files before answering."
USER_PROMPT = "Please read a.py and b.py and tell me what they do."
FILES = {"a.py": "def add(x, y):\n    return x + y\n", "README.md": "# demo\n"}
M = "mockllm/model"


@tool
def read_file():
    async def execute(path: str) -> str:
        """Read a text file from the project.

        Args:
            path: relative file path
        """
        if path not in FILES:
            raise FileNotFoundError(f"No such file: {path}")
        return FILES[path]
    return execute


@tool
def list_files():
    async def execute(directory: str) -> str:
        """List files in a directory.

        Args:
            directory: directory to list
        """
        return "\n".join(sorted(FILES))
    return execute


def out_tools(calls, usage):
    return ModelOutput(
        model="model",
        choices=[ChatCompletionChoice(
            message=ChatMessageAssistant(
                content="", model="model", source="generate",
                tool_calls=[ToolCall(id=cid, function=fn, arguments=args) for cid, fn, args in calls]),
            stop_reason="tool_calls")],
        usage=ModelUsage(input_tokens=usage[0], output_tokens=usage[1], total_tokens=sum(usage)),
    )


def out_text(text, usage):
    o = ModelOutput.from_content(model="model", content=text)
    o.usage = ModelUsage(input_tokens=usage[0], output_tokens=usage[1], total_tokens=sum(usage))
    return o


PARALLEL = [("call_a_001", "read_file", {"path": "a.py"}), ("call_b_002", "read_file", {"path": "b.py"})]
SCRIPTS = {
    "inspect.eval": [
        out_tools(PARALLEL, (49, 74)),
        out_text("a.py defines `add(x, y)` returning x + y. I could not read b.py "
                 "(the tool reported that it does not exist), so I cannot describe it.", (174, 46)),
    ],
    "inspect_multi.eval": [
        out_tools(PARALLEL, (49, 74)),
        out_tools([("call_ls_003", "list_files", {"directory": "."})], (174, 30)),
        out_text("a.py defines `add(x, y)`. b.py could not be read (error). "
                 "The directory contains a.py and README.md, so b.py is missing.", (220, 40)),
    ],
}


@task
def code_review():
    return Task(
        dataset=[Sample(id="review-1", input=USER_PROMPT, target="add")],
        solver=[system_message(INSTRUCTIONS), use_tools([read_file(), list_files()]), generate()],
        scorer=includes(),
    )


for out, outputs in SCRIPTS.items():
    log_dir = os.path.join(LOGS, out.replace(".eval", ""))
    shutil.rmtree(log_dir, ignore_errors=True)
    logs = inspect_eval(code_review(), model=get_model(M, custom_outputs=outputs),
                        log_dir=log_dir, log_format="eval", display="none")
    src = logs[0].location
    shutil.copy(src, os.path.join(FIXTURES, out))
    print(out, "<-", src, logs[0].status)

# Companion plain-JSON logs (same EvalLog, log_format="json"; stdlib-readable) for comparison.
from inspect_ai.log import read_eval_log, write_eval_log

for out in SCRIPTS:
    write_eval_log(read_eval_log(os.path.join(FIXTURES, out)), os.path.join(FIXTURES, out.replace(".eval", ".json")), format="json")
    print(out.replace(".eval", ".json"), "written")
shutil.rmtree(LOGS, ignore_errors=True)
