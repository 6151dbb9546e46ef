"""An API key goes only to the hosts bound to its variable outside the registry (issue 37).

Each test plays the attacker: a registry edit that names another secret, or points a lab key at a
host nobody bound, must be refused before any request, and the secret's value must appear nowhere
(output, store, site). Everything runs against the local fake server (127.0.0.1 only).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.testing import require

require("openai")

from vlc_harness.testing.fake_openai import FakeOpenAI  # noqa: E402

SECRET = "deploy-0123456789-THE-NIGHTLY-SECRET"
LAB_KEY = "sk-lab-0123456789-THE-LAB-KEY"
SC = "sugarcrepe:version=custom"


@pytest.fixture
def server():
    with FakeOpenAI() as s:
        yield s


def _registry(tmp_path: Path, base_url: str, key_env: str) -> Path:
    entry = {
        "id": "api-model",
        "type": "openai_choice",
        "params": {"model": "fake-vision", "base_url": base_url, "image_max_side": 32},
        "run": {"api_key_env": key_env, "concurrency": 1, "max_retries": 0},
    }
    path = tmp_path / "registry.yaml"
    bench = {"id": "sc", "type": "sugarcrepe", "params": {"version": "custom"}}
    path.write_text(json.dumps({"models": [entry], "benchmarks": [bench]}))  # JSON is YAML: one line
    return path


def vlc_main(capsys, *argv: str) -> tuple[int, str]:
    """``vlc-harness ARGV`` in-process as the console runs it (a user error: one line, exit 2)."""
    from vlc_harness.cli import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _run(capsys, registry: Path, store: Path, data_root: Path) -> tuple[int, str]:
    argv = ["--all", "--limit", "2", "--registry", str(registry), "--data-root", str(data_root), "--no-progress"]
    return vlc_main(capsys, "run", *argv, "--store", f"sqlite:///{store}")


def _everything_written(tmp_path: Path) -> bytes:
    """Every file under the test's folder (store, site, registry), read back as bytes."""
    return b"".join(p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file())


def test_a_registry_naming_another_secret_is_refused_before_any_request(
    server, tmp_path, sample_root, monkeypatch, capsys
):
    monkeypatch.setenv("NIGHTLY_DEPLOY_SECRET", SECRET)
    registry = _registry(tmp_path, server.url, "NIGHTLY_DEPLOY_SECRET")
    store = tmp_path / "store.sqlite"
    code, output = _run(capsys, registry, store, sample_root)
    assert code == 2, output
    assert "registry.yaml:1: models[0].run.api_key_env: 'NIGHTLY_DEPLOY_SECRET' is not an API key variable" in output
    assert server.requests == []
    listed_code, listed = vlc_main(capsys, "list", "models", "--registry", str(registry))
    assert listed_code == 2 and "models[0].run.api_key_env" in listed
    assert SECRET not in output + listed
    assert not store.exists()  # refused before the store was opened


@pytest.mark.subprocess
def test_a_programmatic_entry_is_refused_again_at_load(server, tmp_path, sample_root, monkeypatch, vlc_cli):
    """Defence in depth: ``evaluate()`` with a mapping skips the registry, and ``load()`` refuses."""
    from vlc_harness import evaluate

    monkeypatch.setenv("NIGHTLY_DEPLOY_SECRET", SECRET)
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    model = {
        "type": "openai_choice",
        "params": {"model": "fake-vision", "base_url": server.url, "image_max_side": 32},
        "run": {"api_key_env": "NIGHTLY_DEPLOY_SECRET", "concurrency": 1, "max_retries": 0},
    }
    results = evaluate(model, [SC], store=store, data_root=sample_root, limit=2)
    (cell,) = results.cells
    assert server.requests == []
    assert cell.status != "ok" and "not an API key variable" in (cell.error or "")
    monkeypatch.chdir(tmp_path)  # no ./registry.yaml: the built-in types, and the one-off row published
    site = vlc_cli("render", "--include-adhoc", "--store", store, "--out", str(tmp_path / "site"))
    assert site.exit_code == 0, site.output
    assert (tmp_path / "site" / "index.html").is_file()
    assert SECRET.encode() not in _everything_written(tmp_path)


@pytest.mark.subprocess
def test_a_lab_key_goes_only_to_the_hosts_its_binding_names(server, tmp_path, sample_root, monkeypatch, capsys):
    monkeypatch.setenv("VLC_API_KEY_LAB", LAB_KEY)
    monkeypatch.delenv("VLC_API_KEY_LAB_HOSTS", raising=False)
    registry = _registry(tmp_path, server.url, "VLC_API_KEY_LAB")
    store = tmp_path / "store.sqlite"
    port = server.url.split(":")[2].split("/")[0]

    for binding in (None, "api.lab.example", "127.0.0.1:1"):  # unbound; another host; another port
        if binding is not None:
            monkeypatch.setenv("VLC_API_KEY_LAB_HOSTS", binding)
        code, output = _run(capsys, registry, store, sample_root)
        assert code == 2, (binding, output)
        assert "registry.yaml:1: models[0].params.base_url: " in output
        assert "is not bound to $VLC_API_KEY_LAB" in output and "VLC_API_KEY_LAB_HOSTS" in output
        assert server.requests == [] and LAB_KEY not in output

    monkeypatch.setenv("VLC_API_KEY_LAB_HOSTS", f"api.lab.example, 127.0.0.1:{port}")
    code, output = _run(capsys, registry, store, sample_root)
    assert code == 0, output
    assert server.requests and {r.authorization for r in server.requests} == {f"Bearer {LAB_KEY}"}
    assert LAB_KEY not in output
    assert LAB_KEY.encode() not in _everything_written(tmp_path)


@pytest.mark.subprocess
def test_the_openai_key_never_leaves_for_another_host(server, tmp_path, sample_root, monkeypatch, capsys):
    """``OPENAI_API_KEY`` is bound in code to api.openai.com: a local server gets no key, and a
    remote one is refused."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    store = tmp_path / "store.sqlite"
    code, output = _run(capsys, _registry(tmp_path, server.url, "OPENAI_API_KEY"), store, sample_root)
    assert code == 0, output  # a loopback server works without a key, as before
    assert server.requests and all(SECRET not in r.authorization for r in server.requests)
    remote = _registry(tmp_path, "https://api.evil.example/v1", "OPENAI_API_KEY")
    code, output = _run(capsys, remote, store, sample_root)
    assert code == 2 and "models[0].params.base_url: " in output
    assert "'api.evil.example' is not bound to $OPENAI_API_KEY" in output


def test_paper_params_cannot_move_the_key_either(tmp_path, monkeypatch, vlc_plugins):
    """``vlc-harness verify`` runs an entry with its ``meta.paper_params``: they are held to the same binding."""
    from vlc_harness.errors import RegistryError
    from vlc_harness.registry import load_registry

    monkeypatch.setenv("VLC_API_KEY_LAB_HOSTS", "api.lab.example")
    path = tmp_path / "registry.yaml"
    path.write_text(
        "models:\n  - id: m\n    type: openai_choice\n"
        "    params: {model: x, base_url: 'https://api.lab.example/v1'}\n    run: {api_key_env: VLC_API_KEY_LAB}\n"
        "    meta: {paper_params: {base_url: 'https://api.evil.example/v1'}}\n"
    )
    with pytest.raises(RegistryError, match=r"registry.yaml:6: models\[0\].meta.paper_params: the host 'api.evil"):
        load_registry([path], vlc_plugins)
    path.write_text(path.read_text().replace("api.evil.example", "api.lab.example:443"))
    assert load_registry([path], vlc_plugins).models["m"].run.api_key_env == "VLC_API_KEY_LAB"
