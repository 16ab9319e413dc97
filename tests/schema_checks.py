"""Validating values against goatarena's JSON Schema with the jsonschema library, fast
enough to check every observation and action of thousands of games.

Two things make it fast without checking less: the schema's references are inlined
(resolving a ``$ref`` is most of jsonschema's time), and equal values are validated
once. A plain array schema (``type`` and ``items`` only) is split into its items, each
validated on its own, since a list is valid exactly when each of its items is: a herd
that did not change since the last decision is not validated again.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import msgspec

Validator = jsonschema.Draft202012Validator
_encode = msgspec.json.Encoder().encode


def inlined(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every local ``$ref`` replaced by the definition it names (the
    schema has no recursive types, so this ends)."""
    if isinstance(node, dict):
        if "$ref" in node:
            target = inlined(defs[node["$ref"].removeprefix("#/$defs/")], defs)
            return {**target, **{k: inlined(v, defs) for k, v in node.items() if k != "$ref"}}
        return {key: inlined(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [inlined(item, defs) for item in node]
    return node


def closed(node: Any) -> Any:
    """``node`` with every object closed to the properties it declares: the engines send
    exactly the schema's fields, so a field the schema lacks is drift."""
    if isinstance(node, dict):
        copy = {key: closed(value) for key, value in node.items()}
        if "properties" in copy:
            copy.setdefault("additionalProperties", False)
        return copy
    if isinstance(node, list):
        return [closed(item) for item in node]
    return node


class MemoValidator:
    """Validates values against one schema, each distinct value once."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._items: MemoValidator | None = None
        self._validator: Any = None
        if set(schema) == {"type", "items"} and schema["type"] == "array":
            self._items = MemoValidator(schema["items"])
        else:
            Validator.check_schema(schema)
            self._validator = Validator(schema)
        self._valid: set[bytes] = set()

    def validate(self, value: Any) -> None:
        """Raise :class:`jsonschema.ValidationError` unless ``value`` is valid."""
        if self._items is not None:
            if not isinstance(value, list):
                raise jsonschema.ValidationError(f"{value!r} is not an array")
            for item in value:
                self._items.validate(item)
            return
        key = _encode(value)
        if key not in self._valid:
            self._validator.validate(value)
            self._valid.add(key)


class ObjectValidator:
    """Validates an object schema's values property by property (each a
    :class:`MemoValidator`), after checking that the keys are exactly the required ones."""

    def __init__(self, schema: dict[str, Any]) -> None:
        assert schema["type"] == "object" and set(schema["required"]) == set(schema["properties"])
        self.properties = {name: MemoValidator(node) for name, node in schema["properties"].items()}

    def validate(self, value: dict[str, Any]) -> None:
        """Raise :class:`jsonschema.ValidationError` unless ``value`` is valid."""
        if value.keys() != self.properties.keys():
            raise jsonschema.ValidationError(
                f"fields {sorted(value.keys() ^ self.properties.keys())} differ from the schema"
            )
        for name, field in value.items():
            try:
                self.properties[name].validate(field)
            except jsonschema.ValidationError as error:
                raise jsonschema.ValidationError(f"{name}: {error.message}") from None


def definition(schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The definition ``name`` of a schema document, inlined and closed."""
    return closed(inlined(schema["$defs"][name], schema["$defs"]))
