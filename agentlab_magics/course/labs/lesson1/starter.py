"""harness.py: 01 The conversation is a list."""


# == 1 messages ==
# A conversation is a list of dicts, each tagged with the role that spoke.


SYSTEM = "You are a helpful assistant."  # standing instructions, sent on every call


# --- your code ---
# user_message(text)
# --- end ---


# --- your code ---
# text_of(message)
# --- end ---


# == 3 loop ==
# The code that talks to the model. The model remembers nothing between calls.


# --- your code ---
# chat(model, system, messages, text)
# --- end ---
