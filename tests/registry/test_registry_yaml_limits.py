"""YAML alias expansion is bounded (issue 37): a few hundred bytes of nested aliases are one clear
error in under a second, wherever registry YAML is read, while ``registry.yaml``'s own anchors load.

Before the fix the 727-byte bomb below made ``vlc-harness list models`` run for minutes and die of
a MemoryError (its params, as written, were expanded by ``params_dict``); ``render`` walks the same
code through ``registry.digest()``. The command-line tests run the command in a child process
with an address-space limit, so a regression fails the test instead of the machine.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.registry import load_registry, read_document

REPO = Path(__file__).resolve().parents[2]
GHOST = "sha256:" + "ab" * 32


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """Nested lists of aliases ``levels`` deep: ``width ** levels`` nodes from under a kilobyte."""
    lines = [f"      l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"      l{k}: &l{k} [{', '.join([f'*l{k - 1}'] * width)}]" for k in range(1, levels)]
    return (
        f"plugins:\n  - {{package: vlc-ghost, pin: vlc-ghost==1.0, hashes: [{GHOST}], models: [ghost]}}\n"
        "models:\n  - id: ghost\n    type: ghost\n    params:\n" + "\n".join(lines) + "\n"
    )


@pytest.fixture
def bomb(tmp_path) -> Path:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb())
    assert len(path.read_bytes()) < 800  # the bomb was 724 bytes
    return path


def test_the_alias_bomb_is_refused_in_under_a_second(bomb, vlc_plugins):
    start = time.perf_counter()
    with pytest.raises(RegistryError) as raised:
        load_registry([bomb], vlc_plugins)
    assert time.perf_counter() - start < 1.0
    assert str(raised.value).startswith(f"{bomb}: ")
    assert re.search(r"expands to more than [\d,]+ nodes", str(raised.value))


def _limited(*argv: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """A command in a child process that may not grow past 3 GiB of address space."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "vlc_harness", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        preexec_fn=limit,
    )
    return out, time.perf_counter() - start


@pytest.mark.parametrize("command", [["list", "models"], ["render", "--out", "site"]])
@pytest.mark.subprocess
def test_the_command_line_exits_2_with_the_message(bomb, tmp_path, command):
    clean = tmp_path / "clean.yaml"
    clean.write_text("models:\n  - {id: r, type: random}\n")
    store = ["--store", f"sqlite:///{tmp_path / 'store.sqlite'}"] if command[0] == "render" else []
    baseline, base_s = _limited(*command, "--registry", str(clean), *store, cwd=tmp_path)
    out, bomb_s = _limited(*command, "--registry", str(bomb), *store, cwd=tmp_path)
    assert out.returncode == 2, out.stderr[-2000:]
    assert re.search(r"bomb.yaml: .*expands to more than [\d,]+ nodes", out.stderr), out.stderr[-2000:]
    assert "Traceback" not in out.stderr
    assert bomb_s < base_s + 1.0  # the refusal costs under a second over the command's own start
    assert baseline.returncode in (0, 3), baseline.stderr[-2000:]


def test_every_reader_of_registry_yaml_is_bounded(tmp_path, vlc_plugins):
    from vlc_harness.cards import BenchmarkCard
    from vlc_harness.registry import parse_inline_model

    body = alias_bomb().split("    params:\n", 1)[1]
    with pytest.raises(RegistryError, match="more than"):  # read_document: the PR check, plan, plugins install
        read_document(alias_bomb(), "HEAD:registry.yaml")
    (tmp_path / "cfg.yaml").write_text("\n".join(line[6:] for line in body.splitlines()) + "\n")
    (tmp_path / "r.yaml").write_text("models:\n  - {id: m, type: random, params: {seed: '@cfg.yaml'}}\n")
    with pytest.raises(RegistryError, match=r"cfg.yaml: .*more than"):  # an @file's content
        load_registry([tmp_path / "r.yaml"], vlc_plugins)
    with pytest.raises(RegistryError, match="more than"):  # an @file of an inline spec
        parse_inline_model(f"random:seed=@{tmp_path / 'cfg.yaml'}", vlc_plugins)
    inline = "{" + ", ".join(line.strip() for line in body.splitlines()) + "}"
    with pytest.raises(RegistryError, match="more than"):  # an inline spec's YAML mapping
        parse_inline_model(f"random:{inline}", vlc_plugins)
    card = tmp_path / "cards" / "demo.md"
    card.parent.mkdir()
    card.write_text("---\n" + "\n".join(line[6:] for line in body.splitlines()) + "\n---\nbody\n")
    with pytest.raises(ValueError, match="more than"):  # a benchmark card's front matter
        BenchmarkCard.read(card)


def test_size_depth_and_recursion_limits(tmp_path, vlc_plugins):
    from vlc_harness.safe_yaml import MAX_BYTES, MAX_DEPTH

    big = tmp_path / "big.yaml"
    big.write_text("models: []\n" + "#" * MAX_BYTES)
    start = time.perf_counter()
    with pytest.raises(RegistryError, match=rf"big.yaml: .* over the limit of {MAX_BYTES:,} bytes"):
        load_registry([big], vlc_plugins)
    assert time.perf_counter() - start < 1.0
    with pytest.raises(RegistryError, match=f"nested more than {MAX_DEPTH} levels deep"):
        read_document("models: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "deep.yaml")
    with pytest.raises(RegistryError, match="nested more than"):  # deeper than the parser itself can go
        read_document("models: " + "[" * 5000 + "]" * 5000, "deeper.yaml")
    with pytest.raises(RegistryError, match="refers to itself"):
        read_document("models: &a [*a]\n", "loop.yaml")


def test_registry_yaml_is_far_below_the_limits(vlc_plugins):
    """The published grid uses anchors and aliases; its expanded size is a small share of the cap."""
    from vlc_harness.safe_yaml import MAX_BYTES, MAX_NODES, expanded_size

    text = (REPO / "registry.yaml").read_text(encoding="utf-8")
    import yaml

    nodes = expanded_size(yaml.compose(text))
    assert text.count("&") >= 10 and nodes < MAX_NODES / 10 and len(text.encode()) < MAX_BYTES / 10
    assert load_registry([REPO / "registry.yaml"], vlc_plugins).models
