"""Two runs side by side: turns, their states, where the runs part, folding, escaping, and
how `%transcript A --diff B` reads its line (tests/notebook/test_magics.py runs it)."""

from __future__ import annotations

import re

import pytest

from agentlab_magics import lab
from agentlab_magics.magics import transcript_args
from agentlab_magics.widgets.run_diff import DRAWN_TURNS, HIDDEN_TURNS, RunDiff, diff_data, turns
from tests.two_runs import QUESTION, READ, THEIRS, TYPO, YOURS

SHOWN = re.compile(r'<tr class="al-turn[^"]*" data-turn="\d+">')  # a turn drawn, not folded


def test_a_record_is_cut_into_turns_that_hold_their_results():
    assert turns(YOURS) == [[0], [1, 2], [3, 4], [5]]
    assert turns([lab.tool_result(READ, "x"), lab.user("a")]) == [[0], [1]]


def test_the_seeds_runs_part_at_the_turn_that_drops_the_result():
    data = diff_data(THEIRS, YOURS, ("theirs", "yours"))
    assert [row["state"] for row in data["rows"]] == ["same", "shape", "shape", "right only"]
    assert data["parted"] == 2
    assert data["summary"] == (
        "The runs part at turn 2: theirs and yours hold different messages there (theirs: 3 "
        "messages, yours: 6 messages; 3 of 4 turns differ).")


def test_other_words_in_the_same_shape_and_the_same_run():
    other_words = [QUESTION, lab.reply(TYPO), lab.tool_result(TYPO, "No tool raed", is_error=True)]
    assert [row["state"] for row in diff_data(YOURS[:3], other_words)["rows"]] == [
        "same", "words"]
    renamed = [QUESTION, lab.reply(lab.call("raed", {"path": "config.py"}, id="call_9"))]
    assert diff_data(YOURS[:2], renamed)["rows"][1]["state"] == "words"
    same = diff_data(YOURS, list(YOURS))
    assert same["parted"] is None and same["summary"].startswith("The runs are the same")
    assert [row["state"] for row in diff_data(YOURS, YOURS[:4])["rows"]][-1] == "left only"


def test_the_html_marks_the_turn_the_runs_part_at_and_escapes_what_they_said():
    hostile = [lab.user("<script>alert(1)</script>"), lab.say("<b>bold</b>")]
    html = RunDiff(hostile, [hostile[0]], ("<i>a</i>", "b")).to_html()
    assert "<script>alert" not in html and "&lt;script&gt;" in html and "<b>bold" not in html
    assert "<i>a</i>" not in html and "&lt;i&gt;a&lt;/i&gt; beside b" in html
    seed = RunDiff(THEIRS, YOURS, ("theirs", "yours")).to_html()
    assert seed.count('class="al-turn al-state-shape al-parts"') == 1
    assert 'data-turn="2"' in seed and "parts here" in seed


def test_the_text_says_where_the_runs_part():
    text = RunDiff(THEIRS, YOURS, ("theirs", "yours")).to_text()
    assert "turn 2 ≠ shape ← the runs part here" in text
    assert "  yours   [1] assistant -> toolCall c1" in text
    assert " " * 10 + '[2] toolResult c1 -> error: "Tool raed not found"' in text
    assert "  theirs  —" in text


def test_long_runs_fold_their_same_turns_and_stop_drawing_at_the_cap():
    long = [lab.user(f"question {n}") for n in range(2000)]
    changed = list(long)
    changed[1000] = lab.user("another question")
    data = diff_data(long, changed)
    html = RunDiff(long, changed).to_html()
    assert data["parted"] == 1001 and len(SHOWN.findall(html)) == 5
    assert "… 998 same turns" in html and "… 997 same turns" in html
    everywhere = [lab.user(f"other {n}") for n in range(2000)]
    capped = RunDiff(long, everywhere).to_html()
    assert len(SHOWN.findall(capped)) == DRAWN_TURNS
    assert f"… {2000 - DRAWN_TURNS:,} more turns not drawn" in capped


def test_folded_turns_travel_hidden_for_the_widget_to_unfold_up_to_a_budget():
    long = [lab.user(f"question {n}") for n in range(2000)]
    changed = [*long[:1000], lab.user("another question"), *long[1001:]]
    view = RunDiff(long, changed).data()
    folds = [row for row in view["rows"] if "note" in row]
    assert [(fold["note"], fold["unfolds"]) for fold in folds] == [
        ("… 998 same turns", True), ("… 997 same turns", False)]
    folded = [row["turn"] for row in view["rows"] if row.get("folded")]
    assert folded == list(range(2, 1000)) and len(folded) <= HIDDEN_TURNS
    html = RunDiff(long, changed).to_html()
    assert html.count(" hidden>") == len(folded)
    assert view["rows"][2]["left"] == "[1] user -> \"question 1\""


def test_something_that_is_not_a_list_of_messages_is_a_type_error():
    with pytest.raises(TypeError, match="Give two lists of messages"):
        diff_data(THEIRS, 42)


def test_transcript_args_reads_diff_and_its_expression():
    assert transcript_args("theirs --diff yours") == ("theirs", set(), "yours")
    assert transcript_args("runs['a b'] --diff runs['c'] --static") == (
        "runs['a b']", {"static"}, "runs['c']")
    assert transcript_args("record --diff") == ("record", set(), "")
    assert transcript_args("record") == ("record", set(), None)
