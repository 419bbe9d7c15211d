"""What student code may build during one test: a cap reached ends the test with a sentence.

A loop that never ends (a failed reply retried with `continue`, a turn limit that is never
checked) builds without bound: the record grows by a message a turn, the scripted model is
called again and again. The caps stop it long before it costs seconds or gigabytes, far above
what any correct harness needs in any lab (the references keep at most a few dozen messages
and make at most a few dozen calls in a test). `reached` tells the checker first (an audit
event, heard by the hook `listen` adds, which no code can remove or look into), then raises
`CapReached`, a BaseException; the checker decides the test from what it was told, so code
that catches the exception (even a bare `except:`) cannot change the outcome.
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, NoReturn

from agentlab_magics.checking.deadline import interval_timer

RECORD_CAP = 10_000       # messages on the list a test keeps as a run's record
CALL_CAP = 1_000          # calls one scripted model serves, with or without max_calls
CALLS_PAST_MAX = 10       # calls a scripted model takes after it said "max_calls reached"
COPY_CAP = 200_000        # messages one scripted model copies over all the requests it records
PROBE_EVERY = 0.02        # seconds of CPU time between two looks at what a test has built
EVENT = "agentlab.cap_reached"


class CapReached(BaseException):
    """Student code built more than a cap allows; its one argument is the sentence to show."""


def reached(sentence: str) -> NoReturn:
    """Tell whoever listens (the checker's child) that a cap was reached, then raise
    CapReached(sentence). Outside a check nobody listens: the exception says it all."""
    sys.audit(EVENT, sentence)
    raise CapReached(sentence)


def listen(tell: Callable[[str], None]) -> None:
    """Call `tell(sentence)` for every cap reached in this process from now on. Code that
    raises the event itself only fails its own test. Call only in a throwaway process."""

    def hook(event: str, args: tuple) -> None:
        if event == EVENT and args and type(args[0]) is str:
            tell(args[0])

    sys.addaudithook(hook)


def record_too_long(length: int) -> str:
    """The sentence for a record that grew past RECORD_CAP."""
    return (f"The run's record grew to {length:,} messages and the check stopped it (a correct "
            "run keeps a few dozen): your loop goes round again after a reply that should end "
            "the run. Look at what it does after a reply that asks for no tool, after a failed "
            "reply, and once max_turns is reached: each must end the run.")


def memory_ran_out(megabytes: int) -> str:
    """The sentence for code that asked for more memory than a check allows."""
    return (f"Your code asked for more memory than a check allows ({megabytes:,} MB; a "
            "correct harness needs a few): a list or string built without end, or one made "
            "enormous at once ([0] * 10**9), or a loop that never ends and keeps everything.")


@contextmanager
def probing(look: Callable[[], None]) -> Iterator[None]:
    """Call `look` every PROBE_EVERY seconds of this process's CPU time inside the block (it
    may raise, through `reached`). On the main thread only; elsewhere the model's caps and the
    memory limit still hold."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not (
            threading.main_thread()):
        yield
        return

    with interval_timer(signal.SIGPROF, signal.ITIMER_PROF, PROBE_EVERY, PROBE_EVERY, look):
        yield
