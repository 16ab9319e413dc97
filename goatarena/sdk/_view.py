"""Observations with attribute access for the Python SDK: :class:`View` and :func:`view`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import msgspec


class View(Mapping[str, Any]):
    """A read-only view of a JSON object: ``v.hand`` and ``v["hand"]`` alike.

    Nested objects come back as views and lists as tuples, so nothing reached through a
    view can change the observation (compare a list field with a tuple: ``v.dice ==
    (2, 5, 5, 2)``). Fields whose names are not identifiers, or that clash with a
    mapping method (``keys``, ``items``, ``values``, ``get``), are read with ``v["name"]``;
    :meth:`to_dict` gives a plain copy.
    """

    __slots__ = ("_data",)
    _data: Mapping[str, Any]

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        try:
            return view(self._data[name])
        except KeyError:
            known = ", ".join(self._data)
            raise AttributeError(f"no field {name!r} (fields: {known})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a View is read-only")

    def __getitem__(self, key: str) -> Any:
        return view(self._data[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return self._data == (other._data if isinstance(other, View) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"View({self._data!r})"

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *(key for key in self._data if key.isidentifier())]

    def to_dict(self) -> dict[str, Any]:
        """A deep, mutable copy of the underlying object as plain dicts and lists."""
        copied: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self._data))
        return copied


def view(value: Any) -> Any:
    """``value`` made read-only for reading: dicts as :class:`View`, lists as tuples."""
    if isinstance(value, View):
        return value
    if isinstance(value, Mapping):
        return View(value)
    if isinstance(value, list | tuple):
        return tuple(view(item) for item in value)
    return value
