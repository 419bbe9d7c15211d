"""Printed output, capped the one way both processes cap it: the first OUTPUT_CAP characters
kept, the rest counted and told in a sentence. The student process caps what its code prints
between two of its messages, and the judge what it keeps of one test. Part of both processes:
it needs only the standard library.
"""

from __future__ import annotations

from agentlab_magics.checking.protocol.caps import OUTPUT_CAP


class Printed:
    """What was printed since the last `take`: its first OUTPUT_CAP characters, and a count of
    the rest."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.size = self.dropped = 0

    def keep(self, text: str) -> None:
        room = max(OUTPUT_CAP - self.size, 0)
        self.pieces.append(text[:room])
        self.size += min(len(text), room)
        self.dropped += max(len(text) - room, 0)

    def take(self) -> str:
        """The text kept, with a sentence saying how much was left out, if any; then start
        again."""
        text = "".join(self.pieces)
        if self.dropped:
            text += f"\n… ({self.dropped:,} more characters of output left out)"
        self.pieces, self.size, self.dropped = [], 0, 0
        return text
