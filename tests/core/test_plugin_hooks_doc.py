"""docs/plugin_hooks.md held to the hooks: every hookspec has a section (its signature, when it is
called, an example file of docs/examples/ shown verbatim) and every section a hookspec; each example
loads as a plugin from a plugins folder, as a reader would use it, and does what its section says."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlc_harness.errors import PluginError
from vlc_harness.plugins import get_plugins, new_manager

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC = DOCS / "plugin_hooks.md"
EXCERPTED = {"register_benchmarks"}
"""Sections that show part of their example (the adding-a-benchmark doc shows all of it)."""


def hookspecs() -> dict[str, tuple[str, ...]]:
    """Every hook of :mod:`vlc_harness.hookspecs`, with its argument names."""
    pm = new_manager()
    return {name: getattr(pm.hook, name).spec.argnames for name in dir(pm.hook) if not name.startswith("_")}


def sections(text: str) -> dict[str, tuple[str, str]]:
    """The doc's hook sections: name -> (arguments as written, body)."""
    out = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, body = part.split("\n", 1)
        found = re.fullmatch(r"(\w+)\((.*)\)", heading.strip())
        out[found[1] if found else heading] = (found[2] if found else "", body)
    return out


def example_of(body: str) -> Path | None:
    """The one example file a section links to (``None``: none, or several)."""
    files = set(re.findall(r"\]\(examples/([\w.]+\.py)\)", body))
    return DOCS / "examples" / files.pop() if len(files) == 1 else None


def section_problems(text: str) -> list[str]:
    """What breaks the rules: a hook without a section, a section without a hook, a heading whose
    arguments are not the hook's, no word on when it is called, no example file or not shown as it is."""
    specs, documented = hookspecs(), sections(text)
    problems = [f"{name}: no section" for name in sorted(set(specs) - set(documented))]
    problems += [f"{name}: a section, but no such hook" for name in sorted(set(documented) - set(specs))]
    for name in sorted(set(specs) & set(documented)):
        args, body = documented[name]
        example = example_of(body)
        blocks = re.findall(r"```python\n(.*?)```", body, flags=re.S)
        if args != ", ".join(specs[name]):
            problems.append(f"{name}: the heading's arguments {args!r} are not the hook's")
        if "**Called:**" not in body:
            problems.append(f"{name}: does not say when it is called")
        if example is None or not blocks:
            problems.append(f"{name}: no example file, or none shown")
            continue
        shown = example.read_text()
        if not all(block in shown for block in blocks) or (name not in EXCERPTED and shown not in blocks):
            problems.append(f"{name}: the example shown is not {example.name} as it is")
    table = text.split("\n## ", 1)[0]
    for name, (args, body) in documented.items():
        example = example_of(body)
        row = next((line for line in table.splitlines() if f"`{name}({args})`" in line), "")
        if example is None or f"](examples/{example.name})" not in row:
            problems.append(f"{name}: no row with its example in the table")
    return problems


def test_every_hook_has_a_section_and_every_section_is_a_hook():
    assert section_problems(DOC.read_text()) == []


@pytest.mark.parametrize(
    "plant, expected",
    [
        (lambda t: t.replace("## register_commands(cli)", "## register_command(cli)"), "register_commands: no section"),
        (lambda t: t + "\n## on_startup(app)\n\n**Called:** never.\n", "on_startup: a section, but no such hook"),
        (lambda t: t.replace("## conformance_example(cls, tmp_path)", "## conformance_example(cls)"), "arguments"),
        (lambda t: t.replace("**Called:** once per process", "Once per process"), "when it is called"),
        (lambda t: t.replace("register(TextRecallAtK)\n```", "register(TextRecallAtK)  # mine\n```"), "as it is"),
    ],
)
def test_the_doc_check_fails_on_a_planted_mistake(plant, expected):
    text = DOC.read_text()
    planted = plant(text)
    assert planted != text, "the plant did not apply"
    assert any(expected in problem for problem in section_problems(planted))


def test_the_examples_import_vlc_harness_only():
    for _, body in sections(DOC.read_text()).values():
        example = example_of(body)
        assert example is not None
        text = example.read_text()
        assert "vlc_harness_builtins" not in text and "vlc_harness." not in text, f"{example.name}: vlc_harness only"


@pytest.fixture
def plugins_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], Any]]:
    """``load(name)``: the example file ``name`` loaded from a plugins folder, as a reader would;
    returns the reloaded plugin set."""
    folder = tmp_path / "plugins"
    folder.mkdir()

    def load(name: str) -> Any:
        (folder / name).write_text((DOCS / "examples" / name).read_text())
        monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(folder))
        for module in [m for m in sys.modules if m.startswith("vlc_harness_local_plugins.")]:
            del sys.modules[module]  # the file as it is now, not an earlier test's copy
        return get_plugins(reload=True)

    yield load
    monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR", raising=False)
    get_plugins(reload=True)


def check_register_models(load: Callable[[str], Any], tmp_path: Path) -> None:
    from vlc_harness import RunOptions
    from vlc_harness.params import build

    registered = load("caption_length.py").models.get("caption_length")
    assert registered.plugin == "vlc_harness_local_plugins.caption_length"
    model = registered.cls(build(registered.cls.Params, {}), RunOptions())
    assert model.score_texts(["a cup", "a red cup"]) == [5.0, 9.0]


def check_register_benchmarks(load: Callable[[str], Any], tmp_path: Path) -> None:
    from vlc_harness.params import build

    cls = load("swaps.py").benchmarks.get("swaps").cls
    params, root = cls.conformance_example(tmp_path)
    bench = cls(build(cls.Params, params), root)
    bench.check_data()
    assert len(bench.load_instances()) == 3
    assert bench.headline_metric() in {s.id for s in bench.metric_specs()}


def check_register_metric_families(load: Callable[[str], Any], tmp_path: Path) -> None:
    from vlc_harness import ImageSource, Instance, Outcomes
    from vlc_harness.metrics.cell import specs_of
    from vlc_harness.metrics.engine import evaluate

    plugins = load("recall_at_k.py")
    registered = plugins.families.get("text_recall_at_k")
    assert registered.plugin == "vlc_harness_local_plugins.recall_at_k"
    image = (ImageSource(tmp_path / "x.png"),)
    instances = [Instance(f"c/{k}", "c", image, ("a", "b", "c", "d"), {"positive": 0}) for k in range(3)]
    scores = np.array([[[3.0, 5.0, 3.0, 1.0]], [[4.0, 1.0, 2.0, 3.0]], [[1.0, 5.0, 4.0, 3.0]]])
    recall = registered.cls("r2", "gold among the two best", k=2)
    outcomes = Outcomes(instances, scores, np.ones(3, dtype=bool))
    values = {(v.metric, v.category): v for v in evaluate(outcomes, recall.columns(outcomes)).values}
    # gold ranks 2nd-3rd (tied with one caption: a miss, half a hit at random), 1st, 4th
    assert values[("r2", "all")].value == pytest.approx(1 / 3) and values[("r2", "all")].ties == 1
    assert values[("r2_ties_half", "all")].value == pytest.approx(1.5 / 3)
    assert {"r2", "r2_ties_half"} <= {s.id for s in specs_of([recall])}
    assert any("text_recall_at_k" in p.families for p in plugins.info())


def check_register_commands(load: Callable[[str], Any], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    load("caption_stats.py")
    cli = build_cli()
    try:
        out = CliRunner().invoke(cli, ["caption-stats", "a red cup", "cup"], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        assert out.output.splitlines() == ["9\t3\ta red cup", "3\t1\tcup"]
    finally:
        cli.commands.pop("caption-stats", None)


def check_conformance_example(load: Callable[[str], Any], tmp_path: Path) -> None:
    from vlc_harness import RunOptions
    from vlc_harness.params import build
    from vlc_harness.testing.examples import example_for

    cls = load("word_list.py").models.get("word_list").cls
    params = example_for(cls, tmp_path)
    assert Path(params["words"]).is_file() and Path(params["words"]).parent == tmp_path
    model = cls(build(cls.Params, params), RunOptions())
    model.load("cpu")
    assert model.score_texts(["a red square", "a green cup"]) == [2.0, 0.0]


CHECKS: dict[str, Callable[[Callable[[str], Any], Path], None]] = {
    "register_models": check_register_models,
    "register_benchmarks": check_register_benchmarks,
    "register_metric_families": check_register_metric_families,
    "register_commands": check_register_commands,
    "conformance_example": check_conformance_example,
}


def test_every_hook_has_a_checked_example():
    assert set(CHECKS) == set(hookspecs())


@pytest.mark.parametrize("hook", sorted(CHECKS))
def test_the_example_does_what_its_section_says(hook, plugins_dir, tmp_path):
    CHECKS[hook](plugins_dir, tmp_path)


def test_a_family_name_registered_twice_names_both_plugins(plugins_dir, tmp_path):
    (tmp_path / "plugins" / "again.py").write_text((DOCS / "examples" / "recall_at_k.py").read_text())
    with pytest.raises(PluginError, match="'text_recall_at_k' is registered twice") as info:
        plugins_dir("recall_at_k.py")
    assert "vlc_harness_local_plugins.again" in str(info.value)
    assert "vlc_harness_local_plugins.recall_at_k" in str(info.value)


@pytest.mark.subprocess
def test_the_examples_pass_conformance(tmp_path):
    folder = tmp_path / "plugins"
    folder.mkdir()
    for name in ("recall_at_k.py", "word_list.py"):
        (folder / name).write_text((DOCS / "examples" / name).read_text())
    (tmp_path / "test_c.py").write_text("from vlc_harness.testing.conformance import *  # noqa: F401,F403\n")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_c.py"]
    argv += ["--vlc-types", "text_recall_at_k,word_list", "-W", "error::RuntimeWarning"]
    env = {**os.environ, "VLC_HARNESS_PLUGINS_DIR": str(folder)}
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "6 passed" in out.stdout and "failed" not in out.stdout
    listed = subprocess.run(
        [sys.executable, "-m", "vlc_harness", "plugins", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    (info,) = [p for p in json.loads(listed.stdout) if p["name"] == "vlc_harness_local_plugins.recall_at_k"]
    assert info["families"] == ["text_recall_at_k"] and info["hooks"] == ["register_metric_families"]
