"""A student's kernel on a bounded hub keeps to its share of its server's memory, and when it
cannot, it ends with a sentence in the cell that asked for too much.

The spawner tells the server its whole memory limit (MEM_LIMIT, in bytes), which the server,
its kernels and their checks share. Loaded into each student kernel (the kernelspec the hub's
recipe writes names this module), a kernel holds its own data to KERNEL_SHARE of that limit, so
an allocation past it fails with a MemoryError in the kernel itself, long before the machine's
OOM killer would choose some process of the server (or of a neighbour's, with no limit at all).
That MemoryError ends the kernel: what it held is gone, and JupyterLab starts a fresh one.
"""

from __future__ import annotations

import os
import sys

from agentlab_magics.hub.bounds import hold_data

KERNEL_SHARE = 0.5  # of the server's limit; the rest is the server's, the kernel's libraries'
# and its checks'
LINGER_MS = 5000  # how long an ending kernel may take to hand the notebook its last sentence
MEMORY_ENV = "MEM_LIMIT"  # set by JupyterHub's spawner from Spawner.mem_limit


def share(server_limit: int) -> int:
    """The bytes of data one kernel may hold, of a server limited to `server_limit`."""
    return int(server_limit * KERNEL_SHARE)


def sentence(limit: int) -> str:
    return (f"This kernel needed more than its {limit >> 20} MB of memory, so it stops here and "
            "what it held is lost; make this cell keep less at once (smaller data, fewer "
            "copies), then run the notebook again from the top.")


def load_ipython_extension(shell) -> None:
    server_limit = int(os.environ.get(MEMORY_ENV) or 0)
    if not server_limit:
        return
    limit = share(server_limit)
    hold_data(limit)

    def out_of_memory(shell, kind, value, traceback, tb_offset=None) -> None:
        sys.stdout.flush()  # what the cell printed before, then why it ends
        print(sentence(limit), file=sys.stderr, flush=True)
        _end(shell)

    shell.set_custom_exc((MemoryError,), out_of_memory)


def _end(shell) -> None:
    """End this kernel at once, once what it printed has left for the notebook: its output
    thread sends what it holds, then its sockets close, waiting up to LINGER_MS for the
    messages still queued."""
    kernel = getattr(shell, "kernel", None)
    if kernel is not None:
        kernel.iopub_thread.stop()
        kernel.iopub_thread.socket.context.destroy(linger=LINGER_MS)
    os._exit(1)
