"""Measured figures with their standard errors, and goals judged against that noise.

A benchmark that prints "met" for a goal met by less than its own standard error claims
more than it measured: another run (or an independent check) can land on the other
side. Every verdict here says whether the margin is clear of the noise (more than
:data:`CLEAR_SE` standard errors) or only within it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

CLEAR_SE = 2.0
"""How many standard errors a margin must exceed for a goal to be met (or missed) beyond
the noise: about the 95 % two-sided level."""


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    """The mean of independent ``values`` and its standard error (inf with fewer than two)."""
    mean = statistics.fmean(values) if values else math.nan
    if len(values) < 2:
        return mean, math.inf
    return mean, statistics.stdev(values) / math.sqrt(len(values))


def paired_difference(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """The mean of ``first[i] - second[i]`` over the pairs (measurements on the same
    trial) and its standard error, which pairing makes smaller than the two rows' own."""
    return mean_and_stderr([float(x) - float(y) for x, y in zip(first, second, strict=False)])


def ratio_stderr(top: Sequence[float], bottom: Sequence[float]) -> float:
    """The standard error of ``mean(top) / mean(bottom)`` over paired events (the delta
    method: the spread of ``top - ratio × bottom`` over the mean of ``bottom``)."""
    if len(top) < 2:
        return math.inf
    ratio = statistics.fmean(top) / statistics.fmean(bottom)
    residuals = [x - ratio * y for x, y in zip(top, bottom, strict=True)]
    return statistics.stdev(residuals) / math.sqrt(len(top)) / abs(statistics.fmean(bottom))


def verdict(margin: float, error: float) -> str:
    """How a goal fares whose measured ``margin`` (positive: met) has standard ``error``:
    ``met`` or ``NOT MET`` when the margin is beyond :data:`CLEAR_SE` errors, else the
    same said to be within the noise, with the margin in standard errors."""
    if math.isfinite(error) and error > 0 and abs(margin) <= CLEAR_SE * error:
        said = "met only within noise" if margin >= 0 else "NOT MET, within noise"
        return f"{said} ({margin / error:+.1f} s.e.)"
    return "met" if margin >= 0 else "NOT MET"


def range_verdict(value: float, error: float, low: float, high: float) -> str:
    """:func:`verdict` for a goal that ``value`` lie between ``low`` and ``high``."""
    return verdict(min(value - low, high - value), error)
