"""Three students hand in the tutorial's lab, as `nbgrader collect` would leave their work in
submitted/: "right" answers it, "starter" hands in the release untouched, "wrong" cuts a text
of exactly the budget. Run by the tutorial's environment's Python: `python hand_in_answers.py COURSE
LAB`; it needs nothing but the standard library. `hand_in` hands in any lab's answers
(tests/course/test_real_run.py uses it too)."""

import json
import shutil
import sys
from pathlib import Path

ANSWER = '''def result_for(call, output, limit=200):
    if len(output) {} limit:
        output = output[:limit] + f"\\n[cut: {{len(output) - limit}} more characters]"
    return {{"role": "toolResult", "tool_call_id": call["id"], "tool_name": call["name"],
            "content": output, "is_error": False}}
'''
RIGHT, WRONG = ANSWER.format(">"), ANSWER.format(">=")
ANSWERS = {"right": RIGHT, "starter": None, "wrong": WRONG}


def hand_in(course: Path, lab: str, answers: dict[str, str | None]) -> None:
    """Each student of `answers` hands in the released assignment `lab` (every file of it),
    with their answer, where they have one, as the `%%check` cell's code."""
    released = course / "release" / lab
    for student, answer in answers.items():
        folder = course / "submitted" / student / lab
        shutil.copytree(released, folder, dirs_exist_ok=True)
        notebook = json.loads((folder / f"{lab}.ipynb").read_text())
        for cell in notebook["cells"]:
            if answer and "".join(cell["source"]).startswith(f"%%check {lab}"):
                cell["source"] = f"%%check {lab}\n{answer}"
        (folder / f"{lab}.ipynb").write_text(json.dumps(notebook))


if __name__ == "__main__":
    hand_in(Path(sys.argv[1]), sys.argv[2], ANSWERS)
