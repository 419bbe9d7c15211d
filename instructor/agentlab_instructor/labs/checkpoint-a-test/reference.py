"""my_test.py: a reply whose label lies, and the record only an honest loop leaves."""

import lab


def script():
    """A call labelled "stop", then the answer a loop that reads the content will ask for."""
    return [lab.reply(lab.call("read", {"path": "config.py"}), stop_reason="stop"),
            lab.say("The port is 9090.")]


def check(model, messages, final):
    """The call was answered and the model was asked again: the record is U A[c1] R(c1) A."""
    expected = "U A[c1] R(c1) A"
    assert lab.shape(messages) == expected, (
        f"The model asked to read config.py in a reply labelled 'stop'. The loop made "
        f"{len(model.calls)} model call(s), returned {lab.show([final])!r} and left "
        f"{lab.shape(messages)!r}, where {expected!r} was expected: a call is a call whatever "
        f"the label says, so the tool must run and its result go back.\n{lab.show(messages)}")
