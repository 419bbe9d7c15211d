"""Lesson 1, the conversation is a list: messages are dicts, and chat sends all of them."""

from agentlab_magics import lab
from agentlab_magics.course.labtests.kit import SYSTEM, exact, gave, plain, shapes


def chat_run(harness, steps, prompts, record, messages=None):
    """The student's chat, once per prompt, on one list: (model, the caller's list, replies),
    the list and the replies proven plain data."""
    model = lab.ScriptedModel(steps, max_calls=10)
    messages = [] if messages is None else messages
    record(messages, model)
    replies = [plain(harness.chat(model, SYSTEM, messages, text), "what chat returned")
               for text in prompts]
    return model, plain(messages, "the caller's list after chat"), replies


def test_user_message_is_role_and_content(harness):
    """user_message wraps what was typed as {"role": "user", "content": the string itself}."""
    message = harness.user_message("Where is the config file?")
    expected = {"role": "user", "content": "Where is the config file?"}
    assert exact(message, expected, "what user_message returned"), (
        f"user_message('Where is the config file?') gave {gave(message, expected)}: a user's "
        "content is the plain string they typed, with no other keys.")


def test_text_of_joins_the_text_blocks_in_order(harness):
    """text_of joins the reply's text blocks in the order they come, leaving the calls out."""
    message = lab.reply(lab.text("The port "), lab.call("read", {"path": "config.py"}, id="c1"),
                        lab.text("is 9090."))
    words = harness.text_of(message)
    assert exact(words, "The port is 9090.", "what text_of returned"), (
        f"text_of gave {words!r} for a reply holding the text 'The port ', a call to read, and "
        "the text 'is 9090.'; expected 'The port is 9090.': every text block, joined as they "
        "are, in order, and nothing from the call.")


def test_text_of_a_reply_of_calls_only_is_empty(harness):
    """A reply that only asks for tools has no words: text_of gives the empty string."""
    message = lab.reply(lab.call("read", {"path": "a.py"}, id="c1"),
                        lab.call("read", {"path": "b.py"}, id="c2"))
    words = harness.text_of(message)
    assert exact(words, "", "what text_of returned"), (
        f"text_of gave {words!r} for a reply holding two calls and no text; expected '': "
        "a call is a request to run a tool, not something the model said.")


def test_chat_keeps_both_messages_in_the_callers_list(harness, record):
    """chat adds the user's message and the reply to the caller's list, and returns the reply."""
    model, messages, replies = chat_run(harness, [lab.say("Hello! How can I help?")], ["Hi."],
                                        record)
    expected = [lab.user("Hi."), lab.say("Hello! How can I help?")]
    assert exact(messages, expected, "the caller's list after chat"), (
        f"After chat the caller's list holds {lab.shape(messages)!r}:\n{lab.show(messages)}\n"
        + ("expected the user's message then the reply, 'U A': chat must append both to the "
           "list it was handed, not to a copy." if not messages else
           "expected the user's message then the reply, 'U A': append the reply too."
           if len(messages) == 1 else f"that is {gave(messages, expected)}."))
    assert exact(replies[0], lab.say("Hello! How can I help?"), "what chat returned"), (
        f"chat returned {gave(replies[0], lab.say('Hello! How can I help?'))}; it should "
        "return the reply message itself, "
        f"{lab.show(messages[-1:])}.")


def test_chat_goes_on_from_an_earlier_conversation(harness, record):
    """Given a list that already holds a conversation, chat adds to its end and sends it all."""
    history = [lab.user("Hello."), lab.say("Hello! How can I help?")]
    model, messages, _ = chat_run(harness, [lab.say("The port is 9090.")], ["What port?"],
                                  record, messages=history)
    assert messages is history and lab.shape(history) == "U A U A", (
        f"After chat the caller's list is {lab.shape(history)!r}; expected 'U A U A': the "
        "new prompt and its reply go on the end of the list that was passed in.")
    sent = shapes(model)[0]
    assert sent == "U A U", (
        f"The request carried {sent!r}; expected 'U A U': the earlier conversation and the "
        "new prompt, all of it.")


def test_chat_sends_the_whole_list_every_time(harness, record):
    """The model remembers nothing, so the second question is sent with the first one before it."""
    model, messages, replies = chat_run(harness, [lab.forgetful()],
                                        ["My name is Ada.", "What is my name?"], record)
    sent = shapes(model)
    assert sent == ["U", "U A U"], (
        f"The two requests carried {sent}; expected ['U', 'U A U']: the second request must "
        "hold the whole conversation so far, because the model keeps nothing between calls.")
    assert exact(replies[-1], lab.say("Your name is Ada."), "what chat returned"), (
        f"Asked 'What is my name?', chat returned {replies[-1]!r}; expected the reply "
        "saying 'Your name is Ada.', which the model can only say if the request still holds "
        "'My name is Ada.'")


def test_chat_sends_the_system_prompt_and_no_tools(harness, record):
    """Every request carries the system prompt chat was given, and an empty list of tools."""
    model, _, _ = chat_run(harness, [lab.say("Hello."), lab.say("Goodbye.")], ["Hi.", "Bye."],
                           record)
    assert len(model.calls) == 2, (
        f"Two prompts made {len(model.calls)} request(s); expected 2: chat asks the model once "
        "for every prompt.")
    for number, request in enumerate(model.calls, start=1):
        assert exact(request.system, SYSTEM, f"the system prompt of request {number}"), (
            f"Request {number} carried the system prompt {request.system!r}; expected "
            f"{SYSTEM!r}, the one chat was handed, on every call.")
        assert exact(request.tools, [], f"the tools of request {number}"), (
            f"Request {number} carried tools={request.tools!r}; chat has no tools, so it sends [].")
