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
        assert out.output.startswith("ok ")
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
