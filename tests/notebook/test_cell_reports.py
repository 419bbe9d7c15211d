"""A cell that checks again closes the report widget it drew before: in a real kernel, asked as
JupyterLab asks (allow_stdin true, the cell's id in the request's metadata), the kernel's widgets
stay as many however often one cell is checked, and a check in another cell keeps both."""

from __future__ import annotations

import statistics

import pytest
from jupyter_client.manager import start_new_kernel

from agentlab_magics.course import find_lab

WIDGETS = "len(__import__('ipywidgets').widgets.widget._instances)"


@pytest.fixture(scope="module")
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def in_cell(client, code: str, cell: str, expressions: dict[str, str] | None = None) -> dict:
    """Run `code` as the frontend runs cell `cell`; the reply's content, with the values of
    `expressions` once it has run."""
    request = client.session.msg("execute_request", {
        "code": code, "silent": False, "store_history": True, "allow_stdin": True,
        "stop_on_error": True, "user_expressions": expressions or {}},
        metadata={"cellId": cell})
    client.shell_channel.send(request)
    while True:
        reply = client.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
            assert reply["content"]["status"] == "ok", reply["content"]
            return reply["content"]


def counted(client, expression: str) -> int:
    """The whole number `expression` comes to in the kernel, asked from a cell of its own."""
    said = in_cell(client, "pass", "probe", {"n": expression})["user_expressions"]["n"]
    return int(said["data"]["text/plain"])


def test_checking_one_cell_again_and_again_keeps_one_report(kernel):
    check = f"%%check lesson1\n{find_lab('lesson1').reference}"
    in_cell(kernel, "%load_ext agentlab_magics", "load")
    before = counted(kernel, WIDGETS)
    in_cell(kernel, check, "lab-cell")
    one = counted(kernel, WIDGETS)
    assert one > before, "the check drew no widget: the test would prove nothing"
    for _ in range(3):
        in_cell(kernel, check, "lab-cell")
    assert counted(kernel, WIDGETS) == one
    in_cell(kernel, check, "another-cell")
    assert counted(kernel, WIDGETS) == 2 * one - before


FEEDS = ("sum(type(o).__name__ == 'TranscriptFeed' "
         "for o in (__import__('gc').collect(), __import__('gc').get_objects())[1])")


def test_drawing_a_transcript_again_frees_what_the_cells_last_run_drew(kernel):
    """A re-run of a `%transcript` cell closes the views its last run drew, so the kernel holds
    one view's messages and judgement however often the cell runs; two transcripts drawn by
    one run both stay."""
    in_cell(kernel, "%load_ext agentlab_magics\nfrom agentlab_magics import lab\n"
            "messages = [lab.user(f'question {n}') for n in range(2000)]", "load")
    cell = "%transcript messages\n%transcript messages --request"
    before = counted(kernel, WIDGETS), counted(kernel, FEEDS)
    in_cell(kernel, cell, "transcript-cell")
    once = counted(kernel, WIDGETS), counted(kernel, FEEDS)
    assert once[1] == before[1] + 2, "the cell drew no feed: the test would prove nothing"
    for _ in range(4):
        in_cell(kernel, cell, "transcript-cell")
    assert (counted(kernel, WIDGETS), counted(kernel, FEEDS)) == once



def viewed(client, code: str, cell: str) -> None:
    """Run `code` as cell `cell`, then ask each widget it drew for its summary, as the page
    asks once it shows the widget (a comm message to the widget's model)."""
    request = client.session.msg("execute_request", {
        "code": code, "silent": False, "store_history": True, "allow_stdin": True,
        "stop_on_error": True, "user_expressions": {}}, metadata={"cellId": cell})
    client.shell_channel.send(request)
    comms, idle = [], False
    while not idle:
        message = client.get_iopub_msg(timeout=120)
        if message["parent_header"].get("msg_id") != request["header"]["msg_id"]:
            continue
        if message["msg_type"] == "comm_open":
            comms.append(message["content"]["comm_id"])
        idle = message["msg_type"] == "status" and \
            message["content"]["execution_state"] == "idle"
    for comm in comms:
        client.shell_channel.send(client.session.msg("comm_msg", {
            "comm_id": comm, "data": {"method": "custom", "content": {"want": "summary"}}}))
    assert comms, "the cell drew no widget: the test would prove nothing"


CURRENT = ("(__import__('gc').collect(), int(open('/proc/self/statm').read().split()[1]) "
           "* __import__('os').sysconf('SC_PAGE_SIZE') // 1024)[1]")
BIG = ("%load_ext agentlab_magics\nfrom agentlab_magics import lab\n"
       "big = [m for n in range(25_000) for m in (lab.user(f'question {n}'), "
       "lab.reply(lab.call('read', {'path': f'f{n}.py'}, id=f'c{n}')), "
       "lab.tool_result(lab.call('read', id=f'c{n}'), 'x' * 200), lab.say('done'))]")


def test_the_kernels_memory_stays_flat_over_ten_runs_of_a_100k_transcript_cell(kernel):
    """Each run of a 100,000-message `%transcript` cell, viewed (its widget asked for its
    summary, as the page asks), once kept its view's judgement in the kernel, some 17 MB a
    run; now the kernel's resident memory over the last three runs is within one run's worth
    of what it was over the second to fourth (medians: the allocator keeps some of what is
    freed for a while)."""
    in_cell(kernel, BIG, "load-big")
    sizes = []
    for _ in range(10):
        viewed(kernel, "%transcript big", "big-transcript")
        sizes.append(counted(kernel, CURRENT))
    growth = statistics.median(sizes[-3:]) - statistics.median(sizes[1:4])
    assert growth < 15_000, f"the kernel grew by {growth:,} KiB over six re-runs: {sizes}"
