"""The second process of :mod:`goatarena.store.split_count`: ``python -m
goatarena.store.count_half DATABASE AFTER [GAME]`` counts the stored games after place
AFTER (of GAME) into a standings tally and writes it, pickled, to its standard output
(or ``("damaged", message)`` for a damaged summary)."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from goatarena.errors import StoreError
from goatarena.ratings.standings import StandingsTally
from goatarena.store.opening import open_store
from goatarena.store.standings import count_summary


def main(arguments: list[str]) -> None:
    """Count and write (see the module docstring)."""
    path, after = Path(arguments[0]), int(arguments[1])
    game = arguments[2] if len(arguments) > 2 else None
    try:
        store = open_store(path, create=False)
        try:
            tally = StandingsTally()
            for summary in store.summaries(game=game, after=after):
                count_summary(tally, summary)
        finally:
            store.close()
        tally.pairs.patterns()  # folded here: what is sent is arrays, not lists
        outcome: object = tally
    except StoreError as error:
        outcome = ("damaged", str(error))
    try:
        pickle.dump(outcome, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
        sys.stdout.flush()
    except BrokenPipeError:  # the first process is gone: nobody wants the tally
        pass


if __name__ == "__main__":
    main(sys.argv[1:])
