"""The compiled tree's memory budget follows the machine, or its container."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggpkit.search.tree import array_tree


def test_a_container_limit_below_the_machine_caps_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = tmp_path / "memory.max"
    limit.write_text("1073741824\n")
    monkeypatch.setattr(array_tree, "CGROUP_LIMITS", (str(tmp_path / "absent"), str(limit)))
    assert array_tree.machine_memory() == 1 << 30
    assert array_tree.memory_budget() == (1 << 30) // array_tree.MEMORY_SHARE


def test_no_container_limit_leaves_the_machines_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = tmp_path / "memory.max"
    limit.write_text("max\n")
    monkeypatch.setattr(array_tree, "CGROUP_LIMITS", (str(limit),))
    unlimited = array_tree.machine_memory()
    monkeypatch.setattr(array_tree, "CGROUP_LIMITS", ())
    assert unlimited == array_tree.machine_memory() > 1 << 30
