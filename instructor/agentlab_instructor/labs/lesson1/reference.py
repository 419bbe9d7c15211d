"""harness.py: 01 The conversation is a list."""


# == 1 messages ==
# A conversation is a list of dicts, each tagged with the role that spoke.


SYSTEM = "You are a helpful assistant."  # standing instructions, sent on every call


def user_message(text):
    """What the user typed, as a message: its content is the plain string."""
    return {"role": "user", "content": text}


def text_of(message):
    """The words of an assistant message: its text blocks, joined, without the calls."""
    return "".join(block["text"] for block in message["content"] if block["type"] == "text")


# == 3 loop ==
# The code that talks to the model. The model remembers nothing between calls.


def chat(model, system, messages, text):
    """Add `text` to the caller's list, send all of it, add the reply to it, return the reply.

    The model keeps nothing between calls, so every request carries the whole conversation.
    """
    messages.append(user_message(text))
    reply = model.complete(system, messages, [])
    messages.append(reply)
    return reply
