"""QuestionView: a diagnosis question, its options before an answer, and why after one.

Until an answer is committed the view holds the prompt and the options only, so neither the
page nor the widget's state gives the answer away. Once one is committed it holds, for each
option, whether it is right and why, then the full answer. Every string is escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from agentlab_magics.widgets.assets import style
from agentlab_magics.widgets.rendering import ThreeWayView

if TYPE_CHECKING:
    from agentlab_magics.progress.asked import Asked

Commit = Callable[[str], "Asked"]


def question_data(asked: Asked) -> dict[str, Any]:
    """The question as one JSON-able dict: what may be shown now, and nothing more."""
    question, commitment = asked.question, asked.commitment
    data: dict[str, Any] = {
        "kind": "question", "id": question.id, "lab": question.lab, "type": question.kind,
        "prompt": question.prompt, "hint": question.hint, "notice": asked.notice,
        "options": [{"letter": letter, "text": option.text}
                    for letter, option in zip(question.letters, question.options)],
        "committed": None}
    if commitment is None:
        return data
    data["committed"] = {"answer": commitment.answer, "at": commitment.at}
    for shown, option in zip(data["options"], question.options):
        shown.update(correct=option.correct, why=option.why,
                     chosen=shown["letter"] == commitment.answer)
    data["answer"] = question.answer
    return data


def how_to_answer(data: dict[str, Any]) -> str:
    """The magic line that commits an answer to this question."""
    example = "B" if data["type"] == "choice" else '"your own words"'
    return f"%question {data['id']} --answer {example}"


def _verdict(option: dict[str, Any]) -> str:
    return "right" if option["correct"] else "wrong"


def question_html(data: dict[str, Any]) -> str:
    """The question as self-contained HTML: the options, then (once answered) a verdict and
    a reason per option and the full answer in an open <details>."""
    committed = data["committed"]
    parts = [f'<div class="al-question" data-question="{escape(data["id"])}">', style(),
             f'<p class="al-prompt">{escape(data["prompt"])}</p>']
    if data["options"]:
        # The letters are in the text, as in the widget: pages that style lists their own way
        # (JupyterLab numbers every <ol>) still show the letter an answer is given as.
        parts.append('<ol class="al-options al-lettered">')
        for option in data["options"]:
            chosen = " al-chosen" if option.get("chosen") else ""
            parts.append(f'<li class="al-option{chosen}">'
                         f'<span>{escape(option["letter"])}. {escape(option["text"])}</span>')
            if committed:
                parts.append(f'<p class="al-why al-{_verdict(option)}">'
                             f'{escape(_verdict(option).capitalize())}: '
                             f'{escape(option["why"])}</p>')
            parts.append("</li>")
        parts.append("</ol>")
    if data["notice"]:
        parts.append(f'<p class="al-notice">{escape(data["notice"])}</p>')
    if committed:
        parts.append(f'<p class="al-committed">Your answer ({escape(committed["at"][:10])}): '
                     f'{escape(committed["answer"])}</p>'
                     f'<details open><summary>The answer</summary>'
                     f'<p class="al-answer">{escape(data["answer"])}</p></details>')
    else:
        if data["hint"]:
            parts.append(f'<details><summary>A hint</summary>'
                         f'<p class="al-hint">{escape(data["hint"])}</p></details>')
        parts.append(f'<p class="al-how">Commit an answer with '
                     f'<code>{escape(how_to_answer(data))}</code>.</p>')
    parts.append("</div>")
    return "".join(parts)


def question_text(data: dict[str, Any]) -> str:
    """The question as text: the prompt, lettered options, and the reveal once answered."""
    committed = data["committed"]
    lines = [data["prompt"]]
    for option in data["options"]:
        pointer = ">" if option.get("chosen") else " "
        lines.append(f"{pointer} {option['letter']}. {option['text']}")
        if committed:
            lines.append(f"     {_verdict(option).capitalize()}: {option['why']}")
    if data["notice"]:
        lines.append(data["notice"])
    if committed:
        lines += [f"Your answer ({committed['at'][:10]}): {committed['answer']}",
                  f"The answer: {data['answer']}"]
    else:
        lines.append(f"Commit an answer with {how_to_answer(data)}")
    return "\n".join(lines)


class QuestionView(ThreeWayView):
    """A question as a widget (click an option, or write and commit), as static HTML and as
    text. `commit` records an answer from the widget and returns the question as it is now."""

    def __init__(self, asked: Asked, *, commit: Commit | None = None,
                 static: bool = False) -> None:
        super().__init__(question_data(asked), static=static)
        self._commit = commit

    def mark(self) -> dict[str, Any]:
        """Which question this is, whether it was shown answered (the saving hook renders one
        shown unanswered anew once the progress store holds its answer) and the answer
        committed, which the class report counts."""
        committed = self.data()["committed"]
        return {"view": "question", "id": self.data()["id"], "committed": committed is not None,
                **({"answer": committed["answer"]} if committed else {})}

    def to_html(self) -> str:
        return question_html(self.data())

    def to_text(self) -> str:
        return question_text(self.data())

    def make_widget(self) -> Any:
        from agentlab_magics.widgets.question_widget import QuestionWidget

        widget = QuestionWidget(data=self.data())
        widget.observe(self._answered, names="answer")
        return widget

    def _answered(self, change: dict[str, Any]) -> None:
        """The widget sent an answer: commit it and draw what the question says now."""
        if self._commit is None or not change["new"]:
            return
        self._data = question_data(self._commit(change["new"]))
        self.widget.data = self.data()
