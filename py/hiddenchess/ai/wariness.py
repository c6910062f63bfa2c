"""Weighing searched worlds warier than the odds (:func:`rake`), for the determinizers of the
hidden variants: a player who knows the variant uses a hidden threat whenever it wins something,
so a world in which an unseen threat is real should count for more than its share of the worlds
consistent with what the rules have revealed.

Each world has a *key*: a bit mask of the threats that are real in it (which exposed pawns are
secret, which open pieces have an attacking role, ...). :func:`rake` adjusts the weights of the
worlds chosen for the search so that each threat is real in ``factor`` times its share of all the
consistent worlds (at most 0.95), by iterative proportional fitting, one threat at a time;
:func:`weigh` is what a determinizer calls.

>>> picks = [[0b01, 1.0], [0b10, 1.0], [0b00, 1.0]]
>>> rake(picks, [0b01, 0b10, 0b00, 0b00], 0b01, 2.0)
True
>>> round(picks[0][1] / sum(w for _, w in picks), 2)   # a quarter of the worlds, weighed at 1/2
0.5
>>> [round(w, 2) for w in weigh([[0b01, 1.0], [0b10, 1.0], [0b00, 1.0]], [0b01, 0b10, 0b00, 0b00], 0b01, 2.0)]
[1.5, 0.75, 0.75]
"""


def weigh(picks, keys, exposed: int, factor: float, *, key_of=None, least: float = 0.0) -> list:
    """The weights of ``picks`` (``[item, weight]``; left as they are) raked by :func:`rake`
    ``factor`` times warier than the odds, or, when the picks cannot meet every warier target,
    to the odds as they are (``factor`` 1); scaled so that they average 1."""
    wary = [list(p) for p in picks]
    if not rake(wary, keys, exposed, factor, key_of=key_of, least=least):
        wary = [list(p) for p in picks]
        rake(wary, keys, exposed, 1.0, key_of=key_of, least=least)
    scale = len(wary) / sum(w for _, w in wary)
    return [w * scale for _, w in wary]


def rake(picks, keys, exposed: int, factor: float, *, key_of=None, least: float = 0.0,
         rounds: int = 30) -> bool:
    """Adjust the weights of ``picks`` (``[item, weight]`` lists, in place) so that each bit of
    ``exposed`` is set, in the weighted picks, ``factor`` times as often as among ``keys`` (the
    keys of all the consistent worlds), at most 0.95 and never below its odds; ``key_of(item)``
    is a pick's key (default: the item is its key). A bit that no key has counts as ``least`` of a world. Returns whether every
    bit ends at least at its odds (warier targets that the picks cannot all meet may leave one
    below: the caller then rakes to the odds, ``factor`` 1)."""
    if key_of is None:
        def key_of(item):
            return item
    bits = [1 << s for s in range(exposed.bit_length()) if exposed >> s & 1]
    odds = {b: max(least, sum(1 for k in keys if k & b)) / len(keys) for b in bits}
    target = {b: min(0.95, max(odds[b], factor * odds[b])) for b in bits}
    for _ in range(rounds):
        for b in bits:
            total = sum(w for _, w in picks)
            have = sum(w for item, w in picks if key_of(item) & b) / total
            if have <= 0.0 or have >= 1.0 or not 0.0 < target[b] < 1.0:
                continue
            up, down = target[b] / have, (1.0 - target[b]) / (1.0 - have)
            for pick in picks:
                pick[1] *= up if key_of(pick[0]) & b else down
    total = sum(w for _, w in picks)
    return all(sum(w for item, w in picks if key_of(item) & b) / total >= min(odds[b], 1.0) - 1e-6
               for b in bits)


__all__ = ["rake", "weigh"]
