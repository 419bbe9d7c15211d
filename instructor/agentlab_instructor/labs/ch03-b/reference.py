def attempt(provider, *, max_attempts, call_cost, budget):
    """Charge every attempt when it is admitted, before the provider can fail."""
    attempts, spent, events = 0, 0, []
    while True:
        if attempts >= max_attempts:
            return {"status": "MODEL_CALL_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        if spent + call_cost > budget:
            return {"status": "MODEL_COST_LIMIT", "attempts": attempts, "spent": spent,
                    "events": events, "answer": None}
        attempts += 1
        spent += call_cost
        try:
            answer = provider()
        except Exception:
            events.append((attempts, spent, "failed"))
            continue
        events.append((attempts, spent, "ok"))
        return {"status": "COMPLETED", "attempts": attempts, "spent": spent,
                "events": events, "answer": answer}
