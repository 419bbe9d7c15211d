"""What the labs' tests share: the helpers of this package (`kit`, `admission`), which the tests
in each lab's folder (agentlab_labs.<lab>.tests: plain functions taking `harness` and `record`)
import, and `reads`.

`reads` says which of the names a student writes a test reads: the names its code, and the
code of the helpers of this package (or of the test's own module) it calls, mentions. A later
lesson's check runs an earlier lesson's test only where its file still holds every name the
test reads.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from functools import cache

from agentlab_magics.course.catalog import harness_names

PACKAGE = __name__


@cache
def reads(test: Callable) -> frozenset[str]:
    """The names a lab asks for that `test`, or a helper of this package or of its own module
    it calls, mentions (worked out once a test: every check of a later lab asks)."""
    seen: set[Callable] = set()
    mentioned: set[str] = set()
    pending = [test]
    while pending:
        function = pending.pop()
        if function in seen:
            continue
        seen.add(function)
        for code in _codes(function.__code__):
            for name in code.co_names:
                mentioned.add(name)
                helper = function.__globals__.get(name)
                if inspect.isfunction(helper) and (helper.__module__.startswith(f"{PACKAGE}.")
                                                   or helper.__module__ == test.__module__):
                    pending.append(helper)
    return frozenset(mentioned & harness_names())


def _codes(code: types.CodeType):
    """`code` and the code of every function or lambda defined inside it."""
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _codes(constant)
