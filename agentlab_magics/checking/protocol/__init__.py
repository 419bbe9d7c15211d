"""The protocol between the judge and a student process, the one thing both import: how a
message crosses the pipe (`frames`), how a value is carried in it (`values`), the messages
(`messages`), an exception as data (`described`), printed output capped (`printed`), and
every limit either side keeps to (`caps`).

Every module here but `messages` needs only the standard library, so the student process
imports them and starts without pydantic; `messages` checks what a student process says, on the
judge's side alone.
"""

VERSION = 4
"""The protocol's version: the student process says it first, and the judge refuses another."""
