"""transcript.js in a real browser, through anywidget's render({model, el}) contract: windowed
rows, call/result highlighting, the record/request toggle, raw JSON, search, and hostile text
drawn as text. Runs in Debian's chromium (tests/chromium.py)."""

import pytest

from agentlab_magics import lab
from agentlab_magics.checking.report import CheckReport, SentRequest, TestOutcome
from agentlab_magics.widgets import report_data, transcript_data
from agentlab_magics.widgets.assets import asset, stylesheet
from tests.widgets.cases import (
    C1,
    FAILED,
    HOSTILE,
    R1,
    R2,
    SCRIPT,
    A,
    U,
    hostile_messages,
    turns,
)

PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>%s</style></head>
<body><div id="host"></div><script type="module">
window.mount = async (source, data) => {
  const host = document.getElementById("host");
  if (window.unmount) window.unmount();
  host.replaceChildren();
  const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
  const widget = (await import(url)).default;
  const listeners = [];
  const model = {get: () => data, on: (name, f) => listeners.push(f), off() {}};
  window.unmount = widget.render({model, el: host});
};
</script></body></html>"""


@pytest.fixture
def mount(browser):
    """mount(data) draws `data` with transcript.js in a fresh page and returns the page."""
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def draw(data: dict):
        page.set_content(PAGE % stylesheet("transcript.css"))
        page.evaluate("([source, data]) => window.mount(source, data)",
                      [asset("transcript.js"), data])
        page.wait_for_timeout(100)
        return page

    yield draw
    page.close()
    assert errors == []


def indexes(page, selector: str) -> list[int]:
    return page.eval_on_selector_all(selector, "nodes => nodes.map(n => Number(n.dataset.index))")


def test_only_the_rows_near_the_view_are_in_the_page(mount):
    page = mount(transcript_data(turns(1_500)))
    drawn = indexes(page, ".al-row")
    assert 0 in drawn and len(drawn) < 100
    page.eval_on_selector(".al-scroll", "node => { node.scrollTop = node.scrollHeight; }")
    page.wait_for_timeout(200)
    drawn = indexes(page, ".al-row")
    assert 5_999 in drawn and 0 not in drawn and len(drawn) < 100


def test_a_call_chip_and_its_result_light_up_together(mount):
    page = mount(transcript_data([U, A, R1, R2]))
    page.hover('.al-chip[data-call-id="c2"]')
    assert indexes(page, ".al-row.al-highlight") == [3]
    assert page.eval_on_selector_all(".al-chip.al-highlight", "n => n.map(c => c.dataset.callId)") \
        == ["c2"]
    page.hover('.al-row[data-index="2"]')
    assert indexes(page, ".al-row.al-highlight") == [2]
    assert page.eval_on_selector_all(".al-chip.al-highlight", "n => n.map(c => c.dataset.callId)") \
        == ["c1"]


def test_clicking_a_chip_scrolls_to_its_result_and_keeps_it_lit(mount):
    messages = turns(300)
    messages[1] = lab.reply("reading", lab.call("read", {"path": "far.py"}, id="far"))
    messages.append(lab.tool_result(lab.call("read", {}, id="far"), "far away"))
    page = mount(transcript_data(messages))
    page.click('.al-chip[data-call-id="far"]')
    page.wait_for_timeout(100)
    page.mouse.move(0, 0)
    assert indexes(page, ".al-row.al-highlight") == [len(messages) - 1]


def test_complaints_sit_on_their_rows_and_the_toggle_shows_the_request(mount):
    page = mount(transcript_data([U, lab.reply(C1), FAILED, R1]))
    complaint = lambda index: page.eval_on_selector_all(  # noqa: E731
        f'.al-row[data-index="{index}"] .al-complaints li', "n => n.map(li => li.textContent)")
    assert complaint(1) == ["toolCall c1 has no toolResult (its toolResult is at row 3; it must "
                            "come right after this message, in call order)"
                            " (not in the request context_for_model computes)"]
    assert indexes(page, ".al-left-out") == []
    toggle = page.locator('[data-action="toggle-view"]')
    toggle.click()
    assert page.get_attribute(".al-transcript", "data-view") == "request"
    assert indexes(page, ".al-left-out") == [2]
    assert complaint(1) == [] and complaint(2) == []
    assert toggle.text_content() == "show the record"
    toggle.click()
    assert indexes(page, ".al-left-out") == [] and complaint(1) != []


def test_long_output_is_collapsed_with_its_notice_in_view(mount):
    content = "".join(f"line {n}\n" for n in range(1, 1786)) + (
        "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]")
    page = mount(transcript_data([U, lab.reply(C1), lab.tool_result(C1, content)]))
    row = page.locator('.al-row[data-index="2"]')
    assert row.locator(".al-notice").inner_text() == (
        "[Showing lines 1-1785 of 5000. Use offset=1786 to continue.]")
    assert row.locator("details.al-rest").get_attribute("open") is None
    assert row.locator(".al-more").inner_text() == "… 1,745 more lines not shown"


def test_raw_json_and_search(mount):
    page = mount(transcript_data(turns(50)))
    page.click('[data-action="toggle-raw"]')
    assert page.locator('.al-row[data-index="0"] pre.al-raw').inner_text() == (
        '{"role": "user", "content": "question 0"}')
    page.click('[data-action="toggle-raw"]')
    page.fill('[data-action="search"]', "answer 4")
    page.wait_for_timeout(50)
    assert indexes(page, ".al-row") == [19] + [163 + 4 * n for n in range(10)]
    assert page.locator(".al-found").inner_text() == "11 of 200 messages match"
    assert page.locator('.al-row[data-index="19"] mark.al-hit').inner_text() == "answer 4"


def test_hostile_text_is_drawn_as_text_and_never_runs(mount):
    messages = hostile_messages()
    messages[2]["content"] = messages[2]["content"].replace("alert(1)", "window.pwned=1")
    messages[0]["content"] = "<img src=x onerror=window.pwned=1>"
    page = mount(transcript_data(messages))
    page.wait_for_timeout(200)
    assert page.evaluate("window.pwned") is None
    assert page.eval_on_selector_all("#host img, #host script", "n => n.length") == 0
    assert page.locator('.al-row[data-index="0"] .al-text').inner_text() == (
        "<img src=x onerror=window.pwned=1>")
    assert HOSTILE in page.locator('.al-row[data-index="1"] .al-chip').inner_text()
    assert SCRIPT in page.locator('.al-row[data-index="3"] .al-error-message').inner_text()


def test_the_report_draws_each_test_and_each_records_transcript(mount):
    report = CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=[
        TestOutcome(name="pairs", sentence="Every call gets exactly one result.",
                    outcome="failed", message="c2 was never answered: the strict provider "
                    "refuses that", record=[U, A, R1]),
        TestOutcome(name="stops", sentence="A plain answer ends the run.", outcome="passed")])
    page = mount(report_data(report))
    assert page.locator(".al-summary").inner_text() == "Lesson 4: 1 of 2 tests passed"
    assert page.eval_on_selector_all(".al-test .al-mark", "n => n.map(m => m.textContent)") \
        == ["✗", "✓"]
    failed = page.locator('.al-test[data-test="pairs"] details')
    assert failed.get_attribute("open") is not None
    assert failed.locator(".al-message").inner_text() == (
        "c2 was never answered: the strict provider refuses that")
    assert failed.locator('[data-action="toggle-view"]').count() == 0  # no course-rule request
    assert indexes(page, ".al-transcript .al-row") == [0, 1, 2]
    assert failed.locator('.al-row[data-index="1"] .al-complaints li').inner_text() == (
        "toolCall c2 has no toolResult")


def test_the_uncommon_marks_are_explained_under_the_report_that_shows_them(mount):
    """"!" and "◷" are said in words under the tests, in the widget, the static HTML and the
    text; a report with only ✓ and ✗ has no key."""
    from agentlab_magics.checking.text_report import render
    from agentlab_magics.widgets.report_view import report_html, report_text

    report = CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=[
        TestOutcome(name="hangs", sentence="A run ends.", outcome="timeout", message="late"),
        TestOutcome(name="raises", sentence="A tool error is a result.", outcome="error",
                    message="KeyError"),
        TestOutcome(name="stops", sentence="A plain answer ends the run.", outcome="failed")])
    key = ("Marks: ! the test could not finish: your code raised an error, ended its process "
           "or went past a limit; ◷ the test ran out of time")
    data = report_data(report)
    assert mount(data).locator(".al-key").inner_text() == key
    assert f'<p class="al-key">{key}</p>' in report_html(data)
    assert report_text(report, data).endswith(key) and render(report).endswith(key)
    plain = CheckReport(lab_id="lesson4", title="Lesson 4", outcomes=report.outcomes[2:])
    assert mount(report_data(plain)).locator(".al-key").count() == 0
    assert "Marks:" not in render(plain) + report_html(report_data(plain))


def test_the_report_draws_the_requests_sent_and_closes_a_repeated_not_written(mount):
    missing = "run_agent is not written yet: it runs the loop."
    refused = f"400 invalid_request: {HOSTILE}"
    report = CheckReport(lab_id="lesson5", title="Lesson 5", outcomes=[
        TestOutcome(name="first", sentence="One.", outcome="failed", message=missing),
        TestOutcome(name="again", sentence="Two.", outcome="failed", message=missing),
        TestOutcome(name="sent", sentence="Three.", outcome="failed", message="Wrong.",
                    record=[U, FAILED], requests_sent=2,
                    requests=[SentRequest(number=1, shape="U"),
                              SentRequest(number=2, shape="U A(error) U", refused=refused)])])
    page = mount(report_data(report))
    assert page.locator('.al-test[data-test="first"] details').get_attribute("open") is not None
    assert page.locator('.al-test[data-test="again"] details').get_attribute("open") is None
    others = page.locator('.al-test:not([data-test="sent"])')
    assert others.locator(":is(.al-transcript, .al-sent)").count() == 0
    sent = page.locator('.al-test[data-test="sent"] .al-sent')
    assert sent.locator(".al-title").inner_text() == (
        "Requests your code sent the model: 2 model calls")
    assert sent.locator(".al-sent-request .al-shape").all_inner_texts() == ["U", "U A(error) U"]
    assert sent.locator(".al-sent-request.al-bad .al-refused").inner_text() == f"refused: {refused}"
    assert page.locator("script, img").count() == 1  # the page's own module script only


def test_a_diff_draws_hostile_words_and_names_as_text(mount):
    from agentlab_magics.widgets.run_diff import RunDiff

    hostile = hostile_messages()
    hostile[0]["content"] = "<img src=x onerror=window.pwned=1>"
    data = RunDiff(hostile, hostile[:1], ("<b>mine</b>", "<script>window.pwned=2</script>")).data()
    page = mount(data)
    page.wait_for_timeout(200)
    assert page.evaluate("window.pwned") is None
    assert page.eval_on_selector_all("#host img, #host script, #host b", "n => n.length") == 0
    assert page.locator(".al-title").inner_text() == (
        "<b>mine</b> beside <script>window.pwned=2</script>")
    assert "<img src=x onerror=window.pwned=1>" in page.locator("tbody td").nth(1).inner_text()


def focused_index(page) -> int | None:
    return page.evaluate("() => { const row = document.activeElement.closest('.al-row');"
                         " return row ? Number(row.dataset.index) : null; }")


def test_the_keyboard_goes_from_row_to_row_and_no_key_reaches_the_notebook(mount):
    page = mount(transcript_data(turns(100)))
    page.evaluate("() => { window.reached = []; document.addEventListener('keydown',"
                  " (event) => window.reached.push(event.key)); }")
    page.click('.al-row[data-index="0"] .al-line')
    page.locator('.al-row[data-index="0"]').focus()
    for _ in range(2):
        page.keyboard.press("ArrowDown")
    assert focused_index(page) == 2
    page.keyboard.press("ArrowUp")
    assert focused_index(page) == 1
    page.keyboard.press("End")
    assert focused_index(page) == 399
    assert page.locator('.al-row[data-index="399"]').is_visible()
    page.keyboard.press("Home")
    assert focused_index(page) == 0
    for key in ("b", "d", "d", "Enter", "ArrowDown"):  # a notebook in command mode acts on these
        page.keyboard.press(key)
    assert page.evaluate("() => window.reached") == []
    page.keyboard.press("Control+s")  # a key with a modifier is the notebook's (save)
    assert page.evaluate("() => window.reached") == ["Control", "s"]
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement.closest('.al-transcript')") is None


def test_a_link_to_a_row_a_search_hides_clears_the_search(mount):
    page = mount(transcript_data(turns(100)))
    page.fill('[data-action="search"]', "reading 57")
    page.wait_for_timeout(50)
    assert indexes(page, ".al-row") == [229]
    page.click('.al-chip[data-call-id="c57"]')
    page.wait_for_timeout(100)
    assert page.input_value('[data-action="search"]') == ""
    assert page.locator(".al-found").inner_text() == ""
    assert page.locator('.al-row[data-index="230"]').is_visible()
    assert 230 in indexes(page, ".al-row.al-highlight")


def test_clearing_a_search_keeps_its_row_in_view_not_row_0(mount):
    page = mount(transcript_data(turns(300)))
    page.fill('[data-action="search"]', "answer 120")
    page.wait_for_timeout(50)
    assert indexes(page, ".al-row") == [483]
    page.fill('[data-action="search"]', "")
    page.wait_for_timeout(100)
    assert page.locator('.al-row[data-index="483"]').is_visible()
    assert not page.locator('.al-row[data-index="0"]').is_visible()



def test_a_long_shape_shows_whole_lines_and_scrolls_the_rest(mount):
    page = mount(transcript_data(turns(100)))
    shown = page.eval_on_selector(".al-shape", """node => {
        const style = getComputedStyle(node);
        const inner = node.clientHeight - parseFloat(style.paddingTop)
            - parseFloat(style.paddingBottom);
        return [inner / parseFloat(style.lineHeight), node.scrollHeight > node.clientHeight];
    }""")
    assert shown[1] and abs(shown[0] - round(shown[0])) < 0.05 and round(shown[0]) == 2, shown


# A kernel's side of a transcript of a million messages, in the page: rows made from four
# judged rows (a user's question, a call, its result, an answer) as the feed would send them,
# the summary flagging only the last row.
MILLION = 1_000_000
FAKE_KERNEL = """([source, data, templates, last]) => {
  const host = document.getElementById("host");
  const listeners = [];  // what the view asks to hear of the kernel: "msg:custom"
  const answer = (content, buffers) => setTimeout(
    () => listeners.forEach((f) => f(content, buffers)), 5);
  const row = (index) => ({ ...templates[index % templates.length], index });
  const model = {
    get: () => data, on: (name, f) => name === "msg:custom" && listeners.push(f), off() {},
    send(question) {
      if (question.want === "summary") {
        answer({ answer: "summary", head: {}, rows: [] },
               [new DataView(new Int32Array([last]).buffer)]);
      } else if (question.want === "rows") {
        const rows = [];
        const to = Math.min(question.to, question.from + 200);
        for (let index = question.from; index < to; index++) rows.push(row(index));
        answer({ answer: "rows", rows }, []);
      }
    },
  };
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  return import(url).then((widget) => { window.unmount = widget.default.render({ model, el: host }); });
}"""


def test_every_row_of_a_million_is_reached_by_scrolling_end_and_next_flagged(browser):
    """Chromium lays out no box taller than about 33.5 million pixels, which 560,000 rows
    reach: past that, rows are scrolled through a shorter spacer, so the last of a million
    rows is reached by scrolling to the end, by End from a clicked row, and by "next
    flagged"."""
    from agentlab_magics.widgets.transcript_feed import TranscriptFeed

    first = TranscriptFeed(turns(30)).first()
    first.update(total=MILLION, summary=f"{MILLION:,} messages")
    templates = [dict(row) for row in first["rows"][:4]]
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.set_content(PAGE % stylesheet("transcript.css"))
    page.evaluate(FAKE_KERNEL, [asset("transcript.js"), first, templates, MILLION - 1])
    last = page.locator(f'.al-row[data-index="{MILLION - 1}"]')
    page.evaluate("() => { const s = document.querySelector('.al-scroll'); "
                  "s.scrollTop = s.scrollHeight; }")
    assert last.text_content(timeout=5000)
    assert last.bounding_box()["y"] < 900
    page.evaluate("() => { document.querySelector('.al-scroll').scrollTop = 0; }")
    page.click('.al-row[data-index="2"]')
    page.keyboard.press("End")
    page.wait_for_function(
        f"() => document.activeElement?.dataset?.index === '{MILLION - 1}'", timeout=5000)
    page.keyboard.press("Home")
    page.wait_for_function("() => document.activeElement?.dataset?.index === '0'",
                           timeout=5000)
    page.click('[data-action="next-flagged"]')
    assert last.text_content(timeout=5000)
    page.close()
