"""The question view: nothing of the answer before a commitment, every verdict after one, the
student's own words drawn as text, and the widget committing through Python."""

from bs4 import BeautifulSoup

from agentlab_magics.course.assignments import ASSIGNMENTS
from agentlab_magics.course.questions import find_question, questions_for
from agentlab_magics.making.notebooks import notebook
from agentlab_magics.notebook import ask
from agentlab_magics.progress import ProgressStore
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import Commitment
from agentlab_magics.widgets.question_view import QuestionView
from agentlab_magics.widgets.rendering import MARK, WIDGET_VIEW
from tests.widgets.cases import HOSTILE

CHOICE = find_question("a4-jumbled-order")
OPEN = find_question("a7-in-common")


def renderings(view: QuestionView) -> list[str]:
    return [view.to_html(), view.to_text(), repr(view.data())]


def test_before_an_answer_no_rendering_gives_the_answer_away():
    view = QuestionView(Asked(CHOICE, None))
    for page in renderings(view):
        assert CHOICE.prompt in page or CHOICE.prompt.replace("'", "&#x27;") in page
        assert all(option.why not in page for option in CHOICE.options)
        assert CHOICE.answer not in page
    assert "%question a4-jumbled-order --answer B" in view.to_text()


def test_after_an_answer_every_option_says_whether_it_is_right_and_why():
    view = QuestionView(Asked(CHOICE, Commitment(answer="B", at="2026-12-01T10:00:00+00:00")))
    page = BeautifulSoup(view.to_html(), "html.parser")
    verdicts = [why.get_text() for why in page.select(".al-option .al-why")]
    assert [v.split(":")[0] for v in verdicts] == ["Wrong", "Wrong", "Right"]
    assert page.select_one(".al-chosen").get_text().startswith("B. user, reply, result c2")
    assert "Your answer (2026-12-01): B" in page.select_one(".al-committed").get_text()
    assert page.select_one("details[open] .al-answer").get_text() == CHOICE.answer
    assert "> B. user, reply, result c2, result c1" in view.to_text()


def test_the_students_own_words_are_drawn_as_text():
    view = QuestionView(Asked(OPEN, Commitment(answer=HOSTILE), notice=f"about {HOSTILE}"))
    page = view.to_html()
    parsed = BeautifulSoup(page, "html.parser")
    assert not parsed.find_all(["script", "img"])
    assert HOSTILE in parsed.select_one(".al-committed").get_text()
    assert HOSTILE in parsed.select_one(".al-notice").get_text()


def test_the_bundle_carries_the_widget_and_the_static_html_and_marks_the_question():
    bundle, metadata = QuestionView(Asked(CHOICE, None))._repr_mimebundle_()
    assert set(bundle) == {WIDGET_VIEW, "text/html", "text/plain"}
    assert metadata[MARK] == {"view": "question", "id": CHOICE.id, "committed": False}
    bundle, metadata = QuestionView(Asked(CHOICE, Commitment(answer="C")),
                                    static=True)._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert metadata == {MARK: {"view": "question", "id": CHOICE.id, "committed": True,
                               "answer": "C"}}


def test_an_answer_from_the_widget_is_committed_and_revealed(tmp_path):
    store = ProgressStore(tmp_path / "progress.json")
    view = QuestionView(ask(CHOICE.id, store=store),
                        commit=lambda answer: ask(CHOICE.id, answer, store=store))
    widget = view.widget
    assert widget.data["committed"] is None
    widget.answer = "C"
    assert widget.data["committed"]["answer"] == "C"
    assert [option["correct"] for option in widget.data["options"]] == [False, False, True]
    assert ProgressStore(tmp_path / "progress.json").lab("checkpoint-a").questions[CHOICE.id]


def test_a_commitment_stands_and_a_bad_answer_is_a_sentence(tmp_path):
    store = ProgressStore(tmp_path / "progress.json")
    assert ask(CHOICE.id, "3", store=store).commitment.answer == "C"
    again = ask(CHOICE.id, "A", store=store)
    assert again.commitment.answer == "C" and "so that one stands" in again.notice
    assert ask(CHOICE.id, store=store).commitment.answer == "C"
    refused = ask(OPEN.id, "  ", store=store)
    assert refused.commitment is None and "your own words" in refused.notice
    assert "answer with A, B or C" in ask("a1-skipped-call", "D", store=store).notice


def test_a_course_notebook_says_own_words_only_where_a_question_has_a_text_box():
    said = {}
    for assignment in ASSIGNMENTS:
        kinds = {q.kind for assigned in assignment.labs for q in questions_for(assigned.lab)}
        intro = [cell.source for cell in notebook(assignment).cells
                 if cell.source.startswith("## Before you run anything")]
        if intro:
            said[assignment.id] = ("own words" in intro[0], "open" in kinds)
    assert said and all(says == has_a_box for says, has_a_box in said.values())
    assert (True, True) in said.values() and (False, False) in said.values()
