"""How long a check takes: per lab, the warm in-process check of the reference, and pytest's
overhead as a ratio against calling the same test functions directly in the same process.

Run: python bench/bench_check.py [repeats]. Prints a table; asserts nothing.
"""

from __future__ import annotations

import importlib
import inspect
import statistics
import sys
import time

from agentlab_magics.checking import run
from agentlab_magics.checking.runner import Recorder
from agentlab_magics.checking.student import StudentModule, load
from agentlab_magics.course import labs


def median_ms(action, repeats: int) -> float:
    action()  # warm: imports, pytest's first configuration
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def direct(lab, module) -> None:
    """The lab's test functions called by hand with the same fixtures, no pytest around them."""
    tests = importlib.import_module(lab.tests)
    student = StudentModule(module, lab.purposes)
    for name, function in vars(tests).items():
        if name.startswith("test_") and callable(function):
            wanted = inspect.signature(function).parameters
            function(**{key: value for key, value in
                        (("harness", student), ("record", Recorder())) if key in wanted})


def main(repeats: int = 15) -> None:
    print(f"{'lab':18} {'tests':>5} {'check ms':>9} {'direct ms':>10} {'pytest/direct':>14}")
    for lab in labs().values():
        module = load(lab.reference, f"{lab.module}.py", lab.module)
        count = len(run(lab.id, module).outcomes)
        checked = median_ms(lambda: run(lab.id, module), repeats)
        called = median_ms(lambda: direct(lab, module), repeats)
        print(f"{lab.id:18} {count:5} {checked:9.1f} {called:10.1f} {checked / called:13.1f}x")
    print("target: a warm check of checkpoint-a under 150 ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
