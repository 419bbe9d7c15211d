"""How long the Python side of a transcript takes to build, and how much it sends, by size.

For 10, 1,000 and 10,000 messages of a realistic run (a prompt, a reply with a call, its
result, an answer; every fifth result a long command output ending in a truncation notice),
times transcript_data, the widget's state as JSON (as ipywidgets prepares it for the comm)
and the static HTML, against a baseline measured in the same process: json.dumps of the same
messages.
Prints a table; asserts nothing. Target: 10,000 messages in under 1 s and under 5 MB.

    /work/venv/bin/python bench/bench_transcript.py
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable

from ipywidgets.widgets.widget import _remove_buffers

from agentlab_magics import lab
from agentlab_magics.widgets.transcript_data import transcript_data
from agentlab_magics.widgets.transcript_html import transcript_html
from agentlab_magics.widgets.transcript_widget import TranscriptWidget

SIZES = (10, 1_000, 10_000)
REPEAT = 3


def run(size: int) -> list[dict]:
    """`size` messages of an agent at work: four per turn, some tool outputs 2,000 lines long."""
    messages: list[dict] = []
    turn = 0
    while len(messages) < size:
        turn += 1
        call = lab.call("bash", {"command": f"grep -rn TODO src/module_{turn}"}, id=f"c{turn}")
        long = turn % 5 == 0
        lines = [f"src/module_{turn}/file.py:{line}: # TODO tidy this (é)"
                 for line in range(2_000 if long else 3)]
        output = "\n".join(lines)
        if long:
            output += ("\n[Showing the last 2000 of 5000 lines. Narrow the command for more.]"
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
    data_time, data = best(lambda: transcript_data(messages))
    widget = TranscriptWidget(data=data)
    state_time, state = best(lambda: json.dumps(_remove_buffers(widget.get_state())[0],
                                                ensure_ascii=False).encode())
    html_time, page = best(lambda: transcript_html(data))
    return {"messages": size, "base_ms": base_time * 1e3, "base_mb": len(base) / 1e6,
            "data_ms": data_time * 1e3, "state_ms": state_time * 1e3,
            "state_mb": len(state) / 1e6, "html_ms": html_time * 1e3,
            "html_mb": len(page.encode()) / 1e6}


def main() -> None:
    header = (f"{'messages':>9} {'json.dumps':>11} {'input MB':>9} {'data':>9} {'state':>9} "
              f"{'data+state':>11} {'x base':>7} {'state MB':>9} {'x base':>7} {'html':>9} "
              f"{'html MB':>8}")
    print(header)
    print("-" * len(header))
    for size in SIZES:
        m = measure(size)
        total = m["data_ms"] + m["state_ms"]
        print(f"{m['messages']:>9,} {m['base_ms']:>9.1f}ms {m['base_mb']:>9.2f} "
              f"{m['data_ms']:>7.1f}ms {m['state_ms']:>7.1f}ms {total:>9.1f}ms "
              f"{total / m['base_ms']:>7.1f} {m['state_mb']:>9.2f} "
              f"{m['state_mb'] / m['base_mb']:>7.2f} {m['html_ms']:>7.1f}ms {m['html_mb']:>8.2f}")
    print("\ndata: transcript_data; state: the widget's state as JSON (what the comm sends);"
          "\nx base: against json.dumps of the same messages; html: the static fallback"
          " (long transcripts drawn in part).")


if __name__ == "__main__":
    main()
