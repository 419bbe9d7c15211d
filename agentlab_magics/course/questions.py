"""Diagnosis questions as data: commit an answer first, then read why each option is right or wrong.

A choice question has options, each with the reason it is right or wrong; an open question
takes the student's own words and then shows the answer and the common answers it beats.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from agentlab_magics.course.catalog import labs
from agentlab_magics.course.lab_folder import QUESTIONS as QUESTIONS_FILE
from agentlab_magics.course.lab_folder import LabFolderProblem, load_toml, read_text


class Option(BaseModel):
    text: str
    correct: bool = False
    why: str


class Question(BaseModel):
    """One question of one lab; `answer` is the full explanation shown once an answer is in."""

    id: str
    lab: str
    kind: Literal["choice", "open"]
    prompt: str
    options: list[Option] = []
    hint: str = ""
    answer: str
    source: str = ""

    @property
    def letters(self) -> list[str]:
        """The options' letters, A first."""
        return [chr(ord("A") + n) for n in range(len(self.options))]

    def letter(self, choice: str) -> str | None:
        """The letter of the option `choice` names (by letter or number from 1), or None."""
        key = choice.strip().upper()
        if key.isdigit() and 1 <= int(key) <= len(self.options):
            return self.letters[int(key) - 1]
        return key if key in self.letters else None

    def answer_for(self, given: str) -> str:
        """The answer to record for what the student gave: an option's letter, or their words.

        Raises ValueError with a sentence saying how to answer when `given` cannot be recorded.
        """
        if self.kind == "open":
            if not given.strip():
                raise ValueError("Write your answer in your own words before committing it.")
            return given.strip()
        letter = self.letter(given)
        if letter is None:
            raise ValueError(f"{given!r} is not one of the options: answer with "
                             f"{', '.join(self.letters[:-1])} or {self.letters[-1]}.")
        return letter


def _choice(id: str, prompt: str, options: list[tuple[str, bool, str]], answer: str,
            source: str) -> Question:
    return Question(id=id, lab="checkpoint-a", kind="choice", prompt=prompt, answer=answer,
                    source=source,
                    options=[Option(text=t, correct=c, why=w) for t, c, w in options])


CHECKPOINT_A = [
    _choice(
        "a1-skipped-call",
        "A teammate's loop logs a warning and skips any call to a tool it does not know. The "
        "model misspells read as raed. What happens to the run?",
        [("The model sees that its call went unanswered and asks again with the right name.",
          False, "The model never gets to look: the provider checks the list's shape before the "
          "model reads anything, and a call without a result fails that check."),
         ("The run ends normally; the warning tells a developer the tool list is wrong.", False,
          "The warning reaches a log the model cannot read, and the model is the one who made "
          "the typo and could fix it."),
         ("The next request is refused because a call has no result, and every later request "
          "on that list is refused too.", True,
          "The unanswered call stays on the record for good, so the session cannot recover.")],
        "The strict provider answers 400 invalid_request: messages[1]: toolCall c1 has no "
        "toolResult. Your run_tool answers an unknown tool with an error result, Tool raed not "
        "found; the model reads it, retries, and the job takes three model calls. Skipping a "
        "call does not undo it: it leaves a call with no result (lesson 4).",
        "Tau answers an unknown tool with an error result rather than dropping the call."),
    _choice(
        "a2-silent-cut",
        "Someone's agent answered that big.log has no `def target`, though line 2,400 has one. "
        "Nothing raised and no result was an error. Their read tool is yours minus the last "
        "line of its result. What is missing?",
        [("Nothing: the model should have guessed a 5,000-line log does not end where it was cut.",
          False, "The text it received ends on an ordinary log line; nothing in it says there "
          "is more."),
         ("The truncation notice: the result stopped at the budget without saying so.", True,
          "With one line saying where it stopped and where to carry on, the model pages on by "
          "itself."),
         ("The budget is too small; raise it until the file fits.", False,
          "That fixes this file and not the next, and every byte let through is paid for again "
          "on every later turn. The silence is the bug, not the budget.")],
        "Both tools cut at line 1,785. Yours ends its result with [Showing lines 1-1785 of "
        "5000. Use offset=1786 to continue.], the model asks for the next page and finds line "
        "2,400. A tool that reports what it left out gets paging for free (lesson 6).",
        "Tau's read tool ends a cut result with the total line count and the offset to resume."),
    _choice(
        "a3-only-what-is-new",
        "A chat sends only the messages that are new since the last call, to save tokens. The "
        "user says 'My name is Ada.', then asks 'What is my name?'. The model is lab.forgetful(). "
        "What comes back?",
        [("'Your name is Ada.': the same model was told on the first call.", False,
          "Nothing on the provider's side ties two requests together; each is answered from "
          "what it contains."),
         ("'Your name is Ada.', cheaply, because the provider caches the first message.", False,
          "A cache discounts text you send again; it does not stand in for text you leave out."),
         ("'I don't know your name.', and the saving is real.", True,
          "Each request held one message; the full list sat in their process, unread.")],
        "Their requests were U and U; yours were U and U A U. The tokens they saved were the "
        "conversation itself: the whole list goes out on every call, which is the only reason "
        "the second answer can be right (lesson 1).",
        "Tau rebuilds the list it sends from the session's messages on every call."),
    _choice(
        "a4-jumbled-order",
        "One reply asked for read(a.py) as c1 and read(b.py) as c2. Which order of the four "
        "messages will a strict provider accept?",
        [("user, result c1, result c2, reply", False,
          "A result in front of the call it answers is refused: it has no call before it."),
         ("user, reply, result c2, result c1", False,
          "Every result is there and every id is right, and it is still refused: results must "
          "follow the reply in the order it made the calls."),
         ("user, reply, result c1, result c2", True,
          "Each result right after the reply, in call order.")],
        "Results go after the reply that asked for them, in the order it asked. The ids tell "
        "you which result is which once the order is kept; they do not excuse breaking it "
        "(lessons 2 and 4).",
        "Tau keeps a function whose job is to put every result beside its call before sending."),
    _choice(
        "a5-outage",
        "After a one-minute outage, every prompt in one session fails with a 400, two days "
        "later; new sessions work. Their loop is yours, one function short. What is happening?",
        [("The provider remembers the failed request and blocks that conversation.", False,
          "The provider does not know requests belong together; a new session works because "
          "it is shorter, not because it is new."),
         ("The empty failed reply is on their record and is sent with every request.", True,
          "Providers refuse an assistant turn with nothing in it, and nothing stands between "
          "their record and their request."),
         ("The record is corrupt: delete the failed message and carry on.", False,
          "That works and destroys the only trace of what happened. Edit the request, which is "
          "computed, not the record.")],
        "400 invalid_request: messages[1]: assistant message has empty content. The missing "
        "function is context_for_model: the record keeps the failed reply because it happened, "
        "and the request is computed from the record without it (lesson 5).",
        "Tau computes each request from the record and leaves empty failed turns out of it."),
    _choice(
        "a6-copied-list",
        "A loop starts with messages = list(messages), to protect the caller's list. After a "
        "first run, the caller passes the same list with a second question. How many messages "
        "does the second run's first request carry?",
        [("One: the new prompt alone.", True,
          "The caller's list stayed empty, so every run starts from nothing."),
         ("Five: the first run's four messages and the new prompt.", False,
          "That is what your loop sends. Theirs appended everything to its own copy, which was "
          "thrown away when the run returned."),
         ("Three: the first prompt, the answer and the new prompt.", False,
          "No part of the first run reached the caller's list.")],
        "The caller's list is what a run produces; the return value is a convenience. The copy "
        "protected the caller from the conversation itself, so the second run reads the file "
        "again and pays for it again (lesson 3).",
        "Tau's loop appends to the list it is handed, and its tests check that same list."),
    Question(
        id="a7-in-common", lab="checkpoint-a", kind="open",
        prompt="Three of the six ended with a list a provider would not read: the skipped call, "
        "the jumbled transcript and the outage. Name the two rules they broke, and say which one "
        "your harness keeps by never being able to break it, and which by computing something.",
        hint="One rule is about what must sit next to what; the other is about two lists that "
        "are easy to mistake for one.",
        answer="First: every call gets exactly one result, right after its reply, in call order. "
        "The skipped call wrote no result, the jumbled transcript moved them. Your loop cannot "
        "break it: it hands every call to run_tool, which always returns one result, and "
        "appends them in order. Second: the record (what happened) and the request (what is "
        "sent) are different lists. The outage left an honest record and nothing computed a "
        "request from it; your context_for_model builds the request before every call and "
        "leaves the empty failed reply out. Common answers that miss: 'never let a run crash' "
        "(two of the three never crashed); 'check the transcript before each request and fix "
        "it' (a check can find a missing result, only the loop could have written it); 'drop "
        "from the record whatever the provider rejects' (the one edit you may not make: the "
        "record is the account of what happened; edit the request instead)."),
    Question(
        id="a8-own-words", lab="checkpoint-a", kind="open",
        prompt="In a sentence or two: what makes a script on which a correct loop and a nearly "
        "correct one part company, and why would 'a model that reads a file and answers' not do?",
        hint="Run your script through both loops in your head, then an ordinary three-file job.",
        answer="A test separates two implementations only on an input where they behave "
        "differently. The two loops ask different questions of a reply (its content, its "
        "label), so the script needs a reply where the answers differ: a call under a label "
        "that says stop, or a toolUse label over no call. An ordinary job never produces one, "
        "so both loops run it identically. Common answers that miss: 'more steps' (length is "
        "not discrimination); 'make the buggy loop crash' (it does not crash, it returns a "
        "record one message short, which is why the check looks at the record); 'any script "
        "with a tool call' (both loops run honest calls the same way)."),
]

def _predict(lab: str, id: str, prompt: str, options: list[tuple[str, bool, str]],
             answer: str) -> Question:
    return Question(id=id, lab=lab, kind="choice", prompt=prompt, answer=answer,
                    options=[Option(text=t, correct=c, why=w) for t, c, w in options])


# The predictions, one per idea (a lesson has one or more), each asked before the
# demonstration that settles it.
PREDICTIONS = [
    _predict(
        "lesson1", "l1-two-calls",
        "A chat sends the model only the newest message. The user says 'My name is Ada.' and "
        "then 'What is my name?'. What does the second reply say?",
        [("'Your name is Ada.': the model heard it a moment ago.", False,
          "Nothing links the two requests on the provider's side: the second one is read on "
          "its own, and it holds only the question."),
         ("An error: a conversation cannot start with a question.", False,
          "A request that opens with a question is a perfectly good request."),
         ("That it does not know the name.", True,
          "The second request carried one message, the question; the answer to it was never "
          "sent.")],
        "The model keeps nothing between calls. The conversation lives in your list, and every "
        "request must carry the whole of it: that is what chat is for."),
    _predict(
        "lesson2", "l2-call-order",
        "A reply holds the text 'Checking both.', a call to read a.py and a call to read b.py. "
        "How many entries does tool_calls give, and in what order?",
        [("Two: read a.py, then read b.py.", True,
          "Only toolCall blocks are calls, and the order they were made is the order the "
          "results must come back in."),
         ("Three: the text, then the two calls.", False,
          "The text is something the model said, not something it asked you to run."),
         ("Two, in any order: the ids say which is which.", False,
          "The ids match a result to its call, but a strict provider also wants the results "
          "in the order the calls were made.")],
        "A reply's content is a list of blocks; its calls are the toolCall blocks, read in "
        "order, every time they are needed."),
    _predict(
        "lesson3", "l3-label",
        "A reply carries a call to read config.py but its stop_reason says 'stop'. What should "
        "the loop do?",
        [("Drop the call and return the reply.", False,
          "That leaves a call with no result on the record, and the next request on that list "
          "is refused."),
         ("Stop: the model said it is finished.", False,
          "The label is a summary the provider writes; the content is what the model asked "
          "for, and it asked for a tool."),
         ("Run the call, append its result and ask the model again.", True,
          "A call is a call whatever the label says; the loop ends on a reply that asks for "
          "nothing, not on a word.")],
        "The loop reads the content: it ends when a reply holds no calls. Believing the label "
        "leaves an unanswered call behind."),
    _predict(
        "lesson4", "l4-unknown-tool",
        "The model asks for a tool called raed. Your tools are read, write and bash. What goes "
        "on the record?",
        [("Nothing: the call is skipped and the loop moves on.", False,
          "Then the call has no result, and every later request on that list is refused."),
         ("A result for that call saying the tool was not found, marked as an error.", True,
          "One call in, one result out: the model reads the error and can try again with "
          "the right name."),
         ("The loop raises, so the developer sees the typo.", False,
          "The typo was the model's, and only the model can fix it; it can only read what "
          "lands on the record.")],
        "run_tool answers every call with exactly one result. A failure becomes an error "
        "result the model can read, never a missing result or an exception."),
    _predict(
        "lesson5", "l5-outage",
        "The provider fails once and the loop records a failed reply with no words in it. The "
        "user asks again. What does the next request carry?",
        [("The record without the empty failed reply.", True,
          "The record keeps what happened; the request is computed from it, leaving out what "
          "a provider cannot read."),
         ("Only the new question, to start clean.", False,
          "That throws the conversation away; the model would not know what came before."),
         ("The whole record, the empty failed reply included.", False,
          "A strict provider refuses an assistant message with no content, so every later "
          "request would fail too.")],
        "Keep two lists apart: the record, which is never edited, and the request, which "
        "context_for_model makes from it before every call."),
    _predict(
        "lesson6", "l6-cut",
        "A read tool returns the first 2,000 lines of a 5,000-line log and says nothing more. "
        "The line the model needs is 2,400. What happens?",
        [("The provider refuses such a long result.", False,
          "The result fits the budget; the trouble is what it leaves unsaid."),
         ("The model asks for the next page.", False,
          "Nothing in the result says there is a next page: it ends on an ordinary log line."),
         ("The model answers that the line is not there.", True,
          "It can only reason about what it was shown, and it was shown a file that seemed "
          "to end.")],
        "A cut result must say where it stopped and how to go on. With that one line the "
        "model pages on by itself."),
    _predict(
        "lesson7", "l7-where",
        "Your agent takes forty seconds and shows nothing. You add one print. Where does it "
        "tell you the most while the run is still going?",
        [("Right after each message goes on the record, inside the loop.", True,
          "Each turn shows up as it happens, so a slow model call and a hung tool look "
          "different."),
         ("After run_agent returns, printing the record.", False,
          "That is what you had already: nothing until the run is over."),
         ("Inside the model, before each request is sent.", False,
          "You would see each request go out, but not the tools that run between them, nor "
          "when the run is over.")],
        "Tell each step where it happens, in the loop, as a plain event: whoever listens can "
        "print it, draw it or time it, and the loop stays the same."),
    _predict(
        "lesson7", "l7-run-end",
        "A display shows a spinner from run_start until run_end. The provider's connection "
        "drops in the middle of a run and run_agent raises. What does the display show?",
        [("It stops: the exception ends everything.", False,
          "Only if run_end is told however the run ends; a run_end after the loop is never "
          "reached when it raises."),
         ("An error message, from the listener.", False,
          "The listener is told nothing about the exception unless run_agent tells it."),
         ("The spinner turns for ever, unless run_end is told in a finally.", True,
          "A listener only knows a run is over when it is told so, on every way out.")],
        "End every run with exactly one run_end, with its reason, from a finally: a run that "
        "raised must still say that it is over."),
    _predict(
        "lesson7", "l7-listener",
        "The display's code has a bug and raises on the third event. What should happen to "
        "the run?",
        [("It stops, so the bug gets noticed.", False,
          "Then watching a run can break it: the same job fails only when someone looks."),
         ("It goes on exactly as it would with nobody watching.", True,
          "The record, the calls and the result must not depend on who listens; emit drops "
          "what a listener raises."),
         ("It starts again without the listener.", False,
          "The model calls and tools would run twice: that costs money and can repeat a "
          "write.")],
        "Catch what the listener raises in emit and go on: showing a run must never change "
        "it."),
    _predict(
        "ch03-a", "u3a-boundary",
        "Each model attempt is estimated at 2 cents against a budget of 6. Four cents are "
        "already charged. Is the next attempt admitted?",
        [("Yes: 4 + 2 lands exactly on the budget, and landing on it is allowed.", True,
          "Only going past the budget is refused; equality is within the bound."),
         ("No: the budget would be used up.", False,
          "Using the budget up is what a budget is for; the rule refuses exceeding it."),
         ("It depends on whether the last attempt succeeded.", False,
          "Admission looks at the charge so far and the estimate of the next attempt, not at "
          "outcomes: a failed attempt was charged too.")],
        "Admit when calls so far are under the call limit and spent plus the next estimate "
        "does not exceed the budget. The call limit is checked first."),
    _predict(
        "ch03-b", "u3b-free-failures",
        "A loop charges an attempt only after the provider answers. The provider fails on "
        "every attempt. The budget is 6 cents at 2 cents an attempt and there is no call "
        "limit. How many attempts are made?",
        [("Three: the budget stops it.", False,
          "Nothing was ever charged: every attempt failed before the charge."),
         ("As many as the outer bound allows, or forever without one.", True,
          "A failing provider looks free, so the cost bound never binds."),
         ("None: a failing provider is not called.", False,
          "The loop cannot know it will fail until it tries.")],
        "Charge at admission, before the provider can fail. Exposure is an estimate that "
        "bounds attempts, not an invoice for successes."),
]

# The options of the questions whose right answer moved off B, in today's order, each named
# by the letter it had until then. Progress files of version 1 hold those letters; the store
# reads them through this table, so a commitment still names the option the student chose.
LETTERS_IN_VERSION_1 = {"l1-two-calls": "ACB", "l2-call-order": "BAC", "l3-label": "CAB",
                        "l5-outage": "BCA", "l6-cut": "CAB", "l7-where": "BAC",
                        "l7-run-end": "ACB"}


def letter_today(question_id: str, answer: str) -> str:
    """The letter today's order gives the option a version-1 progress file committed as
    `answer`; any other answer (an open question's words, an unmoved question) unchanged."""
    before = LETTERS_IN_VERSION_1.get(question_id, "")
    if len(answer) != 1 or answer not in before:
        return answer
    return chr(ord("A") + before.index(answer))


def _by_lab(questions: list[Question]) -> dict[str, list[Question]]:
    grouped: dict[str, list[Question]] = {}
    for question in questions:
        grouped.setdefault(question.lab, []).append(question)
    return grouped


QUESTIONS: dict[str, list[Question]] = {"checkpoint-a": CHECKPOINT_A, **_by_lab(PREDICTIONS)}


def questions_for(lab_id: str) -> list[Question]:
    """The lab's questions: the built-in course's, or a pack lab's questions.toml."""
    lab = labs().get(lab_id)
    if lab is not None and lab.folder is not None:
        return pack_questions(lab.id, lab.folder / QUESTIONS_FILE)
    return QUESTIONS.get(lab_id, [])


def pack_questions(lab_id: str, path: Path) -> list[Question]:
    """The questions of questions.toml (a `[[question]]` table each, holding an `[[question.
    option]]` table per option), or none where it is absent; a LabFolderProblem naming the
    file and the question when one is not a question."""
    if not path.is_file():
        return []
    listed = load_toml(path, read_text(path)).get("question", [])
    found = []
    for number, entry in enumerate(listed if isinstance(listed, list) else [listed], 1):
        try:
            options = [Option.model_validate(option) for option in entry.pop("option", [])]
            found.append(Question.model_validate({**entry, "lab": lab_id, "options": options}))
        except (ValidationError, AttributeError, TypeError) as exc:
            raise LabFolderProblem(f"{path}: question {number} is not a question ({exc}): "
                                   "give each an id, kind (choice or open), prompt and "
                                   "answer, and each option text, correct and why.") from None
    return found


class UnknownQuestion(LookupError):
    """No question has that id; the message lists the ones there are."""


def find_question(question_id: str) -> Question:
    """The question called `question_id`, or UnknownQuestion suggesting the nearest id (what a
    typo most likely meant) and naming the ones there are."""
    packs = [pack_questions(lab.id, lab.folder / QUESTIONS_FILE) for lab in labs().values()
             if lab.folder is not None]
    every = {question.id: question for questions in [*QUESTIONS.values(), *packs]
             for question in questions}
    wanted = question_id.strip()
    if wanted in every:
        return every[wanted]
    nearest = difflib.get_close_matches(wanted.lower(), list(every), n=1, cutoff=0.6)
    meant = f" Did you mean `%question {nearest[0]}`?" if nearest else ""
    raise UnknownQuestion(f"There is no question called {question_id!r}.{meant} "
                          f"The questions are: {', '.join(every)}.")
