"""How fast a transcript draws, by size: in Python, and in real JupyterLab against print.

`python`: for 10, 1,000 and 10,000 messages of a realistic run (a prompt, a reply with a call,
its result, an answer; every fifth result a long command output ending in a truncation
notice), times transcript_data (the whole record judged and drawn, as the static rendering
and a report need), the widget's first state as JSON (what the comm sends before the first
row) and the static HTML, against a baseline measured in the same process: json.dumps of the
same messages.

`browser`: JupyterLab on 127.0.0.1 in Debian's chromium (as the browser tests run it), one
notebook, for 1,000, 10,000 and 100,000 messages of the same run (long outputs of
BROWSER_LINES lines), median of BROWSER_REPEAT runs of each cell:
- widget: a cell that does what `%transcript records[n]` does (display(Transcript(...))),
  from Shift+Enter to its first row drawn; beside it the kernel's time in that display call
  and the bytes the page received over its websockets in between;
- print: a cell that prints the same messages as JSON, from Shift+Enter to the text drawn;
- end: scrolling the widget to its end, until the last row is drawn (fetched from the kernel).
`live`: in the same way, 1,000 message events told to `watch()` two milliseconds apart; the
time from each event told in the kernel to its row drawn in the page, median and p95.

`diff`: for the same sizes, two records of one run with one result changed in the middle:
`%transcript A --diff B`'s diff made, and made and drawn, against json.dumps of both.
Snapshots tables and the issue's goals beside them; asserts nothing.

    .venv/bin/python bench/bench_transcript.py            # every part
    .venv/bin/python bench/bench_transcript.py browser    # or python, live, diff, trace, verdict

`trace`: a 100 MB OpenAI Agents SDK trace (JSON Lines, each generation span repeating the
history, as the SDK writes it) read by lab.read_run and drawn, beside a course record of as
many messages drawn the same way, and the same run as lab.export_run writes it (OTLP JSON
under the GenAI conventions, read whole): time to the widget's first state, and peak memory.

`verdict`: 1,000,000 messages of the same run judged whole, as a transcript's header says it
(the strict provider's verdict, counts, links), beside json.dumps of the same messages.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ipywidgets.widgets.widget import _remove_buffers

from agentlab_magics import lab
from agentlab_magics.widgets.run_diff import RunDiff, diff_data
from agentlab_magics.widgets.transcript import Transcript
from agentlab_magics.widgets.transcript_data import Judgement
from agentlab_magics.widgets.transcript_feed import TranscriptFeed

SIZES = (10, 1_000, 10_000)
REPEAT = 3


def run(size: int, long_lines: int = 2_000) -> list[dict]:
    """`size` messages of an agent at work: four per turn, every fifth tool output
    `long_lines` lines long."""
    messages: list[dict] = []
    turn = 0
    while len(messages) < size:
        turn += 1
        call = lab.call("bash", {"command": f"grep -rn TODO src/module_{turn}"}, id=f"c{turn}")
        long = turn % 5 == 0
        lines = [f"src/module_{turn}/file.py:{line}: # TODO tidy this (é)"
                 for line in range(long_lines if long else 3)]
        output = "\n".join(lines)
        if long:
            output += (f"\n[Showing the last {long_lines} of 5000 lines. Narrow the command "
                       "for more.]"
                       "\nCommand exited with code 1")
        messages += [lab.user(f"Turn {turn}: what is left to do in module {turn}?"),
                     lab.reply(f"I will search module {turn}.", call),
                     lab.tool_result(call, output),
                     lab.say(f"Module {turn} has {len(lines)} TODOs left.")]
    return messages[:size]


def best(work: Callable[[], Any]) -> tuple[float, Any]:
    """(the fastest of REPEAT runs of `work`, in seconds; what it returned)."""
    times, result = [], None
    for _ in range(REPEAT):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return min(times), result


def measure(size: int) -> dict[str, float]:
    messages = run(size)
    base_time, base = best(lambda: json.dumps(messages, ensure_ascii=False).encode())
    first_time, first = best(lambda: json.dumps(
        _remove_buffers(Transcript(messages).widget.get_state())[0], ensure_ascii=False).encode())
    judge_time, _ = best(lambda: TranscriptFeed(messages).answer({"want": "summary"}))
    html_time, page = best(lambda: Transcript(messages).to_html())
    return {"messages": size, "base_ms": base_time * 1e3, "base_mb": len(base) / 1e6,
            "first_ms": first_time * 1e3, "first_mb": len(first) / 1e6,
            "judge_ms": judge_time * 1e3, "html_ms": html_time * 1e3,
            "html_mb": len(page.encode()) / 1e6}


def python_table() -> None:
    header = (f"{'messages':>9} {'json.dumps':>11} {'input MB':>9} {'first state':>12} "
              f"{'x base':>7} {'state MB':>9} {'judged':>9} {'x base':>7} {'static html':>12} "
              f"{'html MB':>8}")
    print(header)
    print("-" * len(header))
    for size in SIZES:
        m = measure(size)
        print(f"{m['messages']:>9,} {m['base_ms']:>9.1f}ms {m['base_mb']:>9.2f} "
              f"{m['first_ms']:>10.1f}ms {m['first_ms'] / m['base_ms']:>7.2f} "
              f"{m['first_mb']:>9.2f} {m['judge_ms']:>7.1f}ms {m['judge_ms'] / m['base_ms']:>7.2f} "
              f"{m['html_ms']:>10.1f}ms {m['html_mb']:>8.2f}")
    print("\nfirst state: the widget made and its state as JSON (all the comm sends before the"
          " first row);\njudged: the kernel's answer to the browser's first question (the"
          " whole record judged, the first rows again);\nstatic html: judged and drawn in part"
          " (ends and flagged rows); x base: against json.dumps of the same messages.")


BROWSER_SIZES = tuple(int(size) for size in os.environ.get(
    "BENCH_SIZES", "1000,10000,100000").split(","))
BROWSER_REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
BROWSER_LINES = 20   # lines of every fifth tool output, so print can draw 100,000 at all
STEP_MS = 600_000    # the longest one measured cell may take
# Counts what the page receives over its websockets (the kernel's messages), with the time.
COUNT_FRAMES = """(() => {
  const Native = window.WebSocket;
  window.__frames = [];
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const data = event.data;
        const size = typeof data === "string" ? new Blob([data]).size
          : (data.byteLength === undefined ? data.size : data.byteLength);
        window.__frames.push([performance.now(), size]);
      });
    }
  };
})();"""
# Watches cell `index` from the Shift+Enter that runs it to the first new node matching
# `selector` with a size: what the student sees as the first row (or the printed text).
WATCH = """([index, selector]) => {
  const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[index];
  const stale = new Set(cell.querySelectorAll(selector));
  const watch = { start: null, end: null };
  window.__watch = watch;
  const pressed = (event) => {
    if (event.key === "Enter" && event.shiftKey) {
      watch.start = performance.now();
      document.removeEventListener("keydown", pressed, true);
    }
  };
  document.addEventListener("keydown", pressed, true);
  const seen = () => [...cell.querySelectorAll(selector)].some(
    (found) => !stale.has(found) && found.getBoundingClientRect().height > 0);
  const observer = new MutationObserver(() => {
    if (watch.start !== null && watch.end === null && seen()) {
      watch.end = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(cell, { childList: true, subtree: true, characterData: true });
}"""
# Scrolls cell `index`'s transcript to its end and waits for its last row, drawn.
TO_THE_END = """async ([index, last]) => {
  const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[index];
  const scroller = cell.querySelector(".al-scroll");
  const started = performance.now();
  scroller.scrollTop = scroller.scrollHeight;
  await new Promise((resolve) => {
    const check = () => {
      if (scroller.querySelector(`.al-row[data-index="${last}"]:not(.al-waiting)`)) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
  return performance.now() - started;
}"""


def browser_cells() -> list[str]:
    """The notebook: the records made, then per size a widget cell and a print cell, then a
    cell that shows the kernel-side times."""
    setup = (f"import json, sys, time\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
             "from bench_transcript import run\nfrom IPython.display import display\n"
             "from agentlab_magics.widgets import Transcript\n"
             f"records = {{size: run(size, {BROWSER_LINES}) for size in {BROWSER_SIZES!r}}}\n"
             "kernel_ms = {}")
    cells = [setup]
    for size in BROWSER_SIZES:
        cells.append(f"started = time.perf_counter()\ndisplay(Transcript(records[{size}]))\n"
                     f"kernel_ms.setdefault({size}, []).append("
                     "(time.perf_counter() - started) * 1e3)")
        cells.append(f"print(json.dumps(records[{size}], ensure_ascii=False))")
    cells.append("print(json.dumps(kernel_ms))")
    return cells


def run_cell(page: Any, index: int, selector: str | None = None) -> tuple[float, int]:
    """(ms from Shift+Enter to `selector` drawn in cell `index`, bytes received meanwhile);
    returns once the cell has finished ((0, 0) without a selector)."""
    prompt = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-InputPrompt")
    before = prompt.inner_text()
    if selector:
        page.evaluate(WATCH, [index, selector])
    prompt.click()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function("([index, before]) => { const text = document.querySelectorAll("
                           "'.jp-Notebook .jp-Cell')[index].querySelector('.jp-InputPrompt')"
                           ".textContent; return text !== before && /\\[\\d+\\]/.test(text); }",
                           arg=[index, before], timeout=STEP_MS)
    if not selector:
        return 0.0, 0
    page.wait_for_function("() => window.__watch.end !== null", timeout=STEP_MS)
    start, end = page.evaluate("() => [window.__watch.start, window.__watch.end]")
    received = page.evaluate("([start, end]) => window.__frames.filter(([at]) => at >= start "
                             "&& at <= end).reduce((sum, [, size]) => sum + size, 0)",
                             [start, end])
    return end - start, received


def browser_table() -> None:
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from playwright.sync_api import sync_playwright

    from tests.browser.lab_session import open_offline, serve_jupyterlab
    from tests.chromium import launch
    from tests.student_notebook import notebook_of

    cells = browser_cells()
    rows = []
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright, \
            serve_jupyterlab(Path(home), {"bench.ipynb": notebook_of(*cells)}) as served:
        browser = launch(playwright)
        browsing = open_offline(browser, served.url("bench.ipynb"), COUNT_FRAMES)
        page = browsing.page
        page.set_default_timeout(STEP_MS)
        page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
        run_cell(page, 0)  # the records made: nothing to draw
        for number, size in enumerate(BROWSER_SIZES):
            widget_cell, print_cell = 1 + 2 * number, 2 + 2 * number
            widget, sent, ends, printed = [], [], [], []
            for _ in range(BROWSER_REPEAT):
                drawn, received = run_cell(page, widget_cell,
                                           '.al-row[data-index="0"]:not(.al-waiting)')
                page.locator(".jp-Notebook .jp-Cell").nth(widget_cell).locator(
                    ".al-verdict:not(.al-pending)").first.wait_for(timeout=STEP_MS)
                widget.append(drawn)
                sent.append(received)
                ends.append(page.evaluate(TO_THE_END, [widget_cell, size - 1]))
            for _ in range(BROWSER_REPEAT):
                printed.append(run_cell(page, print_cell, ".jp-OutputArea-output pre")[0])
            rows.append((size, widget, sent, ends, printed))
        report = len(cells) - 1
        run_cell(page, report, ".jp-OutputArea-output pre")
        kernel = json.loads(page.locator(".jp-Notebook .jp-Cell").nth(report).locator(
            ".jp-OutputArea-output pre").inner_text())
        browser.close()
    header = (f"{'messages':>9} {'first row':>10} {'print':>10} {'x faster':>9} "
              f"{'kernel':>8} {'bytes first':>12} {'to the end':>11}")
    print(f"JupyterLab, Debian chromium, median of {BROWSER_REPEAT}")
    print(header)
    print("-" * len(header))
    for size, widget, sent, ends, printed in rows:
        first, shown = statistics.median(widget), statistics.median(printed)
        print(f"{size:>9,} {first:>8.0f}ms {shown:>8.0f}ms {shown / first:>8.1f}x "
              f"{statistics.median(kernel[str(size)]):>6.1f}ms "
              f"{statistics.median(sent) / 1e3:>10.1f}KB {statistics.median(ends):>9.0f}ms")
    print("\nfirst row: Shift+Enter to the widget's first row drawn; print: to the JSON drawn;"
          "\nkernel: the display call's time in the kernel; bytes first: what the page received"
          " before the first row;\nto the end: scrolling to the end until the last row is"
          " drawn.\ngoals: 10,000 <= 300 ms, 100,000 <= 600 ms, >= 5x print at 10,000, the end"
          " <= 100 ms, kernel and bytes flat.")


LIVE_EVENTS = 1_000
LIVE_PACE = 0.002  # seconds between two events: a fast run's stream
# Records, for cell `index`, when each row of its transcript was first drawn (epoch ms).
SEEN = """(index) => {
  const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[index];
  window.__seen = {};
  new MutationObserver(() => {
    const now = performance.timeOrigin + performance.now();
    for (const row of cell.querySelectorAll(".al-row:not(.al-waiting)")) {
      window.__seen[row.dataset.index] ??= now;
    }
  }).observe(cell, { childList: true, subtree: true });
}"""


def live_table() -> None:
    """LIVE_EVENTS message events told to `watch()` one every LIVE_PACE seconds, in real
    JupyterLab: for each, the time from the kernel telling it to its row drawn."""
    sys.path.insert(0, str(Path(__file__).parent.parent))
    from playwright.sync_api import sync_playwright

    from tests.browser.lab_session import open_offline, serve_jupyterlab
    from tests.chromium import launch
    from tests.student_notebook import notebook_of

    stream = ("import json, time\nfrom agentlab_magics import lab\n"
              "from agentlab_magics.widgets import watch\n"
              "live, told = watch(), []\n"
              f"for n in range({LIVE_EVENTS}):\n"
              "    told.append(time.time() * 1e3)\n"
              "    live({'type': 'message', 'message': lab.user(f'event {n}')})\n"
              f"    time.sleep({LIVE_PACE})\n"
              "live({'type': 'run_end', 'reason': 'done'})")
    cells = ["%load_ext agentlab_magics", stream, "print(json.dumps(told))"]
    with tempfile.TemporaryDirectory() as home, sync_playwright() as playwright, \
            serve_jupyterlab(Path(home), {"live.ipynb": notebook_of(*cells)}) as served:
        browser = launch(playwright)
        page = open_offline(browser, served.url("live.ipynb"), COUNT_FRAMES).page
        page.set_default_timeout(STEP_MS)
        page.locator("#jp-main-statusbar").get_by_text("Idle").wait_for()
        run_cell(page, 0)
        page.evaluate(SEEN, 1)
        run_cell(page, 1)
        run_cell(page, 2, ".jp-OutputArea-output pre")
        told = json.loads(page.locator(".jp-Notebook .jp-Cell").nth(2).locator(
            ".jp-OutputArea-output pre").inner_text())
        seen = page.evaluate("() => window.__seen")
        browser.close()
    lags = sorted(seen[str(n)] - told[n] for n in range(LIVE_EVENTS) if str(n) in seen)
    p95 = lags[min(len(lags) - 1, int(0.95 * len(lags)))]
    print(f"live: {LIVE_EVENTS:,} events, one every {LIVE_PACE * 1e3:.0f} ms; rows drawn: "
          f"{len(lags):,}; event to row: median {statistics.median(lags):.0f} ms, "
          f"p95 {p95:.0f} ms")
    print("(a row not drawn was replaced by newer ones before the page drew it; the finished "
          "record draws every row)")


def diff_table() -> None:
    """Two records of the same run, one with a result changed in the middle: the diff made
    and drawn (HTML and text), against json.dumps of both records in the same process."""
    print(f"{'messages':>9} {'json.dumps':>11} {'diff':>9} {'x base':>7} {'drawn':>9} "
          f"{'x base':>7}  parts at")
    for size in SIZES:
        left = run(size)
        right = [dict(message) for message in left]
        middle = next(index for index in range(size // 2, size)
                      if right[index]["role"] == "toolResult")
        right[middle] = {**right[middle], "content": "changed"}
        base_time, _ = best(lambda left=left, right=right: (json.dumps(left), json.dumps(right)))
        diff_time, data = best(lambda left=left, right=right: diff_data(left, right,
                                                                          ("before", "after")))

        def drawn(left: list = left, right: list = right) -> tuple[str, str]:
            view = RunDiff(left, right)
            return view.to_html(), view.to_text()

        drawn_time, _ = best(drawn)
        print(f"{size:>9,} {base_time * 1000:>9.1f}ms {diff_time * 1000:>7.1f}ms "
              f"{diff_time / base_time:>6.1f}x {drawn_time * 1000:>7.1f}ms "
              f"{drawn_time / base_time:>6.1f}x  turn {data['parted']:,}")
    print("diff: two records aligned by turn; drawn: the diff made and drawn as HTML and as "
          "text.\ngoal: two 10,000-message records under 1 s in Python.")


TRACE_MB = 100
TRACE_OUTPUT = 2_000  # characters of each tool's output


def agents_sdk_trace(path: Path, megabytes: int) -> int:
    """Write an OpenAI Agents SDK trace of one run, as its JSON Lines export writes it (each
    generation span holding the whole chat-completions history so far, spans in the order
    they finish), grown a turn at a time until it is `megabytes` big; its message count."""
    history: list[dict] = [{"role": "system", "content": "You are a careful agent."},
                           {"role": "user", "content": "Find every TODO in src/."}]
    written, turn = 0, 0
    with open(path, "w", encoding="utf-8") as out:
        while written < megabytes * 1e6:
            turn += 1
            call = {"id": f"call_{turn}", "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps(
                        {"command": f"grep -rn TODO src/module_{turn}"})}}
            reply = {"role": "assistant", "content": None, "tool_calls": [call]}
            line = json.dumps({"object": "trace.span", "id": f"span_g{turn}",
                               "trace_id": "trace_1", "parent_id": "span_agent",
                               "started_at": f"2026-12-07T10:00:{turn % 60:02d}.000000+00:00",
                               "ended_at": f"2026-12-07T10:00:{turn % 60:02d}.500000+00:00",
                               "span_data": {"type": "generation", "input": history,
                                             "output": [reply], "model": "gpt-test",
                                             "usage": {"input_tokens": 10 * turn,
                                                       "output_tokens": 20}}})
            line += "\n" + json.dumps({"object": "trace.span", "id": f"span_f{turn}",
                                       "trace_id": "trace_1", "parent_id": "span_agent",
                                       "span_data": {"type": "function", "name": "bash",
                                                     "input": call["function"]["arguments"],
                                                     "output": "x" * TRACE_OUTPUT}})
            out.write(line + "\n")
            written += len(line) + 1
            history = [*history, reply, {"role": "tool", "tool_call_id": call["id"],
                                         "content": "x" * TRACE_OUTPUT}]
        out.write(json.dumps({"object": "trace", "id": "trace_1", "workflow_name": "bench"})
                  + "\n")
    return len(history) - 1  # the system prompt is no message of the course's


def trace_table() -> None:
    """A 100 MB Agents SDK trace read and drawn (its widget's first state), beside a course
    record of as many messages, in a JSON file, read and drawn the same way, and each one's
    peak memory."""
    import tracemalloc

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trace.jsonl"
        size = agents_sdk_trace(path, TRACE_MB)
        record = Path(folder) / "record.json"
        record.write_text(json.dumps(run(size)), encoding="utf-8")
        otlp = Path(folder) / "otlp.jsonl"
        lab.export_run(lab.read_run(path), otlp)
        otlp_mb = otlp.stat().st_size // 1_000_000

        def first_state(source: Any) -> bytes:
            return json.dumps(_remove_buffers(Transcript(source).widget.get_state())[0],
                              ensure_ascii=False).encode()

        rows = []
        for name, work in (("course record", lambda: first_state(lab.read_run(record))),
                           (f"{TRACE_MB} MB Agents SDK trace",
                            lambda: first_state(lab.read_run(path))),
                           (f"its {otlp_mb} MB OTLP GenAI export",
                            lambda: first_state(lab.read_run(otlp)))):
            seconds, _ = best(work)
            tracemalloc.start()
            work()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            rows.append((name, seconds, peak))
    print(f"{'source':>26} {'messages':>9} {'first state':>12} {'x record':>9} {'peak MB':>8}")
    for name, seconds, peak in rows:
        print(f"{name:>26} {size:>9,} {seconds * 1e3:>10.0f}ms {seconds / rows[0][1]:>9.1f} "
              f"{peak / 1e6:>8.1f}")
    print("first state: from the file to the widget's first state as JSON, lab.read_run "
          "included; peak: Python's own allocations while doing it once (tracemalloc)")


def verdict_table(size: int = 1_000_000) -> None:
    """The verdict at `size` messages: the whole record judged (Judgement, its header made),
    beside json.dumps of the same messages in the same process."""
    messages = run(size, long_lines=20)
    base, _ = best(lambda: json.dumps(messages, ensure_ascii=False))
    judged, _ = best(lambda: Judgement(messages).head())
    print(f"{'messages':>10} {'json.dumps':>11} {'verdict':>9} {'x base':>7}   goal")
    print(f"{size:>10,} {base:>10.2f}s {judged:>8.2f}s {judged / base:>7.2f}   verdict under 2 s")


def main(parts: list[str]) -> None:
    if "python" in parts or not parts:
        python_table()
    if "diff" in parts or not parts:
        print()
        diff_table()
    if "browser" in parts or not parts:
        print()
        browser_table()
    if "live" in parts or not parts:
        print()
        live_table()
    if "trace" in parts or not parts:
        print()
        trace_table()
    if "verdict" in parts or not parts:
        print()
        verdict_table()


if __name__ == "__main__":
    main(sys.argv[1:])
