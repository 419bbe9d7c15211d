"""Lesson 1's held-back tests: what was typed is kept exactly, and a long conversation is sent
whole."""

from agentlab_labs.lesson1.tests import chat_run
from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import exact, shapes


def test_user_message_keeps_what_was_typed_exactly(harness):
    """user_message keeps what was typed character for character, spaces and newlines included."""
    for typed in ("  Which tests fail?\n", "Lies la Datei\tnotes.md, bitte. ", ""):
        message = harness.user_message(typed)
        assert exact(message, {"role": "user", "content": typed}, "what user_message returned"), (
            f"user_message({typed!r}) gave {message!r}; expected "
            f"{{'role': 'user', 'content': {typed!r}}}: the content is exactly what was typed, "
            "with nothing trimmed or added.")


def test_chat_sends_a_long_conversation_whole(harness, record):
    """Three exchanges on, chat still sends all of them: the name given first is still there."""
    history = [lab.user("My name is Grace."), lab.say("Hello, Grace."),
               lab.user("I write compilers."), lab.say("That sounds like hard work."),
               lab.user("I drink tea, not coffee."), lab.say("Noted.")]
    model, messages, replies = chat_run(harness, [lab.forgetful()], ["What is my name?"], record,
                                        messages=history)
    sent = shapes(model)[0] if model.calls else "nothing"
    assert sent == "U A U A U A U" and exact(replies[0], lab.say("Your name is Grace."),
                                              "what chat returned"), (
        f"After three exchanges, 'What is my name?' was sent as {sent!r} and chat returned "
        f"{lab.show(replies)}; expected the request 'U A U A U A U' and the reply 'Your name is "
        "Grace.': every request carries the whole list, however long it has grown.")
