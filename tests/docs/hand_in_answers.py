"""Three students hand in the tutorial's lab, as `nbgrader collect` would leave their work in
submitted/: "right" answers it, "starter" hands in the release untouched, "wrong" cuts a text
of exactly the budget. Run by the tutorial's environment's Python: `python hand_in_answers.py COURSE
LAB`; it needs nothing but the standard library."""

import json
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


def main(course: Path, lab: str) -> None:
    released = json.loads((course / "release" / lab / f"{lab}.ipynb").read_text())
    for student, answer in ANSWERS.items():
        notebook = json.loads(json.dumps(released))
        for cell in notebook["cells"]:
            if answer and "".join(cell["source"]).startswith(f"%%check {lab}"):
                cell["source"] = f"%%check {lab}\n{answer}"
        folder = course / "submitted" / student / lab
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{lab}.ipynb").write_text(json.dumps(notebook))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
