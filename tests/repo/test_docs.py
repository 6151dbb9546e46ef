"""Docs that match the code: the adding-a-model example is the tested file, and it works."""

from __future__ import annotations

import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_adding_a_model_doc_embeds_the_example_file():
    example = (DOCS / "examples" / "open_clip_templated.py").read_text()
    assert f"```python\n{example}```" in (DOCS / "adding_a_model.md").read_text()
    assert len(example.splitlines()) <= 60


def test_the_example_plugin_runs_from_a_plugins_dir(vlc_run, tmp_path, sample_root, tiny_clip, monkeypatch):
    from vlc_harness.plugins import get_plugins

    folder = tmp_path / "my_plugins"
    folder.mkdir()
    shutil.copy(DOCS / "examples" / "open_clip_templated.py", folder)
    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(folder))
    get_plugins(reload=True)
    try:
        spec = f"open_clip_templated:arch=@{tiny_clip['config']},pretrained={tiny_clip['checkpoint']}"
        out = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
        assert out.exit_code == 0, out.output
        assert out.stdout.startswith("ok ")
    finally:
        monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
        get_plugins(reload=True)


def test_ci_runs_the_readme_test_command_verbatim():
    readme = (DOCS.parent / "README.md").read_text()
    section = readme[readme.index("Set up and run the tests") :]
    command = section.split("```bash\n", 1)[1].split("\n```", 1)[0]
    assert command.startswith("python3 -m venv .venv && ") and command.endswith("python -m pytest -q")
    assert "\n" not in command, "one line that installs and tests"
    ci = [line for line in (DOCS.parent / ".ci" / "run").read_text().splitlines() if not line.startswith("#")]
    assert command in ci


def table_rows(text: str) -> list[str]:
    """The Markdown table rows of ``text`` (lines starting ``| ``)."""
    return [line for line in text.splitlines() if line.startswith("| ")]


def undocumented(plugins, benchmarks_doc: str, models_doc: str, registry: dict) -> list[str]:
    """Built-in types and registry benchmark ids without a row of their docs table: each built-in
    benchmark type and registry benchmark id in docs/benchmarks.md, each built-in model type in
    docs/models.md's table of types (above its generated table)."""
    bench_rows = "\n".join(table_rows(benchmarks_doc))
    model_rows = "\n".join(table_rows(models_doc.split("<!-- models-table:begin -->")[0]))
    out = []
    for kind, registrar, rows in (("benchmark", plugins.benchmarks, bench_rows), ("model", plugins.models, model_rows)):
        classes = {**registrar.missing_classes, **{name: reg.cls for name, reg in registrar.entries.items()}}
        for name, cls in sorted(classes.items()):
            if cls.__module__.startswith("vlc_harness_builtins.") and f"`{name}`" not in rows:
                out.append(f"{kind} type {name}")
    out += [f"registry id {e['id']}" for e in registry["benchmarks"] if f"`{e['id']}`" not in bench_rows]
    return out


def test_every_builtin_type_and_registry_benchmark_has_its_docs_row(vlc_plugins):
    import yaml

    benchmarks, models = (DOCS / "benchmarks.md").read_text(), (DOCS / "models.md").read_text()
    registry = yaml.safe_load((DOCS.parent / "registry.yaml").read_text())
    assert undocumented(vlc_plugins, benchmarks, models, registry) == []
    whatsup = next(row for row in table_rows(benchmarks) if row.startswith("| `whatsup` |"))
    planted = benchmarks.replace(whatsup + "\n", "")  # a new benchmark without its row
    assert undocumented(vlc_plugins, planted, models, registry) == ["benchmark type whatsup", "registry id whatsup"]
