"""The report's charts as inline SVG (no script needed to see them): each bot's rating as
the games came in, and a gauntlet's SPRT course.

Axes get "nice" ticks (steps of 1, 2, 2.5 or 5 times a power of ten) and the plot spans
whole ticks; legends are HTML beside the SVG, so they stay readable at any width.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from goatarena.report.data import SprtCourse

HistoryPoint = tuple[int, float, float, float]
"""(games the bot had played, Elo, lo, hi)."""

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 42


def nice_ticks(low: float, high: float, count: int = 5, *, whole: bool = False) -> list[float]:
    """About ``count`` round tick values covering ``low`` .. ``high`` (the first at or
    below ``low``, the last at or above ``high``); ``whole``: whole numbers only (a
    count of games has no tick at 2.5)."""
    if not math.isfinite(low) or not math.isfinite(high):
        return [0.0, 1.0]
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    rough = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(rough))
    steps = [m * power for m in (0.5, 1, 2, 2.5, 5, 10, 20)]
    if whole:
        steps = [step for step in steps if step >= 1 and float(step).is_integer()] or [1.0]

    def ticks_of(step: float) -> list[float]:
        first = math.floor(low / step + 1e-9)
        last = math.ceil(high / step - 1e-9)
        return [round(index * step, 10) for index in range(first, last + 1)]

    # the step whose tick count is nearest the one asked for; then the tighter span
    return min(
        (ticks_of(step) for step in steps),
        key=lambda ticks: (abs(len(ticks) - count), ticks[-1] - ticks[0]),
    )


def _tick_text(value: float) -> str:
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 else f"{value:g}"


class _Frame:
    """The plot area and its two axes: data values to SVG coordinates."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        self.xticks = nice_ticks(0, max(max(xs, default=1), 1), 6, whole=True)
        self.yticks = nice_ticks(min(ys, default=0), max(ys, default=1), 6)

    def x(self, value: float) -> float:
        low, high = self.xticks[0], self.xticks[-1]
        return LEFT + (value - low) / (high - low) * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        low, high = self.yticks[0], self.yticks[-1]
        return TOP + (high - value) / (high - low) * (HEIGHT - TOP - BOTTOM)

    def axes(self, x_title: str, y_title: str) -> list[str]:
        parts = []
        for tick in self.yticks:
            y = self.y(tick)
            parts.append(
                f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
                f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
                f"{_tick_text(tick)}</text>"
            )
        for tick in self.xticks:
            x = self.x(tick)
            parts.append(
                f'<line class="grid minor" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}"'
                f' y2="{HEIGHT - BOTTOM}"/><text class="tick" x="{x:.1f}"'
                f' y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{_tick_text(tick)}</text>'
            )
        parts.append(
            f'<text class="axis" x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 6}"'
            f' text-anchor="middle">{escape(x_title)}</text>'
            f'<text class="axis" transform="translate(13 {(TOP + HEIGHT - BOTTOM) / 2})'
            ' rotate(-90)"'
            f' text-anchor="middle">{escape(y_title)}</text>'
        )
        return parts


def history_plot(history: Mapping[str, Sequence[HistoryPoint]], colours: Mapping[str, str]) -> str:
    """Each bot's Elo (its interval as a faint band) against the games it had played,
    and a legend, best first, with each bot's final rating (its standings row's)."""
    if not history:
        return "<p>No games yet.</p>"
    points = [point for series in history.values() for point in series]
    frame = _Frame([p[0] for p in points], [p[2] for p in points] + [p[3] for p in points])
    parts = [f'<svg class="history" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">']
    parts.extend(frame.axes("games played by the bot", "Elo"))
    ordered = sorted(history.items(), key=lambda item: (-item[1][-1][1], item[0]))
    legend = []
    for bot, series in ordered:
        colour = colours.get(bot, "#555")
        band = [f"{frame.x(p[0]):.1f},{frame.y(p[3]):.1f}" for p in series] + [
            f"{frame.x(p[0]):.1f},{frame.y(p[2]):.1f}" for p in reversed(series)
        ]
        line = " ".join(f"{frame.x(p[0]):.1f},{frame.y(p[1]):.1f}" for p in series)
        last = series[-1]
        parts.append(
            f'<g class="series" data-bot="{escape(bot)}"><polygon points="{" ".join(band)}"'
            f' fill="{colour}" opacity="0.08"/><polyline points="{line}" fill="none"'
            f' stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"/>'
            f'<circle cx="{frame.x(last[0]):.1f}" cy="{frame.y(last[1]):.1f}" r="4"'
            f' fill="{colour}"/></g>'
        )
        legend.append(
            f'<li data-bot="{escape(bot)}" data-elo="{last[1]:.0f}" style="color:{colour}">'
            f"{escape(bot)} <b>{last[1]:.0f}</b></li>"
        )
    parts.append("</svg>")
    return f'<div class="chart">{"".join(parts)}<ol class="legend">{"".join(legend)}</ol></div>'


def sprt_plot(course: SprtCourse) -> str:
    """The log-likelihood ratio after each completed pair of games, between its bounds."""
    pairs = [point[0] for point in course.points] or [1]
    values = [point[1] for point in course.points] + [course.lower, course.upper, 0.0]
    frame = _Frame(pairs, values)
    parts = [f'<svg class="sprt" viewBox="0 0 {WIDTH} {HEIGHT}" role="img">']
    parts.extend(frame.axes("pairs of games", "log-likelihood ratio"))
    for bound, label in ((course.upper, course.upper_label), (course.lower, course.lower_label)):
        y = frame.y(bound)
        parts.append(
            f'<line class="bound" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="bound-label" x="{LEFT + 6}" y="{y - 5:.1f}">'
            f"{escape(label)} at {bound:.2f}</text>"
        )
    line = " ".join(f"{frame.x(n):.1f},{frame.y(v):.1f}" for n, v in [(0, 0.0), *course.points])
    parts.append(f'<polyline class="llr" points="{line}" fill="none"/>')
    parts.append("</svg>")
    return "".join(parts)
