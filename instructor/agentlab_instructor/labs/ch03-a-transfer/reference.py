def transfer_check(state):
    """The admission rule with a next-attempt estimate that can change on every attempt."""
    if state["calls"] >= state["max_calls"]:
        return "CALL_LIMIT"
    if state["spent"] + state["next_cost"] > state["budget"]:
        return "COST_LIMIT"
    return "CALL"
