def transfer_check(state):
    raise NotImplementedError("Decide before admitting the next attempt")
