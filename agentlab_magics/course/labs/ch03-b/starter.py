def attempt(provider, *, max_attempts, call_cost, budget):
    """Call provider() until it answers, admitting each attempt under the call and cost limits.

    Returns {"status", "attempts", "spent", "events", "answer"}; an event is
    (attempt number, cents spent after it was admitted, "ok" or "failed").
    """
    attempts, spent, events = 0, 0, []
    while True:
        if attempts >= max_attempts:
            return {"status": "MODEL_CALL_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        if spent + call_cost > budget:
            return {"status": "MODEL_COST_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        attempts += 1
        try:
            answer = provider()
        except Exception:
            events.append((attempts, spent, "failed"))
            continue
        spent += call_cost
        events.append((attempts, spent, "ok"))
        return {"status": "COMPLETED", "attempts": attempts, "spent": spent,
                "events": events, "answer": answer}
