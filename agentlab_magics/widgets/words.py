"""Counts in words, as every view writes them."""


def plural(count: int, word: str) -> str:
    """"1 message", "1,000 messages": a count and its word, the word plural unless 1."""
    return f"{count:,} {word}{'s' * (count != 1)}"


def clip(text: str, cap: int) -> str:
    """`text` cut to its first `cap` characters, saying how many more there were."""
    return text if len(text) <= cap else f"{text[:cap]}… (+{len(text) - cap:,} chars)"
