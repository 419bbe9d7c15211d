"""What one test's run may build: a cap reached ends the test with a sentence.

A loop that never ends (a failed reply retried with `continue`, a turn limit that is never
checked) builds without bound: the record grows by a message a turn, the scripted model is
called again and again. The caps stop it long before it costs seconds or gigabytes, far above
what any correct harness needs in any lab (the references keep at most a few dozen messages
and make at most a few dozen calls in a test). `reached` raises `CapReached`, a BaseException
that a harness's `except Exception` lets through; in a check, the model that raises it lives
with the tests, so nothing the student's code does with it changes the test's outcome.
"""

from __future__ import annotations

from typing import NoReturn

RECORD_CAP = 10_000       # messages on the list a test keeps as a run's record
CALL_CAP = 1_000          # calls one scripted model serves, with or without max_calls
CALLS_PAST_MAX = 10       # calls a scripted model takes after it said "max_calls reached"
COPY_CAP = 200_000        # messages one scripted model copies over all the requests it records


class CapReached(BaseException):
    """Code built more than a cap allows; its one argument is the sentence to show."""


def reached(sentence: str) -> NoReturn:
    """Stop the run: raise CapReached(sentence)."""
    raise CapReached(sentence)


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
