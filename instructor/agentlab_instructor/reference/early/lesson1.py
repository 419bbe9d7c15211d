"""Lesson 1's `chat`: retired in lesson 3, where run_agent with no tools does its job."""

from agentlab_instructor.reference.harness import user_message


def chat(model, system, messages, text):
    """Add `text` to the caller's list, send all of it, add the reply to it, return the reply.

    The model keeps nothing between calls, so every request carries the whole conversation.
    """
    messages.append(user_message(text))
    reply = model.complete(system, messages, [])
    messages.append(reply)
    return reply
