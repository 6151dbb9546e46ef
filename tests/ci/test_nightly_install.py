"""The night's install step installs nothing unhashed (issue 37, item 4): a spaCy pipeline or a --no-deps package
comes from its line of lock/no-deps.txt with the sha256 a maintainer recorded; a missing line or hash refuses
the install before pip runs, and a file whose sha256 is not the recorded one fails it (pip's check). Played
offline with a pipeline wheel at a local file URL, installed into a folder of the test (``PIP_TARGET``)."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest

from vlc_harness.ci.nightly import install
from vlc_harness.exit_codes import ExitCode
from vlc_harness.requires import Requires

PIPELINE = "en_core_web_sm"


def pipeline_wheel(folder: Path) -> Path:
    """A stand-in for the pipeline's release wheel: a pure-Python wheel of the same name."""
    dist = f"{PIPELINE}-3.8.0.dist-info"
    path = folder / f"{PIPELINE}-3.8.0-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{PIPELINE}/__init__.py", "")
        zf.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {PIPELINE}\nVersion: 3.8.0\n")
        zf.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{dist}/RECORD", "")
    path.write_bytes(buffer.getvalue())
    return path


@pytest.fixture
def night(tmp_path, monkeypatch):
    """The install step of a registry that needs the pipeline, reduced to its no-deps command (the lock and the
    checkout are this environment already), with lock/no-deps.txt replaced by a file of the test."""
    wheel = pipeline_wheel(tmp_path)
    no_deps = tmp_path / "no-deps.txt"
    monkeypatch.setattr(install, "NO_DEPS", no_deps)
    monkeypatch.setattr(install, "needs", lambda registry: Requires(spacy_models=(PIPELINE,)))
    everything = install.install_commands
    monkeypatch.setattr(
        install, "install_commands", lambda *a: [c for c in everything(*a) if install.NO_DEPS_FILE in c]
    )
    for name in [k for k in os.environ if k.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_TARGET", str(tmp_path / "target"))

    def run(line: str | None):
        no_deps.write_text("# recorded\n" + ("" if line is None else line.format(url=wheel.as_uri()) + "\n"))
        return install.install(object(), True)

    return run, hashlib.sha256(wheel.read_bytes()).hexdigest(), tmp_path / "target"


@pytest.mark.subprocess
def test_the_recorded_hash_installs_the_pipeline(night):
    run, sha, target = night
    step = run(f"{PIPELINE} @ {{url}} --hash=sha256:{sha}")
    assert step.code == 0, step.lines
    assert (target / PIPELINE / "__init__.py").is_file()
    assert step.lines[0].startswith("ok: `") and f"--hash=sha256:{sha}" in step.lines[0]


@pytest.mark.subprocess
def test_a_wrong_hash_fails_the_install(night):
    run, sha, target = night
    step = run(f"{PIPELINE} @ {{url}} --hash=sha256:{'0' * 64}")
    assert step.code == ExitCode.FAILED and step.lines[0].startswith("failed (exit 1): `"), step.lines
    assert not (target / PIPELINE).exists()


@pytest.mark.parametrize("line", [f"{PIPELINE} @ {{url}}", None], ids=["no-hash", "no-line"])
def test_a_missing_hash_or_line_refuses_the_install_before_pip(night, monkeypatch, line):
    run, _, target = night
    monkeypatch.setattr(install.subprocess, "run", lambda *a, **k: pytest.fail(f"pip ran: {a}"))
    step = run(line)
    assert step.code == ExitCode.FAILED and step.lines[0].startswith(f"refused, nothing installed: {PIPELINE}: no")
    assert "docs/maintainers.md" in step.lines[0] and not target.exists()


def test_an_extra_the_lock_does_not_hold_refuses_the_install(tmp_path, monkeypatch):
    lock = tmp_path / "nightly.txt"
    lock.write_text("#    uv pip compile pyproject.toml --extra hf --output-file lock/nightly.txt\n")
    monkeypatch.setattr(install, "needs", lambda registry: Requires(extras=("hf", "openclip")))
    monkeypatch.setattr(install.subprocess, "run", lambda *a, **k: pytest.fail(f"pip ran: {a}"))
    step = install.install(object(), True, None, lock)
    assert step.code == ExitCode.FAILED
    assert step.lines == [
        f"refused, nothing installed: the registry's types need the extras openclip, which {lock} does not lock: "
        "add them to the lock's command (vlc_harness.lockfile.LOCK_COMMAND) and regenerate it (README)"
    ]
