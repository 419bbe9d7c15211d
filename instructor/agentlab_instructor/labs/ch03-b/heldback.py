"""Unit ch03-b's held-back test: the same rule at another price and budget."""

from agentlab_labs.ch03_b.tests import stopped_by_the_budget


def test_other_prices_and_budgets(harness):
    """The same rule at other prices: 3 cents a try against 10 cents allows three failing tries."""
    stopped_by_the_budget(harness, allowed=9, cost=3, budget=10)
