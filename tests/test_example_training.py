"""The training example (examples/mountain_goats_policy.py) learns to beat the random bot."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mountain_goats_policy.py"


def load_example():
    spec = importlib.util.spec_from_file_location("mountain_goats_policy", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_a_self_played_policy_beats_the_random_bot(tmp_path: Path) -> None:
    example = load_example()
    untrained = example.Policy.zeros()
    assert example.win_rate(untrained, 20) < 0.5  # "climb nothing" first: it loses
    policy = example.train(1500, seed=3)
    path = tmp_path / "policy.npz"
    policy.save(str(path))
    loaded = example.Policy.load(str(path))
    assert np.array_equal(loaded.weights, policy.weights)
    assert example.win_rate(loaded, 100) >= 0.7
