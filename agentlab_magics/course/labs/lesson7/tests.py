"""Lesson 7, show your work: run_agent tells a listener every step of a run as it happens.

The events, each a plain dict with a "type", in the order a run makes them:
- {"type": "run_start", "prompt": ...} first;
- {"type": "message", "message": ...} right after each message goes on the record;
- per model call: {"type": "turn_start", "turn": n}, the reply's message event, then per call
  {"type": "tool_start", "turn": n, "call": ...} before the tool runs and
  {"type": "tool_end", "turn": n, "call": ..., "result": ...} once its result is on the record
  (then the result's message event), and {"type": "turn_end", "turn": n};
- {"type": "run_end", "reason": ...} last, exactly once, however the run ends: "done",
  "failed", "max_turns" or "raised".
"""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import (
    EventsDiffer,
    agent,
    exact,
    files_tool,
    gave,
    plain,
    run,
    said,
    takes_note,
)

CONFIG = {"config.py": "PORT = 9090\n"}
READ = lab.call("read", {"path": "config.py"})
ANSWER = lab.say("The port is 9090.")


class Watcher:
    """The test's ear on a run: `listener`, what run_agent is handed, keeps each event with
    the length of the record when it was told. The Watcher itself never reaches the student's
    code, so `told` is the very list the listener appends to, whatever the code does with the
    listener; what is in it is the student's, proven plain before anything reads it."""

    def __init__(self, messages: list) -> None:
        told: list[tuple[object, int]] = []
        self.told = told

        def listener(event: object) -> None:
            told.append((event, list.__len__(messages)))

        self.listener = takes_note(listener)

    def entries(self) -> list[tuple[object, int]]:
        """(event, record length) as the listener kept them; anything else put in its list
        fails the test, its own sentence."""
        for entry in self.told:
            if not (type(entry) is tuple and len(entry) == 2 and type(entry[1]) is int):
                raise AssertionError(
                    "The listener's list of events holds something the listener never put "
                    "there: call the listener with each event, and leave what it keeps alone.")
        return self.told

    def events(self) -> list:
        return plain([event for event, _ in self.entries()], "the events run_agent told")

    def kinds(self) -> list:
        """Each event's type, with its turn number where it has one: "turn_start 1"."""
        return [_kind(event) for event in self.events()]


def _kind(event: object) -> object:
    """An event proven plain, shortened for a comparison: its type, and its turn if it has one."""
    if type(event) is not dict:
        return f"<{type(event).__name__}>"
    turn = event.get("turn")
    return f"{event.get('type')} {turn}" if turn is not None else event.get("type")


# The keys each event has, by its type: the schema above.
EVENT_KEYS = {"run_start": {"type", "prompt"}, "message": {"type", "message"},
              "turn_start": {"type", "turn"}, "tool_start": {"type", "turn", "call"},
              "tool_end": {"type", "turn", "call", "result"}, "turn_end": {"type", "turn"},
              "run_end": {"type", "reason"}}


def parted(watcher: Watcher, expected: list) -> tuple[str, dict]:
    """Where the events told first depart from `expected` (their `Watcher.kinds`), naming
    the key an event lacks or should not have, and the drawing of both streams that an
    `EventsDiffer` carries to the report."""
    kinds, events = watcher.kinds(), watcher.events()
    first = next((index for index, (told, wanted) in enumerate(zip(kinds, expected))
                  if told != wanted), min(len(kinds), len(expected)))
    problem = key_problem(events[first]) if first < len(events) else ""
    if problem:
        said = f"event {first + 1}, where {expected[first]!r} belongs: {problem}"
    elif first < min(len(kinds), len(expected)):
        said = f"event {first + 1} was {kinds[first]!r} where {expected[first]!r} belongs"
    elif len(kinds) < len(expected):
        said = f"it told {len(kinds)} events and stopped before {expected[len(kinds)]!r}"
    else:
        said = f"after {expected[-1]!r} it told {kinds[len(expected)]!r} too"
    shown = [kind if type(kind) is str else repr(kind) for kind in kinds]
    drawing = {"yours": shown, "expected": list(expected), "first": first}
    if problem:
        drawing["problem"] = problem
    return said, drawing


def keys_told(watcher: Watcher) -> None:
    """Every event told has the keys of its type (EVENT_KEYS); else an EventsDiffer naming the
    first key missing or out of place."""
    for number, event in enumerate(watcher.events(), start=1):
        problem = key_problem(event)
        if problem:
            raise EventsDiffer(f"Event {number} told: {problem}.", {"problem": problem})


def key_problem(event: object) -> str:
    """What is wrong with one event's keys, the same for every event of its type ("the
    tool_start events have no 'turn' key"), or "" when nothing is."""
    if type(event) is not dict:
        return f"an event is {type(event).__name__}, not a dict: tell each event as a dict"
    if "type" not in event:
        known = set().union(*EVENT_KEYS.values())
        strays = ", ".join(repr(key) for key in event if key not in known)
        instead = f" (they have {strays} instead)" if strays else ""
        return f"the events have no 'type' key{instead}: each event names its kind as 'type'"
    wanted = EVENT_KEYS.get(event["type"]) if type(event["type"]) is str else None
    if wanted is None:
        return ""
    missing = sorted(wanted - set(event))
    extra = sorted(repr(key) for key in set(event) - wanted)
    clauses = [f"have no {key!r} key" for key in missing] + [
        f"have a key {key} that does not belong" for key in extra]
    return f"the {event['type']} events {' and '.join(clauses)}" if clauses else ""


def of_type(events: list, kind: str) -> list:
    """The events, proven plain, that are dicts of type `kind`."""
    return [event for event in events if type(event) is dict and event.get("type") == kind]


def watched(harness, steps, *, tools=None, record=None, **options):
    """One run with a Watcher listening: (model, messages, final, watcher)."""
    messages: list = []
    watcher = Watcher(messages)
    model, messages, final = run(harness, steps, tools=tools, messages=messages, record=record,
                                 listener=watcher.listener, **options)
    return model, messages, final, watcher


def test_two_turns_tell_their_events_in_order(harness, record):
    """A run that reads one file then answers tells run_start, each turn's events and run_end, in
    order."""
    model, messages, _, watcher = watched(harness, [lab.reply(READ), ANSWER],
                                          tools=[files_tool(CONFIG)], record=record)
    expected = ["run_start", "message", "turn_start 1", "message", "tool_start 1", "tool_end 1",
                "message", "turn_end 1", "turn_start 2", "message", "turn_end 2", "run_end"]
    if not exact(watcher.kinds(), expected, "the events' types"):
        where, drawing = parted(watcher, expected)
        raise EventsDiffer(f"In a run of {said(model, messages)}, {where}.", drawing)


def test_run_start_names_the_prompt_and_run_end_says_done(harness, record):
    """run_start carries the prompt; a run that ends on an answer ends on one run_end, reason
    "done"."""
    _, _, _, watcher = watched(harness, [ANSWER], record=record)
    keys_told(watcher)
    events = watcher.events()
    first, last = {"type": "run_start", "prompt": "Find the port."}, {"type": "run_end",
                                                                       "reason": "done"}
    assert exact(events[:1], [first], "the first event") and exact(
            events[-1:], [last], "the last event"), (
        f"The run's first and last events were {gave(events[:1] + events[-1:], [first, last])}.")
    assert [_kind(event) for event in events].count("run_end") == 1, (
        "run_end was told more than once: tell it exactly once, when the run is over.")


def test_every_message_is_told_once_as_it_goes_on_the_record(harness, record):
    """Each message the run adds is told once, in record order, right after it is on the record."""
    _, messages, _, watcher = watched(harness, [lab.reply(READ), ANSWER],
                                      tools=[files_tool(CONFIG)], record=record)
    keys_told(watcher)
    told = [(event.get("message"), length)
            for event, (_, length) in zip(watcher.events(), watcher.entries())
            if _kind(event) == "message"]
    assert exact([message for message, _ in told], messages, "the messages the events told"), (
        f"The message events told {len(told)} messages; the record is {lab.show(messages)}: "
        "tell each message once, as it is added.")
    assert [length for _, length in told] == list(range(1, len(messages) + 1)), (
        "A message event was told before its message was on the record (or long after): append "
        "the message, then tell it.")


def test_tool_start_comes_before_the_tool_runs_and_tool_end_has_its_result(harness, record):
    """tool_start is told before the tool runs; tool_end carries the call and the result the record
    got."""
    messages: list = []
    watcher = Watcher(messages)
    told_when_it_ran = []  # how many events were told when the tool ran, read off later
    tool = files_tool(CONFIG)
    reading = tool["execute"]

    def execute(arguments):
        told_when_it_ran.append(len(watcher.told))
        return reading(arguments)

    tool["execute"] = execute
    model, messages, _ = run(harness, [lab.reply(READ), ANSWER], tools=[tool], messages=messages,
                             record=record, listener=watcher.listener)
    keys_told(watcher)
    kinds, events = watcher.kinds(), watcher.events()
    before = kinds[:told_when_it_ran[0]] if told_when_it_ran else kinds
    assert before[-1:] == ["tool_start 1"], (
        f"When the tool ran, the last event told was {before[-1:] or 'none'}: tell tool_start "
        "right before the tool runs.")
    assert lab.shape(messages) == "U A[c1] R(c1) A", (
        f"The run made {said(model, messages)}; expected one read, then the answer.")
    ends = of_type(events, "tool_end")
    expected = {"type": "tool_end", "turn": 1, "call": messages[1]["content"][0],
                "result": messages[2]}
    assert exact(ends, [expected], "the tool_end events"), (
        f"The run ({said(model, messages)}) told tool_end as {gave(ends, [expected])}.")


def test_a_failed_reply_ends_the_turn_then_the_run_as_failed(harness, record):
    """The provider fails: the failed reply is told, its turn ends, and run_end says "failed"."""
    _, _, _, watcher = watched(harness, [lab.fail("503 overloaded")], record=record)
    expected = ["run_start", "message", "turn_start 1", "message", "turn_end 1", "run_end"]
    if not exact(watcher.kinds(), expected, "the events' types"):
        where, drawing = parted(watcher, expected)
        raise EventsDiffer(f"After a 503, {where}.", drawing)
    keys_told(watcher)  # a run_end without its 'reason' is told as that, not as a wrong reason
    assert exact(watcher.events()[-1], {"type": "run_end", "reason": "failed"}, "the last event"), (
        f"After a 503 the run ended on {watcher.events()[-1]}: the reason is 'failed'.")


def test_max_turns_tells_no_turn_for_the_call_it_does_not_make(harness, record):
    """max_turns=1: one turn is told, the stop's reply is told as a message, and run_end says
    "max_turns"."""
    model, messages, _, watcher = watched(harness, [lab.stuck(READ)],
                                          tools=[files_tool(CONFIG)], record=record, max_turns=1)
    expected = ["run_start", "message", "turn_start 1", "message", "tool_start 1", "tool_end 1",
                "message", "turn_end 1", "message", "run_end"]
    if not exact(watcher.kinds(), expected, "the events' types"):
        where, drawing = parted(watcher, expected)
        raise EventsDiffer(f"With max_turns=1 ({said(model, messages)}), {where}: the stop is "
                           "not a turn, it calls no model.", drawing)
    keys_told(watcher)
    assert exact(watcher.events()[-1], {"type": "run_end", "reason": "max_turns"},
                 "the last event"), (
        f"With max_turns=1 the run ended on {watcher.events()[-1]}: the reason is 'max_turns'.")


def test_a_model_that_raises_still_ends_the_run(harness, record):
    """The connection drops: run_end (reason "raised") is still told, the error reaches the caller,
    the list runs again."""
    def dropped(request):
        raise ConnectionError("connection reset by peer")

    messages: list = []
    watcher = Watcher(messages)
    model = lab.ScriptedModel([dropped, ANSWER])
    record(messages, model)
    try:
        harness.run_agent(model, "You are a careful test.", messages, [], "Find the port.",
                          listener=watcher.listener)
    except ConnectionError:
        raised = True
    else:
        raised = False
    keys_told(watcher)
    events = watcher.events()
    assert raised, ("The model raised ConnectionError, but run_agent did not let it reach "
                    "the caller.")
    assert exact(events[-1:], [{"type": "run_end", "reason": "raised"}], "the last event"), (
        f"When the model raised, the last event told was {watcher.kinds()[-1:] or 'none'}: tell "
        "run_end (reason 'raised') even when the run ends on an exception.")
    final = agent(harness, model, messages, [], "Try again.")
    assert exact(final, ANSWER, "what the second run returned"), (
        f"After the dropped connection, a second run on the same list returned "
        f"{gave(final, ANSWER)}.")


def test_a_listener_that_fails_does_not_stop_the_run(harness, record):
    """A listener that raises on every event changes nothing: the run and its record are as with no
    listener."""
    def broken(event):
        raise RuntimeError("the display crashed")

    steps = [lab.reply(READ), ANSWER]
    alone = run(harness, list(steps), tools=[files_tool(CONFIG)])
    try:
        watched_run = run(harness, list(steps), tools=[files_tool(CONFIG)], record=record,
                          listener=broken)
    except RuntimeError:
        raise AssertionError("The listener raised and the run stopped: catch what the listener "
                             "raises in emit, and go on.") from None
    assert exact(watched_run[1], alone[1], "the record with a failing listener") and exact(
            watched_run[2], alone[2], "what run_agent returned"), (
        f"With a failing listener the record was {lab.show(watched_run[1])}; with none it is "
        f"{lab.show(alone[1])}.")


def test_emit_tells_the_listener_the_event(harness):
    """emit(None, event) does nothing and returns None; emit(listener, event) tells the listener
    that event, once."""
    heard = []
    event = {"type": "turn_start", "turn": 1}
    quiet = harness.emit(None, dict(event))
    told = harness.emit(heard.append, dict(event))
    assert quiet is None and told is None, (
        "emit returned something: it only tells the listener, and returns None.")
    assert exact(heard, [event], "what the listener was told"), (
        f"emit told the listener {gave(heard, [event])}: call the listener once, with the event.")
