def decide_admission(case):
    """May the next model attempt begin? The call count is checked first, then the money:
    spending exactly the budget is allowed, going past it is not."""
    if case["used_calls"] >= case["max_calls"]:
        return "MODEL_CALL_LIMIT"
    if case["spent"] + case["next_cost"] > case["budget"]:
        return "MODEL_COST_LIMIT"
    return "CALL"
