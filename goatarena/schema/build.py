"""The JSON Schema (2020-12) documents: one of the protocol, one per game.

Built from the Structs of this package with :func:`msgspec.json.schema_components`; what
msgspec cannot say (a union of untagged objects and bare strings, a game's own
``decide``) is composed here from the components it returns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from goatarena.protocol import PROTOCOL_VERSION
from goatarena.schema import goat_lords, goat_n_goat, herr_der_ziegen, mountain_goats
from goatarena.schema.messages import BOT_MESSAGES, REFEREE_MESSAGES, SEED_MAXIMUM, Decide
from goatarena.schema.shapes import GameShapes

DIALECT = "https://json-schema.org/draft/2020-12/schema"
REF = "#/$defs/{name}"
Schema = dict[str, Any]

SHAPES: dict[str, GameShapes] = {
    shapes.game: shapes
    for shapes in (
        goat_lords.SHAPES,
        goat_n_goat.SHAPES,
        herr_der_ziegen.SHAPES,
        mountain_goats.SHAPES,
    )
}
"""Every game's shapes by game name (the same names as :data:`goatarena.games.GAMES`)."""


def ref(name: str) -> Schema:
    """A reference to the component ``name`` of the same document."""
    return {"$ref": REF.format(name=name)}


def _components(types: Iterable[Any]) -> dict[str, Schema]:
    _, components = msgspec.json.schema_components(tuple(types), ref_template=REF)
    return components


def _document(title: str, description: str, root: Schema, defs: dict[str, Schema]) -> Schema:
    return {
        "$schema": DIALECT,
        "title": title,
        "description": description,
        **root,
        "$defs": defs,
    }


def protocol_schema() -> Schema:
    """Every message of protocol version 1; a line of either side validates against it."""
    defs = _components(REFEREE_MESSAGES + BOT_MESSAGES)
    defs["RefereeMessage"] = {
        "description": "A line the referee writes.",
        "oneOf": [ref(message.__name__) for message in REFEREE_MESSAGES],
    }
    # Both hellos have type "hello": a bot's line is told from the referee's by its side.
    defs["BotMessage"] = {
        "description": "A line a bot writes.",
        "oneOf": [ref(message.__name__) for message in BOT_MESSAGES],
    }
    defs["Start"]["properties"]["seed"]["maximum"] = SEED_MAXIMUM
    defs["Action"]["anyOf"] = [{"required": ["index"]}, {"required": ["action"]}]
    return _document(
        f"goatarena protocol {PROTOCOL_VERSION}",
        "The JSON lines between the referee and a bot (docs/protocol.md). Receivers ignore"
        " fields and message types they do not know.",
        {"anyOf": [ref("RefereeMessage"), ref("BotMessage")]},
        defs,
    )


def game_schema(game: str) -> Schema:
    """A game's observation, its actions, its events and its ``decide`` message."""
    shapes = SHAPES[game]
    defs = _components((shapes.observation, *shapes.action_kinds))
    alternatives = [ref(kind.__name__) for kind in shapes.action_kinds]
    if shapes.action_words:
        defs[shapes.word_name] = {
            "title": shapes.word_name,
            "description": "The actions that are a bare string.",
            "enum": list(shapes.action_words),
        }
        alternatives.append(ref(shapes.word_name))
    action_name = shapes.action_name
    defs[action_name] = {
        "title": action_name,
        "description": f"One of the choices {game} offers in decide's actions.",
        "anyOf": alternatives,
    }
    defs[f"{shapes.prefix}Event"] = _event(shapes)
    defs[f"{shapes.prefix}Decide"] = _decide(shapes)
    return _document(
        f"goatarena {game}",
        f"What a {game} bot is sent and chooses among (docs/games.md).",
        ref(f"{shapes.prefix}Decide"),
        defs,
    )


def _event(shapes: GameShapes) -> Schema:
    note = f"; {shapes.hidden_note}" if shapes.hidden_note else ""
    return {
        "title": f"{shapes.prefix}Event",
        "description": f"A public decision of a seat{note}.",
        "type": "object",
        "properties": {
            "seat": {"type": "integer", "minimum": 0},
            "action": ref(shapes.action_name),
        },
        "required": ["seat", "action"],
    }


def _decide(shapes: GameShapes) -> Schema:
    """The protocol's decide with this game's actions, events and observation."""
    generic = _components([Decide])["Decide"]
    properties = dict(generic["properties"])
    properties["actions"] = {**properties["actions"], "items": ref(shapes.action_name)}
    properties["events"] = {"type": "array", "items": ref(f"{shapes.prefix}Event")}
    properties["observation"] = ref(shapes.observation.__name__)
    return {
        **generic,
        "title": f"{shapes.prefix}Decide",
        "description": f"A {shapes.game} decide message.",
        "properties": properties,
    }


def schema_files() -> dict[str, Schema]:
    """Every schema document by its file name under ``schema/``."""
    files = {"protocol.json": protocol_schema()}
    files.update({f"{game}.json": game_schema(game) for game in SHAPES})
    return files


def render(schema: Schema) -> str:
    """A schema as the text kept in ``schema/``: indented, in a stable order."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schema_files(folder: Path) -> list[Path]:
    """Write every schema document into ``folder``; return the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schema_files().items():
        path = folder / name
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written
