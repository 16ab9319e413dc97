"""Time control: a value object for the rules and a per-seat clock that applies them."""

from __future__ import annotations

import msgspec

from goatarena.protocol import TimeInfo


class TimeControl(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Limits in milliseconds: per decision, an optional Fischer bank, start-up and grace.

    A decision may take ``move_ms`` plus whatever is left in the bank; time over
    ``move_ms`` is taken from the bank, and ``increment_ms`` is added to it after every
    decision. ``margin_ms`` is granted silently on top of every deadline to absorb pipe
    and scheduling overhead; bots are never told about it.
    """

    move_ms: int = 1000
    bank_ms: int = 0
    increment_ms: int = 0
    startup_ms: int = 10_000
    margin_ms: int = 25

    def __post_init__(self) -> None:
        for name in ("move_ms", "startup_ms"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        for name in ("bank_ms", "increment_ms", "margin_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")

    def to_info(self) -> TimeInfo:
        """What a bot is told of the time control at the start of a game."""
        return TimeInfo(move_ms=self.move_ms, bank_ms=self.bank_ms, increment_ms=self.increment_ms)


class Clock:
    """One seat's clock for one game.

    The bot is told ``available_ms`` (``move_ms`` plus its bank); the referee waits
    ``deadline_s`` (that plus ``margin_ms``). Time is measured from just before the
    request is written until its answer has been read, so it includes the pipe's
    latency, which the margin absorbs. A timeout charges the whole allowance.
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms = float(control.bank_ms)

    @property
    def available_ms(self) -> float:
        """The time the seat may take for its next decision, as it is told."""
        return self.control.move_ms + self.bank_ms

    @property
    def deadline_s(self) -> float:
        """The hard limit for the next decision in seconds, the grace margin included."""
        return (self.available_ms + self.control.margin_ms) / 1000

    def charge(self, used_ms: float) -> None:
        """Take time used over ``move_ms`` from the bank, then add the increment."""
        # Whole microseconds keep the bank free of float noise from clock subtraction.
        over = round(used_ms, 3) - self.control.move_ms
        if over > 0:
            self.bank_ms = max(0.0, self.bank_ms - over)
        self.bank_ms += self.control.increment_ms
