"""What a lab's tests call: the student's module as the `harness` fixture, whose names are
functions that run in the student process. The tests never hold the student's code, only this
object and what its calls return.
"""

from __future__ import annotations

from typing import Any

from agentlab_magics.checking.cell_source import NotWrittenYet
from agentlab_magics.checking.process import StudentProcess
from agentlab_magics.checking.stand_ins import Remote


class StudentCode:
    """The student's module as the tests see it (the `harness` fixture): each name it defines
    is a function that runs there; a name it lacks fails the test with a sentence."""

    def __init__(self, process: StudentProcess, purposes: dict[str, str]) -> None:
        self._process, self._purposes = process, purposes

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        names = self._process.names
        if name not in names:
            purpose = self._purposes.get(name)
            detail = f": it {purpose}" if purpose else ""
            raise NotWrittenYet(f"{name} is not written yet{detail}.")
        if not names[name]:
            raise NotWrittenYet(f"{name} is not a function in your code: write it with def.")
        return self._process.bridge.strangers.cls("function", Remote)(self._process, name)

    def missing(self, names: list[str]) -> list[str]:
        return [name for name in names if name not in self._process.names]
