"""JSON Schema (2020-12) of the protocol and of each game's observation and actions.

The schema is generated from the Structs of this package, which describe what the
engines' ``observation()`` and ``legal_actions()`` return and every protocol message;
tests validate real games against it, and the starter kits' types are generated from
it (``kits/generate.py``). This package sits just above :mod:`goatarena.games`.
"""

from goatarena.schema.build import (
    SHAPES,
    game_schema,
    protocol_schema,
    render,
    schema_files,
    write_schema_files,
)

__all__ = [
    "SHAPES",
    "game_schema",
    "protocol_schema",
    "render",
    "schema_files",
    "write_schema_files",
]
