"""A cell that checks again closes the report widget it drew before: in a real kernel, asked as
JupyterLab asks (allow_stdin true, the cell's id in the request's metadata), the kernel's widgets
stay as many however often one cell is checked, and a check in another cell keeps both."""

from __future__ import annotations

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


def in_cell(client, code: str, cell: str) -> dict:
    """Run `code` as the frontend runs cell `cell`; the reply's content."""
    request = client.session.msg("execute_request", {
        "code": code, "silent": False, "store_history": True, "allow_stdin": True,
        "stop_on_error": True, "user_expressions": {"widgets": WIDGETS}},
        metadata={"cellId": cell})
    client.shell_channel.send(request)
    while True:
        reply = client.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
            assert reply["content"]["status"] == "ok", reply["content"]
            return reply["content"]


def widgets(client, cell: str) -> int:
    said = in_cell(client, "pass", cell)["user_expressions"]["widgets"]
    return int(said["data"]["text/plain"])


def test_checking_one_cell_again_and_again_keeps_one_report(kernel):
    check = f"%%check lesson1\n{find_lab('lesson1').reference}"
    in_cell(kernel, "%load_ext agentlab_magics", "load")
    before = widgets(kernel, "probe")
    in_cell(kernel, check, "lab-cell")
    one = widgets(kernel, "probe")
    assert one > before, "the check drew no widget: the test would prove nothing"
    for _ in range(3):
        in_cell(kernel, check, "lab-cell")
    assert widgets(kernel, "probe") == one
    in_cell(kernel, check, "another-cell")
    assert widgets(kernel, "probe") == 2 * one - before
