"""The ladder format: a league that runs until stopped while bots come and go.

- :mod:`.matchmaking` — the rule that chooses the next table (pure functions);
- :mod:`.estimate` — the quick incremental ratings the rule reads;
- :mod:`.state` — :class:`~.state.Matchmaker`, the rule's state for one ladder game;
- :mod:`.deals` — a chosen table as games: keys, seeds, rotations;
- :mod:`.roster` — versions, retired bots, suspension by error rate;
- :mod:`.stop` — the stop rules;
- :mod:`.edit` — ``goatarena ladder add / update / retire``: editing the file.
"""

from goatarena.formats.ladder.matchmaking import Contender, MatchRules, TableChoice
from goatarena.formats.ladder.state import Matchmaker

__all__ = ["Contender", "MatchRules", "Matchmaker", "TableChoice"]
