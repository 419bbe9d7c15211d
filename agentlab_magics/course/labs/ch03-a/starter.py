def decide_admission(case):
    """Return CALL, MODEL_CALL_LIMIT, or MODEL_COST_LIMIT."""
    return "CALL"
