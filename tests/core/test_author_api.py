"""The author API: what `vlc_harness` exports, the docs' minimal plugins (line targets, verbatim in
the docs, conformance, a run), `vlc-harness new` packages, and conformance scoped to a package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import vlc_harness

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
EXAMPLES = {
    # file: (doc that shows it, line target from the issue)
    "caption_length.py": ("adding_a_model.md", 12),
    "my_clip.py": ("adding_a_model.md", 40),
    "swaps.py": ("adding_a_benchmark.md", 60),
}


def code_lines(text: str) -> int:
    """Non-blank, non-comment lines, imports and docstrings included."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))


@pytest.mark.subprocess
def test_every_exported_name_resolves_and_the_import_stays_light():
    for name in vlc_harness.__all__:
        assert getattr(vlc_harness, name) is not None, name
    code = "import sys, vlc_harness; print(','.join(m for m in ('torch', 'sqlalchemy', 'jinja2') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "", out.stdout + out.stderr


FAMILY_AUTHOR_API = ("Family", "Reported", "Column", "MetricSpec", "Outcomes", "ChoiceOutcomes", "FamilyExample")


def test_what_a_family_author_needs_is_exported_and_documented():
    from vlc_harness.metrics.family import Family

    names = {*FAMILY_AUTHOR_API, "Aggregation", "PerCategory", "Micro", "Macro", "Std", "Tags"}
    assert names <= set(vlc_harness.__all__)
    assert all(f":class:`{name}`" in (vlc_harness.__doc__ or "") for name in names)
    assert vlc_harness.Family is Family and "register_metric_families" in (vlc_harness.__doc__ or "")


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_doc_examples_meet_their_line_targets_and_are_shown_verbatim(name):
    doc, target = EXAMPLES[name]
    text = (DOCS / "examples" / name).read_text()
    assert code_lines(text) <= target, f"{name}: {code_lines(text)} lines, target {target}"
    assert f"```python\n{text}```" in (DOCS / doc).read_text(), f"{doc} must show {name} as it is"
    assert "vlc_harness_builtins" not in text and "vlc_harness." not in text, "authors import vlc_harness only"


@pytest.fixture
def examples_dir(tmp_path, monkeypatch):
    from vlc_harness.plugins import get_plugins

    folder = tmp_path / "plugins"
    folder.mkdir()
    for name in EXAMPLES:
        (folder / name).write_text((DOCS / "examples" / name).read_text())
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(folder))
    get_plugins(reload=True)
    yield folder
    monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
    get_plugins(reload=True)


@pytest.mark.subprocess
def test_doc_examples_pass_conformance(examples_dir, tmp_path):
    pytest.importorskip("open_clip")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs"]
    argv += ["vlc_harness.testing.conformance", "--vlc-types", "caption_length,my_clip,swaps"]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=os.environ.copy())
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "8 passed" in out.stdout


def test_doc_examples_run_together(examples_dir, tmp_path, vlc_run):
    pytest.importorskip("open_clip")
    from vlc_harness.plugins import get_plugins

    swaps = get_plugins().benchmarks.get("swaps").cls
    (tmp_path / "data").mkdir()
    _, root = swaps.conformance_example(tmp_path / "data")  # three instances of coloured squares
    out = vlc_run(
        "-m", "caption_length", "-m", "my_clip:{arch: ViT-S-32, pretrained: null}", "-b", "swaps", data_root=root
    )
    assert out.exit_code == 0, out.output
    cells = {c.model_id: c for c in vlc_run.store().latest_cells()}
    assert {c.status for c in cells.values()} == {"ok"}
    metrics = {m["metric"] for m in cells["caption_length"].metrics if m["category"] == "all"}
    assert {"text", "image", "group"} <= metrics
    image = next(m for m in cells["caption_length"].metrics if m["metric"] == "image" and m["category"] == "all")
    assert image["value"] == 0.0 and image["ties"] == 3  # blind: both images tie for every caption, ties are wrong


def test_identify_and_conformance_example_have_defaults_for_models_without_weights():
    from vlc_harness import Identity, TextOnlyModel
    from vlc_harness.params import NoParams

    class Rule(TextOnlyModel):
        """A rule."""

        type_name = "rule"

    model = Rule(NoParams(), vlc_harness.RunOptions())
    assert model.identify() == Identity("none", "fp64", "score_texts")
    assert Rule.conformance_example(Path(".")) == {}


# -- vlc-harness new ------------------------------------------------------------------------


def sh(*argv: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("VLC_HARNESS_PLUGINS_DIR", None)
    out = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    assert out.returncode == 0, f"{argv}: {out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


NEW_CASES = [("model", "embed"), ("model", "pairs"), ("model", "blind"), ("model", "choice"), ("benchmark", "")]
CLI_BATCH = """
import contextlib, io, json, os, sys
from vlc_harness.cli import main
done = []
for cwd, argv in json.loads(sys.argv[1]):
    os.chdir(cwd)
    out, err, code = io.StringIO(), io.StringIO(), 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""
"""``vlc-harness ARGV`` for each ``[cwd, argv]`` of ``argv[1]`` in one interpreter, as ``main`` ends each
(its exit status and what it printed); a JSON list of ``[status, stdout, stderr]``."""


def cli_batch(python: Path, runs: list[tuple[Path, list[str]]]) -> list[tuple[int, str, str]]:
    """:data:`CLI_BATCH` of ``runs`` in ``python``: one interpreter start, not one per command."""
    out = sh(str(python), "-c", CLI_BATCH, json.dumps([[str(cwd), argv] for cwd, argv in runs]), cwd=Path.cwd())
    return [tuple(done) for done in json.loads(out.stdout)]


def _new_name(kind: str, protocol: str) -> str:
    return f"my-{protocol or 'bench'}"


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict:
    """The packages ``vlc-harness new`` writes, one per case of :data:`NEW_CASES`, installed editable by one
    pip into a virtualenv of their own (tests/conftest.py make_side_env), with what ``new``, ``plugins`` and
    each package's ``list --registry registry.yaml`` said there: built once per test run (tests/once.py),
    whatever the number of xdist workers; each case's test then runs its package's own tests and ruff."""
    from tests.conftest import make_side_env
    from tests.once import built_once

    def build(folder: Path) -> dict:
        python = make_side_env(folder / "venv")
        names = [_new_name(kind, protocol) for kind, protocol in NEW_CASES]
        made = cli_batch(
            python,
            [
                (folder, ["new", kind, name] + (["--protocol", protocol] if protocol else []))
                for (kind, protocol), name in zip(NEW_CASES, names, strict=True)
            ],
        )
        packages = [folder / f"vlc-{name}" for name in names]
        for (code, out, err), package in zip(made, packages, strict=True):
            assert code == 0 and package.is_dir(), f"new {package.name}: {out}\n{err}"
        written = {package.name: sorted(p.name for p in package.iterdir()) for package in packages}
        editable = [arg for package in packages for arg in ("-e", str(package))]
        sh(str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *editable, cwd=folder)
        listed, *checked = cli_batch(
            python,
            [(folder, ["plugins"])]
            + [
                (package, ["list", "models" if kind == "model" else "benchmarks", "--registry", "registry.yaml"])
                for (kind, _), package in zip(NEW_CASES, packages, strict=True)
            ],
        )
        return {
            "python": str(python),
            "listed": listed,
            "cases": {
                name: {"package": str(package), "written": written[package.name], "checked": check}
                for name, package, check in zip(names, packages, checked, strict=True)
            },
        }

    return built_once(tmp_path_factory, "new-packages", build)


@pytest.mark.subprocess
@pytest.mark.parametrize("kind, protocol", NEW_CASES)
def test_new_writes_a_package_that_passes_conformance_as_generated(kind, protocol, generated):
    name = _new_name(kind, protocol)
    case, python = generated["cases"][name], generated["python"]
    package = Path(case["package"])
    assert set(case["written"]) == {  # as new left it, before pip installed it
        "pyproject.toml",
        "README.md",
        "registry.yaml",
        "tests",
        f"vlc_my_{protocol or 'bench'}.py",
    }
    code, listed, err = generated["listed"]
    assert code == 0, listed + err
    type_name = f"my_{protocol or 'bench'}"
    assert f"{'models' if kind == 'model' else 'benchmarks'}: {type_name}" in listed
    tested = sh(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=package).stdout
    assert ("3 passed" if kind == "model" else "2 passed") in tested and "deselected" in tested
    assert "types: no such type is defined under" in tested  # the deselection explained
    assert "failed" not in tested and "skipped" not in tested
    sh(python, "-m", "ruff", "check", "--config", str(REPO / "pyproject.toml"), ".", cwd=package)
    code, checked, err = case["checked"]
    assert code == 0, checked + err
    assert type_name in checked


def test_new_refuses_bad_names_and_existing_folders(tmp_path, vlc_cli):
    from vlc_harness.errors import UserError

    with pytest.raises(UserError, match="lower-case letters"):
        vlc_cli("new", "model", "My Clip", "-o", str(tmp_path / "x"))
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty; nothing was written"):
        vlc_cli("new", "model", "ok", "-o", str(tmp_path / "taken"))
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["keep.txt"]


@pytest.mark.subprocess
def test_conformance_scope_defaults_to_the_calling_package_and_rejects_unknown_types(tmp_path):
    (tmp_path / "test_c.py").write_text("from vlc_harness.testing.conformance import *  # noqa: F401,F403\n")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--co", "test_c.py"]
    alone = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    message = "no model, benchmark or metric family type is defined under"
    assert alone.returncode != 0 and message in alone.stdout + alone.stderr
    named = subprocess.run(
        [*argv, "--vlc-types", "random,shapes"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert named.returncode == 0 and "[random]" in named.stdout and "[shapes]" in named.stdout
    assert "[open_clip]" not in named.stdout
    unknown = subprocess.run([*argv, "--vlc-types", "nope"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert unknown.returncode != 0 and "unknown type(s) nope" in unknown.stdout + unknown.stderr
    listed = json.loads(
        subprocess.run(
            [sys.executable, "-m", "vlc_harness", "plugins", "--format", "json"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    assert any(p["name"].startswith("vlc_leaderboard") for p in listed)  # scoping never unloads the board's commands
