"""`drive`: one way to get a result out of code that may or may not be asynchronous."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any


async def drive(value: Any) -> Any:
    """Awaiting drive(value) gives value itself, or its result when value is awaitable.

    So `await lab.drive(f())` works in a notebook whether a student's f is sync or async.
    """
    while isinstance(value, Awaitable):
        value = await value
    return value
