"""Test bot: always raises to the weakest legal declaration; calls only when no raise is
left (so after `five T` it raises to `five J`, which `referee check` must accept)."""


def act(view):
    legal = view.legal_raises()
    return legal[0] if legal else "call"
