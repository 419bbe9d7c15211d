"""The report each cell's %%check drew, its widget closed when that cell checks again.

A widget lives in the kernel until it is closed, and a cell that runs again loses its output,
not its widgets: a student who checks one cell a hundred times would leave a hundred reports in
the kernel. The frontend says which cell runs (JupyterLab and Notebook 7 put `cellId` in an
execute request's metadata); where it does not say, nothing is closed.
"""

from __future__ import annotations

from agentlab_magics.widgets.rendering import ThreeWayView, running_kernel

_drawn: dict[str, ThreeWayView] = {}


def running_cell() -> str | None:
    """The id the frontend gave the cell whose code runs now, if it gave one."""
    kernel = running_kernel()
    if kernel is None:
        return None
    cell = (kernel.get_parent().get("metadata") or {}).get("cellId")
    return cell if isinstance(cell, str) else None


def drawn(cell: str | None, view: ThreeWayView) -> None:
    """`view` is now `cell`'s report: the widget of the one it drew before, if any, closes."""
    if cell is None:
        return
    earlier = _drawn.pop(cell, None)
    if earlier is not None and earlier is not view:
        earlier.close()
    _drawn[cell] = view


__all__ = ["drawn", "running_cell"]
