"""A submitted notebook run by its own kernel in a sandbox, every output weighed before it is
held: what a grading child (`host.py`) does for one submission.

The kernel is the student's, so everything it sends is hostile bytes. They are weighed three
times before they are held:
- on the wire (`WeighedChannel`, `SandboxedKernelManager`): a frame over MESSAGE_CAP bytes
  drops the connection, a message keeps at most FRAMES_KEPT frames (the rest, buffers nobody
  reads here, are received and let go), and a part over DECODE_CAP bytes is never decoded (a
  few bytes of JSON can decode into gigabytes): it becomes a notice of its size;
- as a message (`KernelRun.process_message`): only the kinds nbclient keeps are let through,
  with their fields checked; each is charged, in bytes of its content (times the outputs it
  would change, for a display with an id), against its cell's share (`received_limit`) and the
  notebook's (`notebook_received_limit`); past either it is dropped and counted, except a
  cell's first error, kept cut to a few lines;
- as the reply that ends a cell (`on_cell_executed`): its error is cut the same way.
So what one run holds is bounded by its limits, whatever the kernel sends; the grading child's
memory limit (`memory_cap.py`) is the wall behind that.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from queue import Empty
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute
from traitlets import Float, Integer, Type

from agentlab_magics.course.packs import ENV as PACKS_ENV
from agentlab_magics.grading.output import DROPPED
from agentlab_magics.grading.printable import printable
from agentlab_magics.grading.sandbox import KEPT_ENV, Sandbox

MESSAGE_CAP = 256 << 20  # bytes of one frame from the kernel: a bigger one drops the connection
FRAMES_KEPT = 16        # frames of one message that are kept (identities, header ... content)
DECODE_CAP = 4 << 20    # bytes of one part of a message that are decoded
LEFT_OUT = "agentlab_left_out"  # in place of a part that was not: its size
ERROR_CUT = 2_000       # characters of an error's value and of its last traceback line kept
SAID = "kernel-said"    # the file, beside the scratch folder, of what the kernel wrote out
SAID_SHOWN = 1_000      # bytes of its end shown when the kernel did not start
# What nbclient keeps or needs, and what of it the grader holds as an output.
PASSED = {"status", "execute_input", "clear_output", "stream", "display_data",
          "execute_result", "error", "update_display_data"}
HELD = {"stream", "display_data", "execute_result", "error", "update_display_data"}
STATES = {"busy", "idle", "starting"}
UNREADABLE: dict[str, Any] = {"msg_type": "agentlab_unreadable", "msg_id": "",
                              "parent_header": {},
                              "header": {"msg_type": "agentlab_unreadable", "msg_id": ""},
                              "metadata": {}, "content": {}, "buffers": []}
# the fields nbformat reads of each kind, and their types: a message without them is dropped
FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "status": {"execution_state": str},
    "stream": {"name": str, "text": str},
    "display_data": {"data": dict, "metadata": dict},
    "update_display_data": {"data": dict, "metadata": dict},
    "execute_result": {"data": dict, "metadata": dict},
    "error": {"ename": str, "evalue": str, "traceback": list},
}


class WeighedChannel(AsyncZMQSocketChannel):
    """jupyter_client's channel, receiving a message frame by frame: at most FRAMES_KEPT
    frames are kept, however many the kernel sends; a message that cannot be read (no
    delimiter, a bad or replayed signature, a header that is not JSON) answers nothing, and
    arrives as UNREADABLE, which no cell's request is the parent of."""

    async def _recv(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        frames: list[Any] = []
        while True:
            frame = await self.socket.recv(copy=False)
            if len(frames) < FRAMES_KEPT:
                frames.append(frame)
            if not self.socket.get(zmq.RCVMORE):
                break
        try:
            _, message = self.session.feed_identities(frames, copy=False)
            return self.session.deserialize(message, copy=False)
        except (ValueError, TypeError, KeyError):
            return {**UNREADABLE, "header": dict(UNREADABLE["header"])}


class ReadyClient(AsyncKernelClient):
    """jupyter_client's client over weighed channels, ready as soon as the kernel has answered
    on both: stock waits a further 0.2 s of silence on IOPub before the first cell, which is
    idle time on every notebook graded (what it would flush carries no cell's parent header,
    so nbclient ignores it anyway)."""

    shell_channel_class = Type(WeighedChannel)
    iopub_channel_class = Type(WeighedChannel)

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout if timeout is not None else float("inf"))
        while True:
            self.kernel_info()
            reply = await self._next(self.shell_channel)
            if reply and reply["msg_type"] == "kernel_info_reply" and \
                    await self._next(self.iopub_channel):
                self._handle_kernel_info_reply(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    @staticmethod
    async def _next(channel) -> dict | None:
        """The next message on `channel`, if one comes within a second."""
        try:
            return await channel.get_msg(timeout=1)
        except Empty:
            return None


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel that starts inside `self.sandbox`, talking over Unix sockets in its scratch
    folder (its network namespace has no usable loopback), interrupted by message; what it
    sends is weighed on the wire (the module's docstring)."""

    sandbox: Sandbox | None = None
    client_factory = Type(ReadyClient, klass=AsyncKernelClient)

    def client(self, **kwargs):
        context = zmq.asyncio.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MESSAGE_CAP)
        return super().client(context=context, **kwargs)

    def prepare(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.session.unpack = _weighed(self.session.unpack)
        scratch = sandbox.scratch or sandbox.make_scratch()
        self.transport, self.ip = "ipc", str(scratch / "kernel")
        self.connection_file = str(scratch / "kernel.json")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        assert self.sandbox is not None, "prepare() gives the kernel its sandbox first"
        # its parent is the sandbox's pid 1, not the grader: no polling for the parent (the
        # kernel ends with the sandbox)
        return self.sandbox.command([*super().format_kernel_cmd(extra_arguments),
                                     "--IPKernelApp.parent_handle=0"])

    async def _async_pre_start_kernel(self, **kw):
        assert self.sandbox is not None and self.sandbox.scratch is not None
        self.kernel_spec.interrupt_mode = "message"
        kw["cwd"] = str(self.sandbox.scratch)
        kw["env"] = {k: v for k, v in (kw.get("env") or os.environ).items() if k in KEPT_ENV}
        if self.sandbox.labs_folder is not None:  # its %%check cells find the packs' labs
            kw["env"][PACKS_ENV] = str(self.sandbox.labs_folder)
        # What the kernel writes to its own stdout and stderr (ipykernel's banner, bubblewrap's
        # complaint, or a submission writing to its file descriptors) never reaches the
        # grader's terminal: it goes to a file beside the scratch folder, of which only the
        # end is read, should the kernel die before it answers (`KernelRun.run`). The
        # notebook's outputs travel over the kernel's messages.
        assert self.sandbox.root is not None
        self.said = kw["stdout"] = kw["stderr"] = open(self.sandbox.root / SAID, "wb")  # noqa: SIM115 (closed once the kernel started)
        command, kw = await super()._async_pre_start_kernel(**kw)
        self.sandbox.give(self.sandbox.scratch)
        return command, kw

    async def _async_post_start_kernel(self, **kw) -> None:
        self.said.close()  # the kernel holds its own copy
        await super()._async_post_start_kernel(**kw)


def _weighed(unpack: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """`unpack`, for message parts up to DECODE_CAP bytes; a bigger part becomes an empty
    content of every kind of message, marked LEFT_OUT with its size (charged where the cell's
    output is weighed)."""
    def weighed(data: bytes) -> Any:
        if len(data) <= DECODE_CAP:
            return unpack(data)
        return {LEFT_OUT: len(data), "name": "stdout", "text": "", "data": {}, "metadata": {},
                "transient": {}, "execution_count": None, "status": "ok",
                "execution_state": "busy", "ename": "", "evalue": "", "traceback": []}

    return weighed


class Scale:
    """What one notebook's run has held, per cell and in all, against its limits; what it
    dropped, per cell."""

    def __init__(self, per_cell: int, per_notebook: int) -> None:
        self.per_cell, self.per_notebook = per_cell, per_notebook
        self.held: dict[int, int] = {}
        self.dropped: dict[int, int] = {}
        self.total = 0
        self.unknown = 0  # messages of kinds nothing here shows

    def take(self, cell: int, size: int) -> bool:
        """Hold `size` more bytes for `cell` if both its share and the notebook's allow."""
        if self.held.get(cell, 0) + size > self.per_cell or self.total + size > self.per_notebook:
            self.drop(cell, size)
            return False
        self.held[cell] = self.held.get(cell, 0) + size
        self.total += size
        return True

    def drop(self, cell: int, size: int) -> None:
        self.dropped[cell] = self.dropped.get(cell, 0) + size


def weight(content: dict) -> int:
    """The bytes a message's content counts for: its size as sent, where it was too big to
    decode, else its size as JSON."""
    left_out = content.get(LEFT_OUT)
    if isinstance(left_out, int):
        return left_out
    return len(json.dumps(content, default=str))


def _well_formed(kind: str, content: Any) -> bool:
    """Whether a message's content has the fields its kind needs, of their types."""
    return isinstance(content, dict) and all(
        isinstance(content.get(name), kinds) for name, kinds in FIELDS.get(kind, {}).items())


def cut_error(content: dict) -> dict:
    """An error's content cut to its name, the start of its value and its last line."""
    last = content.get("traceback") or [""]
    return {"ename": str(content.get("ename", ""))[:200],
            "evalue": str(content.get("evalue", ""))[:ERROR_CUT],
            "traceback": [str(last[-1])[:ERROR_CUT]] if isinstance(last, list) else []}


class KernelRun(Execute):
    """nbgrader's Execute with the kernel in a sandbox, every message weighed and the notebook
    bounded in time: a notebook's run, as the grading child does it."""

    notebook_limit = Float(120.0, help=(
        "Seconds the kernel may spend on the whole notebook: cells not begun by then are not "
        "run (their scores do not depend on it), so no submission holds up the others for "
        "long.")).tag(config=True)
    received_limit = Integer(1_000_000, help=(
        "Bytes of output kept per cell while the kernel runs it: what comes after is dropped "
        "as it arrives (and counted for CapOutput's notice), so a flood never fills the "
        "grader's memory.")).tag(config=True)
    notebook_received_limit = Integer(10_000_000, help=(
        "Bytes of output kept for the whole notebook while the kernel runs it (display "
        "updates counted once for every output they change).")).tag(config=True)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
        # The kernel is the student's and its outputs are in: waiting for it to exit
        # gracefully (up to shutdown_wait_time) would idle the grader on every notebook.
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(**kwargs)
        self.sandbox: Sandbox | None = None
        self.scale = Scale(self.received_limit, self.notebook_received_limit)
        self.errors_cut: set[int] = set()

    def run(self, nb, folder: str | None, hidden: list[str]) -> dict[str, float]:
        """Run `nb` (in place) with a copy of the submission `folder` in the kernel's scratch
        folder, hiding `hidden`; the seconds spent starting the kernel and on the cells."""
        self.sandbox = Sandbox(hidden=hidden, labs=True)
        self.folder = folder
        self._began = time.monotonic()
        self._run_until = self._began + self.notebook_limit
        self._started: float | None = None
        try:
            self.preprocess(nb, {"metadata": {"path": folder or ""}})
        except RuntimeError as exc:  # the kernel did not start: what it said says why
            raise RuntimeError(f"{exc}; it said: {self._said()}") from exc
        finally:
            self.sandbox.clean()
        ran = time.monotonic() - self._began
        started = self._started if self._started is not None else ran
        return {"kernel start": started, "cells": ran - started}

    def _said(self) -> str:
        """The end of what the kernel wrote to its stdout and stderr, escaped."""
        assert self.sandbox is not None and self.sandbox.root is not None
        try:
            with open(self.sandbox.root / SAID, "rb") as said:
                said.seek(max(0, os.fstat(said.fileno()).st_size - SAID_SHOWN))
                return printable(said.read().decode(errors="replace")) or "nothing"
        except OSError:
            return "nothing"

    def create_kernel_manager(self):
        km = super().create_kernel_manager()
        if isinstance(km, SandboxedKernelManager) and self.sandbox is not None:
            km.prepare(self.sandbox)
            if self.folder and os.path.isdir(self.folder):
                assert self.sandbox.scratch is not None
                shutil.copytree(self.folder, self.sandbox.scratch, symlinks=True,
                                dirs_exist_ok=True)
        return km

    def process_message(self, msg, cell, cell_index):
        """Let through what nbclient keeps, its fields checked, while the cell's and the
        notebook's shares last (the module's docstring)."""
        kind = msg.get("msg_type")
        content = msg.get("content")
        if kind not in PASSED or not _well_formed(kind, content):
            self.scale.unknown += 1
            return None
        if kind == "status" and content["execution_state"] not in STATES:
            return None
        if not isinstance(content.get("execution_count"), int | None):
            content["execution_count"] = None
        if kind in HELD and not self.scale.take(cell_index, weight(content) * self._copies(msg)):
            if kind != "error" or cell_index in self.errors_cut:
                return None
            self.errors_cut.add(cell_index)
            msg["content"] = cut_error(content)
        return super().process_message(msg, cell, cell_index)

    def _copies(self, msg: dict) -> int:
        """How many outputs a message would hold its data in: the one it adds, and every
        earlier one that shares its display id."""
        transient = msg["content"].get("transient")
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        added = msg["msg_type"] != "update_display_data"
        if not isinstance(display_id, str):
            return int(added)
        shown = self._display_id_map.get(display_id, {})
        return added + sum(len(indices) for indices in shown.values())

    def handle_comm_msg(self, outs, msg, cell_index):
        """Widget messages are not followed: no widget state is kept (c.Execute.
        store_widget_state is off), and a kernel that opens comms by the million makes no
        objects here."""

    def on_cell_executed(self, **kwargs):
        """nbgrader's, with the reply's error cut as an error output would be."""
        reply = kwargs["execute_reply"]
        if isinstance(reply.get("content"), dict) and reply["content"].get("status") == "error":
            reply["content"] = {"status": "error", **cut_error(reply["content"])}
        super().on_cell_executed(**kwargs)

    def preprocess_cell(self, cell, resources, index):
        if self._started is None:
            self._started = time.monotonic() - self._began
        if cell.cell_type == "code" and time.monotonic() > self._run_until:
            cell.outputs = [new_output("stream", name="stdout", text=(
                f"[agentlab: not run: the notebook used up its {self.notebook_limit:g} s]\n"))]
            return cell, resources
        cell, resources = super().preprocess_cell(cell, resources, index)
        if self.scale.dropped.get(index):
            cell.metadata.setdefault("agentlab", {})[DROPPED] = self.scale.dropped[index]
        return cell, resources

    def notes(self) -> list[str]:
        """What an instructor should know of this run: messages nothing here shows."""
        if not self.scale.unknown:
            return []
        return [f"the kernel sent {self.scale.unknown} message(s) of kinds a notebook does not "
                "show; they were left out"]
