"""question.js in Debian's chromium: options are buttons until an answer is committed; a click
sends the letter to Python through the model, and the data Python sends back is drawn as the
reveal, every string as text."""

import pytest

from agentlab_magics.course.questions import find_question
from agentlab_magics.progress.asked import Asked
from agentlab_magics.progress.store import Commitment
from agentlab_magics.widgets.assets import asset, stylesheet
from agentlab_magics.widgets.question_view import question_data
from tests.widgets.cases import HOSTILE

QUESTION = find_question("a4-jumbled-order")
OPEN = find_question("a8-own-words")

# A stand-in for anywidget's model: `sent` keeps what the view set and saved; `reply(data)`
# plays Python's answer, as a change of the `data` trait.
PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>%s</style></head>
<body><div id="host"></div><script type="module">
window.sent = [];
window.mount = async (source, data) => {
  const listeners = [];
  let current = data;
  const model = {
    get: () => current,
    set: (name, value) => window.sent.push([name, value]),
    save_changes: () => window.sent.push(["saved"]),
    on: (name, f) => listeners.push(f),
    off() {},
  };
  window.reply = (next) => { current = next; listeners.forEach((f) => f()); };
  const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
  (await import(url)).default.render({model, el: document.getElementById("host")});
};
</script></body></html>"""


@pytest.fixture
def mount(browser):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def draw(data: dict):
        page.set_content(PAGE % stylesheet("transcript.css"))
        page.evaluate("([source, data]) => window.mount(source, data)",
                      [asset("question.js"), data])
        return page

    yield draw
    page.close()
    assert errors == []


def test_a_click_commits_the_letter_and_the_reply_is_drawn(mount):
    page = mount(question_data(Asked(QUESTION, None)))
    assert page.locator("button.al-pick").count() == 3
    assert page.locator(".al-why").count() == 0
    page.click('button[data-letter="C"]')
    assert page.evaluate("window.sent") == [["answer", "C"], ["saved"]]
    page.evaluate("data => window.reply(data)",
                  question_data(Asked(QUESTION, Commitment(answer="C"))))
    assert page.locator("button.al-pick").count() == 0
    verdicts = page.locator(".al-why").all_inner_texts()
    assert [v.split(":")[0] for v in verdicts] == ["Wrong", "Wrong", "Right"]
    assert page.locator(".al-chosen").inner_text().startswith("C. user, reply, result c1")
    assert page.locator("details[open] .al-answer").inner_text() == QUESTION.answer


def test_own_words_are_sent_and_drawn_as_text(mount):
    page = mount(question_data(Asked(OPEN, None)))
    page.fill("textarea.al-answer-box", f"  {HOSTILE}  ")
    page.click('button[data-action="commit"]')
    assert page.evaluate("window.sent") == [["answer", HOSTILE], ["saved"]]
    page.evaluate("data => window.reply(data)",
                  question_data(Asked(OPEN, Commitment(answer=HOSTILE))))
    assert HOSTILE in page.locator(".al-committed").inner_text()
    assert page.locator("#host script, #host img").count() == 0
