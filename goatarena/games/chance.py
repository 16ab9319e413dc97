"""Faster twins of :meth:`random.Random.shuffle` that draw exactly the same numbers.

Recorded games are replayed from their seed, so an engine may only shuffle faster if it
consumes the generator exactly as :meth:`random.Random.shuffle` does and ends with the
same order. The standard shuffle spends most of its time in Python calls per card
(``_randbelow`` and the bit length of each bound); :func:`shuffle` does the same steps —
Fisher-Yates from the end, each index drawn by rejection from ``getrandbits(k)`` with
``k`` the bit length of the bound — with the bit lengths taken from a table.

``tests/test_chance.py`` checks the twins against the standard library for many sizes
and seeds, on whatever Python runs the tests.
"""

from __future__ import annotations

import random
from typing import Any

_BITS = tuple(n.bit_length() for n in range(257))
"""The bit length of every bound up to 256; longer lists fall back to the standard shuffle."""


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` would."""
    size = len(items)
    if size >= len(_BITS) or type(rng) is not random.Random:
        rng.shuffle(items)  # a subclass may draw differently: let it
        return
    getrandbits = rng.getrandbits
    bits = _BITS
    for i in range(size - 1, 0, -1):
        bound = i + 1
        j = getrandbits(bits[bound])
        while j >= bound:
            j = getrandbits(bits[bound])
        items[i], items[j] = items[j], items[i]


def randbelow(rng: random.Random, bound: int) -> int:
    """``rng.randrange(bound)`` for ``bound`` > 0, drawing the same numbers."""
    if type(rng) is not random.Random:
        return rng.randrange(bound)
    k = bound.bit_length()
    value = rng.getrandbits(k)
    while value >= bound:
        value = rng.getrandbits(k)
    return value
