"""Counts in words, as every view writes them."""


def plural(count: int, word: str) -> str:
    """"1 message", "1,000 messages": a count and its word, the word plural unless 1."""
    return f"{count:,} {word}{'s' * (count != 1)}"
