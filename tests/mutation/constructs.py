"""What a bug's edit touched, and whether the first sentence of its report points there.

The construct a mutant edits is read off the edit itself, never off a report: the functions of
the reference that hold the edit, the names and quoted words the edit adds or takes away (or,
where it only moves or reorders them, the names of the text it replaces), with the words the
labs' tests use for what a named function makes ("the read tool" for make_read_tool); an edit
inside a model.complete(...) call edits the request, and one that reverses
something edits an order.

A report's first sentence is what a student reads first: the first cause it leads with, or,
where it leads with none, the first failing test's own message. It is **named** when it holds
a word of the construct; else **silent** when it is a test's own message that tells no fix (no
clause after a colon or semicolon that starts with an instruction); else **wrong**: a lead
that names something the edit did not touch, or a message that tells a fix elsewhere.
"""

from __future__ import annotations

import ast
import re

from agentlab_magics.checking.diagnosis import causes, leads
from agentlab_magics.checking.report import CheckReport
from agentlab_magics.checking.text_report import render
from tests.mutation.mutants import Mutant

# How the labs' tests and reports speak of what a function makes.
SPOKEN_OF = {
    "make_read_tool": ["read tool", "Reading"],
    "make_write_tool": ["write tool", "Writing", "the write"],
    "make_bash_tool": ["bash tool"],
    "_fit": ["truncate_head", "truncate_tail"],  # the budget both truncations keep to
    "context_for_model": ["request"],
    "run_tool": ["result", "results"],
    "emit": ["listener", "event", "events"],
}
# Names too common to point anywhere: Python's own, and the loop's every-line variables.
COMMON = {"if", "else", "elif", "return", "for", "in", "not", "and", "or", "is", "None", "True",
          "False", "def", "while", "pass", "raise", "try", "except", "as", "len", "str", "int",
          "list", "dict", "execute", "self", "get"}
WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]+")
# A clause that tells the student what to do: after a colon or semicolon, an instruction.
FIX = re.compile(r"[:;] (?:then )?(?:append|return|send|leave|tell|catch|answer|number|count|fix|"
                 r"keep|call|add|decide|label|use|make|write|give|move|check|put|compare|read|"
                 r"raise|reset|end|stop|start|pass|wrap|split|join|copy)\b")


def enclosing(source: str, old: str) -> list[str]:
    """The names of the reference's functions (outermost first) that hold the text `old`."""
    first = source.count("\n", 0, source.index(old)) + 1
    last = first + old.rstrip("\n").count("\n")
    return [node.name for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno <= first and last <= (node.end_lineno or node.lineno)]


def construct(mutant: Mutant, reference: str) -> list[str]:
    """The words that name what `mutant` edits in `reference`."""
    old, new = set(WORD.findall(mutant.old)) - COMMON, set(WORD.findall(mutant.new)) - COMMON
    quoted = re.findall(r"[\"']([A-Za-z_]+)[\"']", mutant.old)
    words = [*enclosing(reference, mutant.old), *(sorted(old ^ new) or sorted(old)),
             *(word for word in quoted if word not in COMMON)]
    words += [spoken for word in words for spoken in SPOKEN_OF.get(word, [])]
    if "model.complete(" in mutant.old:
        words.append("request")
    if "reversed(" in mutant.old + mutant.new:
        words.append("order")
    return words


def first_sentence(report: CheckReport) -> tuple[str, bool]:
    """The first sentence of the report's text and whether it is a lead (else the first
    failing test's own message); ("", False) for a report with no failure."""
    led = leads(report)
    if led:
        return led[0].lead, True
    found = causes(report)
    return (found[0].lead, False) if found else ("", False)


def verdict(mutant: Mutant, reference: str, report: CheckReport) -> str:
    """"named", "silent" or "wrong" (see the module's docstring); "silent" for a report with
    no failure, which names no cause."""
    sentence, lead = first_sentence(report)
    assert not sentence or sentence.splitlines()[0].rstrip(".") in render(report), sentence
    if not sentence:
        return "silent"
    words = construct(mutant, reference)
    if any(re.search(rf"(?<!\w){re.escape(word)}s?(?!\w)", sentence) for word in words):
        return "named"
    return "wrong" if lead or FIX.search(sentence) else "silent"
