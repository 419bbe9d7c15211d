"""The views each cell drew (its %%check report, its transcripts), their widgets closed when
that cell runs again.

A widget lives in the kernel until it is closed, and a cell that runs again loses its output,
not its widgets: a student who checks one cell a hundred times would leave a hundred reports in
the kernel, and one who draws a 100,000-message transcript again and again, every copy of the
messages its view serves. The frontend says which cell runs (JupyterLab and Notebook 7 put
`cellId` in an execute request's metadata); where it does not say, nothing is closed. All the
views one run of a cell draws stay together; the next run of the cell closes them all.
"""

from __future__ import annotations

from agentlab_magics.widgets.rendering import ThreeWayView, running_kernel

# Per cell: the request of its latest run, and the views that run drew.
_drawn: dict[str, tuple[str, list[ThreeWayView]]] = {}


def running_cell() -> str | None:
    """The id the frontend gave the cell whose code runs now, if it gave one."""
    kernel = running_kernel()
    if kernel is None:
        return None
    cell = (kernel.get_parent().get("metadata") or {}).get("cellId")
    return cell if isinstance(cell, str) else None


def drawn(cell: str | None, view: ThreeWayView) -> None:
    """`view` is one of the views `cell` draws now: those an earlier run of it drew close."""
    if cell is None:
        return
    kernel = running_kernel()
    run = str((kernel.get_parent().get("header") or {}).get("msg_id", "")) if kernel else ""
    earlier_run, views = _drawn.get(cell, ("", []))
    if earlier_run != run:
        for earlier in views:
            if earlier is not view:
                earlier.close()
        views = []
    _drawn[cell] = (run, [*views, view])


__all__ = ["drawn", "running_cell"]
