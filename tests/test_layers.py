"""The package's imports point one way, down the layers, and never in a circle.

Every module's imports are read from its source (``ast``), type-checking imports
included: an import inside ``if TYPE_CHECKING`` still ties two modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "goatarena"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("__init__", "errors", "interrupt", "protocol"),
    ("games",),
    ("testing",),
    ("schema",),
    ("strategy",),
    ("sdk",),
    ("bots",),
    ("envs",),
    ("referee",),
    ("checkbot",),
    ("ratings",),
    ("store",),
    ("render",),
    ("report",),
    ("formats",),
    ("running",),
    ("competition",),
    ("web",),
    ("bench",),
    ("cli",),
    ("entry",),
    ("__main__",),
)
"""Bottom to top. A module may import its own package's modules and anything on a lower
layer; never a module on its own layer's other packages or above."""

RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path: Path) -> str:
    """``goatarena/store/database.py`` → ``goatarena.store.database``."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, name: str) -> set[str]:
    """The goatarena modules ``path`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # ``from goatarena import protocol`` imports the module goatarena.protocol
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {module for module in found if module.split(".")[0] == "goatarena"}


def import_graph() -> nx.DiGraph:
    """Modules as nodes; an edge from each module to each goatarena module it imports."""
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(paths)
    for name, path in paths.items():
        for target in imported_modules(path, name):
            if target in paths and target != name:
                graph.add_edge(name, target)
    return graph


def layer_part(module: str) -> str:
    """The top-level part of ``goatarena.X.Y`` (``X``), or ``__init__`` for the package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {layer_part(module) for module in import_graph()}
    assert parts - RANK.keys() == set(), "add the new package to LAYERS"


def test_no_import_runs_up_the_layers() -> None:
    upward = []
    for source, target in import_graph().edges:
        here, there = layer_part(source), layer_part(target)
        if here == there:
            continue
        if RANK[there] >= RANK[here]:
            upward.append(f"{source} imports {target}")
    assert upward == []


def test_no_import_circle() -> None:
    graph = import_graph()
    # a package's __init__ importing its own modules is its curated surface, not a circle
    edges = [
        (source, target)
        for source, target in graph.edges
        if not target.startswith(source + ".") and not source.startswith(target + ".")
    ]
    cycles = list(nx.simple_cycles(nx.DiGraph(edges)))
    assert cycles == []


@pytest.mark.parametrize(
    ("source", "target", "allowed"),
    [
        ("goatarena.store.database", "goatarena.referee.match", True),
        ("goatarena.referee.match", "goatarena.store.database", False),
        ("goatarena.sdk", "goatarena.referee.bot", False),
        ("goatarena.cli.run", "goatarena.running.runner", True),
    ],
)
def test_the_rule_tells_down_from_up(source: str, target: str, allowed: bool) -> None:
    here, there = layer_part(source), layer_part(target)
    assert (RANK[there] < RANK[here]) is allowed


def test_the_graph_sees_relative_and_from_imports() -> None:
    graph = import_graph()
    assert graph.has_edge("goatarena.store.database", "goatarena.store.lock")
    assert graph.has_edge("goatarena.sdk", "goatarena.protocol")  # from goatarena import protocol
