"""Unit ch03-b: attempt, the loop whose charge belongs at admission, before the provider call."""

from agentlab_magics.course.labtests.kit import exact, plain


class Provider:
    """A fake provider: fails the first `failures` calls, then answers; counts its calls."""

    def __init__(self, failures: float, answer: str = "Drafts are ready.") -> None:
        self.failures, self.answer, self.calls = failures, answer, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("503 provider unavailable")
        return self.answer


def attempted(harness, provider, **limits):
    outcome = plain(harness.attempt(provider, **limits), "what attempt returned",
                    "return a plain dict of status, attempts, spent, events and answer.")
    assert isinstance(outcome, dict) and {"status", "attempts", "spent"} <= set(outcome), (
        f"attempt returned {outcome!r}; it should return a dict with at least status, attempts "
        "and spent.")
    return outcome


def summary(outcome):
    return outcome["status"], outcome["attempts"], outcome["spent"]


def stopped_by_the_budget(harness, *, allowed, cost, budget):
    """A provider that always fails gets budget // cost attempts, each charged when admitted."""
    provider = Provider(failures=float("inf"))
    outcome = attempted(harness, provider, max_attempts=allowed, call_cost=cost, budget=budget)
    tries = budget // cost
    expected = ("MODEL_COST_LIMIT", tries, tries * cost)
    assert exact(summary(outcome), expected, "what attempt returned") and provider.calls == tries, (
        f"Against a provider that always fails, with {allowed} attempts allowed, {cost} cents a "
        f"try and a {budget} cent budget, attempt made {provider.calls} provider calls and "
        f"returned {summary(outcome)}; expected {expected}. An attempt is charged when it is "
        "admitted: if the charge comes after the provider answers, failures cost nothing and "
        "the budget never binds.")
    evidence(outcome, [(n, n * cost, "failed") for n in range(1, tries + 1)])


def evidence(outcome, events):
    """A stopped run returns its evidence too: every attempt's event, and no answer."""
    kept = {"events": outcome.get("events", "missing"), "answer": outcome.get("answer", "missing")}
    wanted = {"events": events, "answer": None}
    assert exact(kept, wanted, "the evidence attempt returned"), (
        f"attempt stopped at {outcome['status']} and returned events {kept['events']} and answer "
        f"{kept['answer']!r}; expected events {events} and answer None: a status without its "
        "counters and events is no evidence of a bounded loop.")


def test_a_provider_that_always_fails_is_stopped_by_the_budget(harness):
    """A provider that fails every time is still charged, so the budget stops it: 6 cents at 2 a try
    is 3 tries."""
    stopped_by_the_budget(harness, allowed=50, cost=2, budget=6)


def test_a_failed_attempt_is_charged_before_the_next_is_admitted(harness):
    """Two failures then an answer cost three attempts' worth: each event shows the charge already
    made."""
    outcome = attempted(harness, Provider(failures=2), max_attempts=5, call_cost=2, budget=20)
    events = outcome.get("events")
    expected = [(1, 2, "failed"), (2, 4, "failed"), (3, 6, "ok")]
    assert exact(summary(outcome), ("COMPLETED", 3, 6), "what attempt returned") and exact(
        events, expected, "the events attempt returned"), (
        f"Two failures then an answer gave {summary(outcome)} with events {events}; expected "
        f"('COMPLETED', 3, 6) with events {expected}: every admitted attempt is charged, the "
        "failed ones included, before the provider is called.")


def test_failures_count_against_the_attempt_limit(harness):
    """Failed attempts are attempts: with two allowed and a failing provider, the third is
    refused."""
    outcome = attempted(harness, Provider(failures=float("inf")), max_attempts=2, call_cost=2,
                        budget=100)
    assert exact(summary(outcome), ("MODEL_CALL_LIMIT", 2, 4), "what attempt returned"), (
        f"With 2 attempts allowed, a 100 cent budget and a provider that always fails, attempt "
        f"returned {summary(outcome)}; expected ('MODEL_CALL_LIMIT', 2, 4).")
    evidence(outcome, [(1, 2, "failed"), (2, 4, "failed")])


def test_landing_exactly_on_the_budget_is_admitted(harness):
    """An attempt whose charge lands exactly on the budget is admitted; the answer comes back."""
    outcome = attempted(harness, Provider(failures=2), max_attempts=5, call_cost=2, budget=6)
    assert exact(summary(outcome), ("COMPLETED", 3, 6), "what attempt returned") and exact(
        outcome.get("answer"), "Drafts are ready.", "the answer attempt returned"), (
        f"With a 6 cent budget at 2 cents a try and an answer on the third try, attempt returned "
        f"{summary(outcome)} and answer {outcome.get('answer')!r}; expected ('COMPLETED', 3, 6) "
        "and the provider's answer: spending exactly the budget is allowed.")


def test_the_attempt_limit_is_checked_before_the_money(harness):
    """When both limits refuse the next attempt, the attempt limit is the one reported."""
    outcome = attempted(harness, Provider(failures=float("inf")), max_attempts=2, call_cost=3,
                        budget=6)
    assert exact(summary(outcome), ("MODEL_CALL_LIMIT", 2, 6), "what attempt returned"), (
        f"After two failed attempts at 3 cents with a 2-attempt limit and a 6 cent budget, both "
        f"limits refuse a third; attempt returned {summary(outcome)}, expected "
        "('MODEL_CALL_LIMIT', 2, 6): the attempt count is checked first.")
