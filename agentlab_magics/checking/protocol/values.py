"""Values: how the judge's and the student's values are carried inside a message, as a JSON
tree in which plain data is itself and everything else is a one-key-first tagged object, so no
type is lost on the way and no object is ever rebuilt from code:

    None, bool, int, str         as JSON (an int too long to print is a stranger)
    float                        as JSON; nan and the infinities as {"$f": "nan"}
    list                         as a JSON array
    dict                         as a JSON object when every key is a str not starting "$",
                                 else {"$d": [[key, value], ...]}
    tuple, bytes                 {"$t": [...]}, {"$b": "<base64>"}

The rest is the side's own (`Outbound.stranger`, `Inbound.tagged`): handles, references to
containers the other side sent, objects named by their type. A tagged object is known by its
first key alone; a dict whose first key starts with "$" is never plain data on the wire. Part
of both processes: it needs only the standard library.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from agentlab_magics.checking.protocol.caps import DEPTH_CAP, INT_BITS_CAP

SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class Outbound:
    """Turns one side's values into JSON trees. Plain data is handled here; a list or dict the
    side wants to name goes through `container`, anything else through `stranger`."""

    def encode(self, value: Any) -> Any:
        return self._encode(value, 0, set())

    def _encode(self, value: Any, depth: int, path: set[int]) -> Any:
        kind = type(value)
        if kind is str or kind is bool or value is None:
            return value
        if kind is int:
            return value if value.bit_length() <= INT_BITS_CAP else self.stranger(value)
        if kind is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        if kind is list or kind is dict or kind is tuple:
            if depth >= DEPTH_CAP or id(value) in path:
                return self.stranger(value)
            path.add(id(value))  # left there if this raises: the whole encode stops then
            tree = self.container(value, depth + 1, path)
            path.discard(id(value))
            return tree
        if kind is bytes:
            return {"$b": base64.b64encode(value).decode("ascii")}
        return self.stranger(value)

    def container(self, value: Any, depth: int, path: set[int]) -> Any:
        """The tree of a list, dict or tuple: its contents (`contents`), or, on a side that
        names the containers it shares, a tagged object naming it."""
        return self.contents(value, depth, path)

    def contents(self, value: Any, depth: int, path: set[int]) -> Any:
        """A list's, dict's or tuple's tree (a str inside is itself, asked of no method: most
        of what crosses is text)."""
        encode = self._encode
        kind = type(value)
        if kind is tuple:
            return {"$t": [item if type(item) is str else encode(item, depth, path)
                           for item in value]}
        if kind is list:
            return [item if type(item) is str else encode(item, depth, path) for item in value]
        if _plain_keys(value):
            return {key: item if type(item) is str else encode(item, depth, path)
                    for key, item in value.items()}
        return {"$d": [[encode(key, depth, path), encode(item, depth, path)]
                       for key, item in value.items()]}

    def stranger(self, value: Any) -> Any:
        """The tree of a value that is not plain data (or too deep, or holds itself)."""
        raise NotImplementedError


def _plain_keys(value: dict) -> bool:
    """Whether every key of `value` is a str that does not start "$" (so it is a JSON object
    as it is)."""
    for key in value:  # noqa: SIM110 (a loop: all() of a generator takes twice as long)
        if type(key) is not str or key[:1] == "$":
            return False
    return True


class Inbound:
    """Turns JSON trees from the other side back into values: the plain tags here, the side's
    own in `tagged`. Used as `frames.Reader.frame`'s hook, so objects are made bottom up."""

    def __call__(self, tree: dict) -> Any:
        for key in tree:
            if key[:1] == "$":
                return self.plain_tag(key, tree)
            return tree
        return tree

    def plain_tag(self, tag: str, tree: dict) -> Any:
        body = tree[tag]
        if tag == "$t":
            return tuple(_list(body))
        if tag == "$d":
            return dict(map(_pair, _list(body)))
        if tag == "$f":
            return SPECIAL_FLOATS[body]
        if tag == "$b":
            return base64.b64decode(body if type(body) is str else "", validate=True)
        return self.tagged(tag, tree)

    def tagged(self, tag: str, tree: dict) -> Any:
        raise KeyError(tag)


def _list(body: Any) -> list:
    if type(body) is not list:
        raise TypeError("a tag's body is not a list")
    return body


def _pair(item: Any) -> tuple[Any, Any]:
    if type(item) is not list or len(item) != 2:
        raise TypeError("a dict's item is not a [key, value] pair")
    return item[0], item[1]


def type_name(value: Any) -> str:
    """The name of `value`'s class, read without running any method of it."""
    return type.__dict__["__name__"].__get__(type(value))
