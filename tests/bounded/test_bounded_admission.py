"""Admission references and their case tables: the reference passes every table, the tables
reject plausible wrong answers, and no input is mutated."""

import copy

import pytest
from pydantic import ValidationError

from agentlab_labs.ch03_a.heldback import INSTRUCTOR_ADMISSION_CASES
from agentlab_labs.ch03_a_transfer.heldback import INSTRUCTOR_TRANSFER_CASES
from agentlab_magics.bounded.admission import (
    TRANSFER_CASES,
    VISIBLE_CASES,
    decide_admission,
    transfer_check,
)

ADMISSION_ROWS = VISIBLE_CASES + INSTRUCTOR_ADMISSION_CASES
TRANSFER_ROWS = TRANSFER_CASES + INSTRUCTOR_TRANSFER_CASES


@pytest.mark.parametrize(("case", "expected"), ADMISSION_ROWS)
def test_decide_admission_matches_every_case_and_leaves_it_unchanged(case, expected):
    supplied = copy.deepcopy(case)
    assert decide_admission(supplied) == expected
    assert supplied == case


@pytest.mark.parametrize(("label", "arguments", "expected"), TRANSFER_ROWS)
def test_transfer_check_matches_every_case_and_leaves_it_unchanged(label, arguments, expected):
    supplied = copy.deepcopy(arguments)
    observed = transfer_check(*supplied)
    assert type(observed) is str and observed == expected, label
    assert supplied == arguments


def test_the_visible_tables_are_the_seeds():
    assert [expected for _, expected in VISIBLE_CASES] == [
        "CALL",
        "MODEL_CALL_LIMIT",
        "MODEL_COST_LIMIT",
        "CALL",
    ]
    assert [label for label, _, _ in TRANSFER_CASES] == [
        "exact fit",
        "next attempt too costly",
        "two exhausted limits",
        "zero allowed attempts",
    ]


def _call_limit_checked_with_gt(calls, max_calls, spent, next_cost, budget):
    if calls > max_calls:
        return "calls"
    return "cost" if spent + next_cost > budget else None


def _money_equality_refused(calls, max_calls, spent, next_cost, budget):
    if calls >= max_calls:
        return "calls"
    return "cost" if spent + next_cost >= budget else None


def _cost_checked_first(calls, max_calls, spent, next_cost, budget):
    if spent + next_cost > budget:
        return "cost"
    return "calls" if calls >= max_calls else None


def _next_cost_ignored(calls, max_calls, spent, next_cost, budget):
    if calls >= max_calls:
        return "calls"
    return "cost" if spent > budget else None


def _always_admit(calls, max_calls, spent, next_cost, budget):
    return None


MUTANTS = [
    _call_limit_checked_with_gt,
    _money_equality_refused,
    _cost_checked_first,
    _next_cost_ignored,
    _always_admit,
]


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mutant: mutant.__name__)
def test_the_held_back_cases_alone_reject_each_plausible_wrong_rule(mutant):
    admission_words = {None: "CALL", "calls": "MODEL_CALL_LIMIT", "cost": "MODEL_COST_LIMIT"}
    transfer_words = {None: "CALL", "calls": "CALL_LIMIT", "cost": "COST_LIMIT"}

    def wrong_admission(case):
        return admission_words[
            mutant(
                case["used_calls"],
                case["max_calls"],
                case["spent"],
                case["next_cost"],
                case["budget"],
            )
        ]

    def wrong_transfer(state):
        return transfer_words[mutant(**state)]

    assert any(wrong_admission(case) != expected for case, expected in INSTRUCTOR_ADMISSION_CASES)
    assert any(
        wrong_transfer(*arguments) != expected
        for _, arguments, expected in INSTRUCTOR_TRANSFER_CASES
    )


@pytest.mark.parametrize(
    "state",
    [
        {"calls": -1, "max_calls": 3, "spent": 0, "next_cost": 0, "budget": 0},
        {"calls": True, "max_calls": 3, "spent": 0, "next_cost": 0, "budget": 0},
        {"calls": 0, "max_calls": 3, "spent": 0, "next_cost": "2", "budget": 0},
        {"calls": 0, "max_calls": 3, "spent": 0, "next_cost": 2},
        {"calls": 0, "max_calls": 3, "spent": 0, "next_cost": 2, "budget": 9, "extra": 1},
    ],
)
def test_transfer_check_refuses_inputs_outside_the_contract(state):
    with pytest.raises(ValidationError):
        transfer_check(state)


def test_decide_admission_reads_the_loops_spelling_only():
    with pytest.raises(ValidationError):
        decide_admission({"calls": 0, "max_calls": 3, "spent": 0, "next_cost": 2, "budget": 6})
