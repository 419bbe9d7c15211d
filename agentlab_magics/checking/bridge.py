"""The bridge between the judge's objects and the student's: how a value crosses either way,
and what each side holds of the other's while a test runs.

Plain data crosses as itself (`protocol.values`). Whatever the test hands over that is not data
(a scripted model, a workspace, a tool's function, a listener) stays here and crosses as a
handle: the student process gets an object whose methods ask this side (`call_lent`,
`read_lent`: only what its class lists in `__public__`), so the judge's objects, and the
records they keep, stay the truth. Lists and dicts handed to a call cross with a reference,
come back after every message with what they hold, and go back into the very lists and dicts
the test holds, while that call runs and only if every value is still a tree (`tree_shaped`).
A lab value crosses by what makes it (`lab.remaking`). What comes back that is not data stands
here as a stand-in (`stand_ins`). `Bridge` keeps the tables of one student process: nothing of
one test's crosses into the next but the handles lent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentlab_magics.checking.protocol.caps import DEPTH_CAP
from agentlab_magics.checking.protocol.frames import WireError
from agentlab_magics.checking.protocol.values import (
    Inbound,
    Marking,
    NotPlain,
    Outbound,
    plain_pickle,
    type_name,
)
from agentlab_magics.checking.stand_ins import (
    Foreign,
    Peer,
    Remote,
    RemoteStep,
    Strangers,
    imitation,
)
from agentlab_magics.checking.stopped import Stopped, Unreadable
from agentlab_magics.lab.remaking import made, recipe

_ABSENT = object()  # no contents given with a reference


@dataclass
class Scope:
    """What one call into the student process handed over: the references of its lists and
    dicts (good until it returns), and the ones it was given itself (which must stay trees)."""

    roots: list[Any]
    refs: list[int] = field(default_factory=list)


def _replace(container: Any, contents: Any) -> None:
    if type(container) is list:
        container[:] = contents
    else:
        container.clear()
        container.update(contents)


class Unchanged:
    """Whether contents a list or dict would be given are what it holds: item by item the very
    objects, or exact scalars of one type that are equal (`_alike`); where that cannot say
    (a float, a tuple), the same bytes from a pickler of plain data that meets each list and
    dict of ours in `refs` as itself (its place among them). Either way equal means the same
    items of the very same types, with our lists and dicts, the very objects, where they
    were."""

    def __init__(self, refs: dict[int, Any]) -> None:
        self.refs = refs
        self.pickler: Marking | None = None  # made at the first item `_alike` cannot tell

    def same(self, container: list | dict, contents: Any) -> bool:
        """Whether `container` holds `contents` already (its copy is pickled: itself is ours,
        met as its place)."""
        alike = _alike(container, contents)
        if alike is not None:
            return alike
        if self.pickler is None:
            self.pickler = Marking()
            self.pickler.mark(self.refs.values())
        now = self.pickler.pickled(container.copy())
        return now is not None and now == self.pickler.pickled(contents)


EXACT = frozenset({str, int, bool, type(None), bytes})
"""Scalars whose equality is sameness when their types are one (not a float: -0.0 == 0.0)."""


def _alike(container: list | dict, contents: Any) -> bool | None:
    """Whether `contents` are `container`'s items, told item by item (keys too): the very
    object, or an exact scalar of the same type and equal; None where an item is neither and
    the same type (a float, a tuple, a fresh list of the same kind)."""
    if type(contents) is not type(container) or len(contents) != len(container):
        return False
    if isinstance(container, dict) and isinstance(contents, dict):
        pairs = zip((*container, *container.values()), (*contents, *contents.values()))
    else:
        pairs = zip(container, contents)
    undecided = False
    for now, then in pairs:
        if now is then:
            continue
        kind = type(now)
        if kind is not type(then):
            return False
        if kind in EXACT:
            if now != then:
                return False
        elif kind is list or kind is dict:
            return False
        else:
            undecided = True
    return None if undecided else True


class NotATree(ValueError):
    """A value from the student process holds itself, or one container in two places."""


CONTAINERS = (list, dict, tuple)


def tree_shaped(tops: list[Any]) -> None:
    """Each of `tops` (the values of one message) is a tree: every list, dict and tuple in it
    is reached once, so none holds itself and no walk of it (a test's, a report's) can loop or
    grow past what is there. Two tops may share a part (a list handed to a call, returned
    whole, and synced back). A dict's keys are not walked: a key that holds a list or dict
    cannot be hashed, and a tuple cannot hold itself."""
    for top in tops:
        if type(top) not in CONTAINERS:
            continue
        seen: set[int] = set()
        stack = [top]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                raise NotATree
            seen.add(id(node))
            stack += [child for child in (node.values() if type(node) is dict else node)
                      if type(child) in CONTAINERS]


def public(value: Any) -> tuple[list[str], list[str]]:
    """(methods, attributes) of a judge object that the student's code may use: what its
    class lists in `__public__`; nothing for any other object (only calling it, if it can)."""
    names = getattr(type(value), "__public__", ())
    methods = [name for name in names if callable(getattr(type(value), name, None))]
    return methods, [name for name in names if name not in methods]


def notes_only(value: Any) -> tuple[str, tuple[str, ...]] | None:
    """For a judge function that only takes note (`kit.takes_note` set its `__takes_note__`
    to its name and its parameters: it returns None and raises for no call they accept),
    those, so the student process binds a call's arguments to them itself and tells it without
    waiting for an answer; None for any other object."""
    told = getattr(value, "__takes_note__", None)
    return told if type(told) is tuple else None


def note(target: Any, args: list) -> None:
    """Tell the judge's function `target` the arguments of a call that only takes note
    (TypeError when it does not only take note, or they are not one for each parameter)."""
    told = notes_only(target)
    if told is None or len(args) != len(told[1]):
        raise TypeError("a call that only takes note, to an object that does not")
    target(*args)


NAMED_TWICE = object()
"""Stands, in a call's message, after its arguments, for whether writing them named one list or
dict twice among the calls running (`Outgoing.stranger`)."""


class Outgoing(Outbound):
    """The judge's messages for the student process: a list or dict handed to a call goes with
    a reference (only while `naming`), an object of the student's as its number, a lab value
    by what makes it, any other object as a handle."""

    def __init__(self, bridge: Bridge) -> None:
        super().__init__()
        self.bridge = bridge
        self.naming: tuple[Any, Any, Any] | None = None
        """While a call's message is written: the message, its arguments' list and its
        keywords' dict, the containers in it that are the message's own, not named."""
        self.fresh: Any = None  # the copy a reference just returned carries: written as data

    def container(self, value: list | dict) -> Any:
        naming = self.naming
        if naming is None or value is self.fresh or value is naming[0] or value is naming[1] \
                or value is naming[2]:
            self.fresh = None
            return None
        self.fresh = list(value) if type(value) is list else dict(value)
        return ("$r", self.bridge.remember(value), self.fresh)

    def stranger(self, value: Any) -> Any:
        if value is NAMED_TWICE:
            return ("$w", self.bridge.named_twice())
        if isinstance(value, Remote):
            return ("$c", value.ident)
        if isinstance(value, RemoteStep):
            return ("$o", value.ident)
        ident = value.ident if isinstance(value, Foreign) else getattr(value, "student_ident",
                                                                        None)
        if type(ident) is int:
            return ("$o", ident)
        made_of = recipe(value)
        if made_of is not None:
            return ("$v", *made_of)
        methods, attributes = public(value)
        return ("$h", self.bridge.lend(value), type_name(value), callable(value),
                tuple(methods), tuple(attributes), notes_only(value))


class _Pending:
    """An id read from the student's bytes, inert until the whole message is read and checked
    (`Incoming.checked`): it can be neither called, built, added to nor given a state, so no
    bytes can work on what the id stands for here."""

    __slots__ = ("pid",)

    def __init__(self, pid: Any) -> None:
        self.pid = pid

    def __setstate__(self, state: Any) -> None:
        raise TypeError("an id given a state")


class TooDeep(ValueError):
    """A value from the student process nested deeper than DEPTH_CAP."""


SCALARS = frozenset({str, int, float, bool, type(None), bytes})


class Incoming(Inbound):
    """The student process's values here: data as it is; a list or dict of ours put back in
    place; a handle as our object; the student's objects as stand-ins (`Foreign`, `Remote`,
    a plain subclass copied into a class of its name).

    The bytes are first held to plain data (`plain_pickle`: no memo, no global, no call), so
    what CPython's unpickler reads of them is a tree, and each id stands as an inert `_Pending`
    while it reads. Then one walk over the message (`checked`) refuses a value nested deeper
    than DEPTH_CAP and makes each id what it stands for, innermost first: a message that holds
    no id, and fewer containers than DEPTH_CAP, needs none."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.ids = 0  # the ids made so far of the message being read
        self.within = 0  # how many ids' parts are being made around the value made now
        self.top: Any = None  # the key of the message whose value is being made, but its sync

    def loads(self, body: bytes) -> Any:
        """The message `body` holds, its values checked and made; bytes that are not plain data
        (`NotPlain`), cannot be read, or hold ids that stand for nothing are a WireError."""
        try:
            containers, ids = plain_pickle(body)
            message = super().loads(body)
            return self.resolved(message, containers, ids)
        except (TooDeep, Stopped):
            raise
        except NotPlain as exc:
            raise WireError(f"not plain data: {exc}") from None
        except Exception as exc:
            raise WireError(f"not the protocol's message: {type(exc).__name__}") from None

    def tagged(self, pid: Any) -> Any:
        return _Pending(pid)

    def resolved(self, message: Any, containers: int, ids: int) -> Any:
        """`message` checked (`checked`) only where it must be: not at all when it holds no id
        and too few containers to be nested past DEPTH_CAP; its sync alone when the ids are all
        there (a message's big values are most often the code's own, its references in the
        sync), and only the sync's own ids when they are all the message holds (what they
        carry is fresh data then); else whole, the sync once, until every id is made."""
        self.ids, self.within, self.top = 0, 0, None
        deep = containers > DEPTH_CAP
        if not ids and not deep:
            return message
        if type(message) is not dict:
            return self.checked(message, 0)
        sync = message.get("sync")
        walked = sync if type(sync) is list else None
        if walked is not None:
            if not deep and ids == len(walked) \
                    and all(type(entry) is _Pending for entry in walked):
                self.ids = ids
                walked[:] = [self.stands_for(entry.pid) for entry in walked]
                return message
            self.checked(walked, 1)
            if self.ids == ids and not deep:
                return message
        for key, value in message.items():
            if self.ids == ids and not deep:
                break
            if value is walked:
                continue
            self.top = key
            if type(value) is list and not deep:
                self.found(value, ids)
            else:
                message[key] = self.checked(value, 1)
        return message

    def found(self, values: list, ids: int) -> None:
        """The items of `values` (a value of the message, not nested past DEPTH_CAP) checked
        from the last, until all `ids` of the message are made: a call's own values (a
        conversation) most often come before the ones it names (the tools it was handed)."""
        for index in range(len(values) - 1, -1, -1):
            if self.ids == ids:
                return
            item = values[index]
            if type(item) not in SCALARS:
                made = self.checked(item, 2)
                if made is not item:
                    values[index] = made

    def checked(self, value: Any, depth: int) -> Any:
        """`value` at most DEPTH_CAP deep, each id in it made what it stands for (a list or
        dict in place: it is fresh from the frame)."""
        kind = type(value)
        if kind is _Pending:
            self.ids += 1
            before = self.ids
            self.within += 1
            try:
                pid = self.checked(value.pid, depth)
            finally:
                self.within -= 1
            made = self.stands_for(pid, self.ids > before)
            if not self.within and self.top is not None and type(made) in (list, dict):
                self.bridge.met(self.top, made)
            return made
        if kind is not list and kind is not dict and kind is not tuple:
            return value
        if depth > DEPTH_CAP + 3:  # the message, its sync and an id hold a value
            raise TooDeep
        depth += 1
        checked = self.checked
        if kind is list:
            if not SCALARS.issuperset(map(type, value)):
                for index, item in enumerate(value):
                    if type(item) not in SCALARS:
                        new = checked(item, depth)
                        if new is not item:
                            value[index] = new
            return value
        if kind is tuple:
            if SCALARS.issuperset(map(type, value)):
                return value
            return tuple([checked(item, depth) for item in value])
        if not SCALARS.issuperset(map(type, value)):  # a key that is not a scalar
            return {checked(key, depth): checked(item, depth) for key, item in value.items()}
        if not SCALARS.issuperset(map(type, value.values())):
            for key, item in value.items():
                if type(item) not in SCALARS:
                    new = checked(item, depth)
                    if new is not item:
                        value[key] = new
        return value

    def stands_for(self, pid: Any, naming: bool = False) -> Any:
        """What an id of the student process's stands for here (`naming`: its parts hold ids
        themselves)."""
        if type(pid) is not tuple or not pid:
            raise TypeError("an id that is not a tuple")
        bridge, tag = self.bridge, pid[0]
        if tag == "$r":
            if len(pid) == 2:
                return bridge.referred(pid[1], _ABSENT)
            _parts(pid, 5)
            return bridge.referred(pid[1], pid[3], pid[2], naming)
        if tag == "$=":  # a list or dict written as each was met (`student_side.Outgoing`)
            _parts(pid, 3)
            if type(pid[1]) not in (list, dict):
                raise TypeError("a container that is not one")
            return pid[1]
        if tag == "$h":
            _parts(pid, 2)
            return bridge.lent(pid[1])
        if tag == "$c":
            _parts(pid, 3)
            return bridge.remote(pid[1], str(pid[2]))
        if tag == "$o":
            _parts(pid, 3)
            return bridge.foreign(pid[1], str(pid[2]))
        if tag == "$s":
            _parts(pid, 3)
            return bridge.remote_step(pid[1], str(pid[2]))
        if tag == "$x":
            _parts(pid, 5)
            return imitation(bridge.strangers, str(pid[1]), str(pid[2]), pid[3], pid[4])
        if tag == "$v":
            _parts(pid, 3)
            return made(str(pid[1]), pid[2])
        raise KeyError(tag)


def _parts(pid: tuple, count: int) -> None:
    if len(pid) != count:
        raise TypeError(f"an id of {len(pid)} parts where {count} are due")


class Bridge:
    """What the judge and one student process hold of each other's values: the lists and dicts
    handed to the calls running, by reference (good until the call returns); the judge's
    objects lent as handles (good as long as the process: code may keep an object from an
    earlier test); the student's objects standing here. A number is never used twice in a
    process."""

    def __init__(self, process: Peer) -> None:
        self.process = process
        self.outgoing, self.incoming = Outgoing(self), Incoming(self)
        self.strangers = Strangers()
        self.handles: dict[int, Any] = {}
        self.handle_ids: dict[int, int] = {}
        self.next_number = 1
        self.forget_test()

    def forget_test(self) -> None:
        """Forget what one test handed over; the handles lent stay."""
        self.refs: dict[int, Any] = {}
        self.remotes: dict[int, Remote] = {}
        self.foreigns: dict[int, Foreign] = {}
        self.scopes: list[Scope] = []  # per call running there, what it handed over
        self.coming: dict[int, tuple[Any, bool, bool]] = {}
        """What the message being read writes back, by ref: the contents, whether they are
        a list's kept items and more, and whether they name lists or dicts of the judge's."""
        self.wrote_names = False  # what the last message wrote named lists or dicts of ours
        self.named = 0  # the references the message being read made
        self.met_in: dict[Any, list] = {}
        """By a key of the message being read (but its sync), the lists and dicts named in its
        value, not inside one another: the rest of the value is fresh from the frame."""

    def forget_lent(self) -> None:
        """The process is gone: what it was lent goes now, not at the next collection of the
        cycle it is in."""
        self.handles.clear()
        self.handle_ids.clear()

    # -- a call's lists and dicts -----------------------------------------------------------

    def handed(self, call: dict) -> bytes:
        """A call's message as it crosses, each list and dict of its arguments with the
        reference it comes back by while the call runs (until `returned`)."""
        self.scopes.append(Scope([value for value in (*call["a"], *call["kw"].values())
                                  if type(value) in (list, dict)]))
        self.outgoing.naming = (call, call["a"], call["kw"])
        try:
            return self.outgoing.dumps(call)
        finally:
            self.outgoing.naming = None

    def named_twice(self) -> bool:
        """Whether one list or dict is named twice among the calls running."""
        return len({id(container) for container in self.refs.values()}) < len(self.refs)

    def returned(self) -> None:
        """The last call handed over has returned (or failed): its references name nothing."""
        for ref in self.scopes.pop().refs:
            self.refs.pop(ref, None)

    def remember(self, container: list | dict) -> int:
        """The reference a list or dict handed to the current call goes by."""
        ref = self.next_number
        self.next_number += 1
        self.refs[ref] = container
        self.scopes[-1].refs.append(ref)
        return ref

    def reading(self) -> None:
        """A message is about to be read: nothing it names is counted or written yet."""
        self.coming.clear()
        self.met_in.clear()
        self.named = 0

    def met(self, key: Any, container: list | dict) -> None:
        """The message being read names `container` (ours, or one of the student's written as
        met) in its value under `key`, and not inside another one it names."""
        self.met_in.setdefault(key, []).append(container)

    def referred(self, ref: Any, contents: Any, keep: Any = 0, naming: bool = False) -> Any:
        """The list or dict `ref` names, to be given `contents` (`_ABSENT`: kept as it is;
        `naming`: they name lists or dicts of ours) once the message is read; a list may keep
        its first `keep` items and take `contents` after them (the judge never changes what it
        handed over while the call runs, so what it holds is what the student process last
        said). Only one handed to a call still running may be named (the lists of an earlier
        call are the test's alone), and given contents once a message."""
        container = self.refs[ref]
        self.named += 1
        if contents is _ABSENT and not keep:
            return container
        if ref in self.coming or type(contents) is not type(container):
            raise TypeError("a reference given contents twice, or of another kind")
        if keep:
            if type(keep) is not int or type(container) is not list \
                    or not 0 < keep <= len(container):
                raise TypeError("a list told to keep items it does not have")
            contents = container[:keep] + contents
        self.coming[ref] = (contents, bool(keep), naming)
        return container

    def write_back(self) -> list[tuple[Any, Any]]:
        """Give each list or dict named in the message read its new contents, in order (one
        named twice ends as its last), but one whose contents would not change (`Unchanged`: a
        list or dict named whole, once, that the code left as it was); what each held before
        (for `put_back`). Whether what was written names lists or dicts of ours is kept
        (`wrote_names`)."""
        self.wrote_names = False
        if not self.coming:
            return []
        writes = [(self.refs[ref], contents, appended, naming)
                  for ref, (contents, appended, naming) in self.coming.items()]
        self.coming.clear()
        once = Counter(id(container) for container, *_ in writes)
        unchanged = Unchanged(self.refs)
        changing = [(container, contents, naming)
                    for container, contents, appended, naming in writes
                    if appended or once[id(container)] > 1
                    or not unchanged.same(container, contents)]
        before = []
        for container, contents, _ in changing:
            before.append((container, list(container) if type(container) is list
                           else dict(container)))
            _replace(container, contents)
        self.wrote_names = any(naming for _, _, naming in changing)
        return before

    @staticmethod
    def put_back(written: list[tuple[Any, Any]]) -> None:
        """Undo `write_back`."""
        for container, contents in reversed(written):
            _replace(container, contents)

    def synced(self, sync: list) -> None:
        """Each list or dict a message synced must be one handed to a call still running
        (else KeyError)."""
        if not sync:
            return
        handed = {id(container) for container in self.refs.values()}
        if any(id(value) not in handed for value in sync):
            raise KeyError("sync")

    def settle(self, raw: dict) -> None:
        """Write back what the message just read (`raw`, valid) named: each list or dict it
        synced must be one handed to a call still running (else KeyError), and what it wrote
        is kept only if every value of it, and every list and dict the running calls were
        handed, is still a tree (else NotATree, and nothing it wrote stays). Only what the
        message named can make it not one: a value is walked from the lists and dicts named
        in it alone (the rest of it is fresh from the frame, a tree), and the calls' lists and
        dicts only when what was written into them names some of ours (else each stays the
        tree it was, given fresh items, or kept ones and fresh ones after them)."""
        self.synced(raw["sync"])
        written = self.write_back()
        if self.named > len(raw["sync"]):
            try:
                tree_shaped([list(named) for named in self.met_in.values()]
                            + ([root for scope in self.scopes for root in scope.roots]
                               if self.wrote_names else []))
            except NotATree:
                self.put_back(written)
                raise

    def lend(self, value: Any) -> int:
        """The number of the handle `value` crosses as, good until the test ends (a tool the
        code builds may keep the workspace it was handed)."""
        ident = self.handle_ids.get(id(value))
        if ident is None or self.handles.get(ident) is not value:
            ident = self.next_number
            self.next_number += 1
            self.handles[ident], self.handle_ids[id(value)] = value, ident
        return ident

    def lent(self, ident: Any) -> Any:
        """The judge's object lent as handle `ident`; a process that names another is killed."""
        if type(ident) is not int or ident not in self.handles:
            raise self.process.broken(Unreadable(
                "The process that runs your code named an object the checker never handed it."))
        return self.handles[ident]

    def remote(self, ident: Any, name: str) -> Remote:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.remotes:
            self.remotes[ident] = self.strangers.cls(name, Remote)(self.process, ident)
        return self.remotes[ident]

    def remote_step(self, ident: Any, name: str) -> RemoteStep:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        return RemoteStep(self.process, ident, name[:80])

    def foreign(self, ident: Any, name: str) -> Foreign:
        if type(ident) is not int:
            raise TypeError("an object's number is not an int")
        if ident not in self.foreigns:
            self.foreigns[ident] = self.strangers.cls(name, Foreign)(ident)
        return self.foreigns[ident]


def call_lent(target: Any, method: str, args: list, kwargs: dict) -> Any:
    """What the judge's object `target` answers when the student's code calls `method` of its
    handle: only its kind for a repr (a judge object's own may name a test), the object itself
    when it can be called, or a method its class lists as public."""
    if method == "__repr__":
        return f"<{type_name(target)}>"
    if method == "__call__" and callable(target):
        return target(*args, **kwargs)
    if method in public(target)[0]:
        return getattr(target, method)(*args, **kwargs)
    raise AttributeError(f"{type_name(target)} has no method {method!r} that your code "
                         "may call")


def read_lent(target: Any, name: str) -> Any:
    """The attribute `name` of the judge's object `target`, when its class lists it as public."""
    if name in public(target)[1]:
        return getattr(target, name)
    raise AttributeError(f"{type_name(target)} has no attribute {name!r} that your code "
                         "may read")
