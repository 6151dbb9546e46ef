"""Paths in registry files stay inside the registry's folder (issue 37); inline specs keep their freedom.

The attacker edits only a registry: ``@../creds/.git-credentials`` (read, sent to the API server,
stored and published before the fix), a link inside the folder that points out, an absolute path,
``~``, a hidden file such as ``.git/config``. Each is refused while the registry loads, naming the
file, line and key path, and nothing is read, sent or stored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.registry import load_registry, parse_inline_model

CREDENTIALS = "https://lab-bot:ghp_0123456789THECREDENTIAL@github.com"


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    """``creds/.git-credentials`` beside ``reg/`` (the registry's folder)."""
    creds = tmp_path / "creds" / ".git-credentials"
    creds.parent.mkdir()
    creds.write_text(CREDENTIALS + "\n")
    folder = tmp_path / "reg"
    folder.mkdir()
    return creds, folder


def _one_model(folder: Path, params: str, model_type: str = "random") -> Path:
    path = folder / "registry.yaml"
    path.write_text(f"models:\n  - id: m\n    type: {model_type}\n    params: {params}\n")
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


def test_an_at_file_outside_the_folder_is_refused_and_nothing_is_sent_or_stored(tmp_path, sample_root, capsys):
    from vlc_harness.testing import require

    require("openai")
    from vlc_harness.testing.fake_openai import FakeOpenAI

    _, folder = _layout(tmp_path)
    with FakeOpenAI() as server:  # the API server the credential was sent to before the fix
        registry = folder / "registry.yaml"
        registry.write_text(
            "models:\n  - id: leak\n    type: openai_choice\n"
            f"    params:\n      model: '@../creds/.git-credentials'\n      base_url: {server.url}\n"
            "benchmarks:\n  - {id: sc, type: sugarcrepe, params: {version: custom}}\n"
        )
        store = tmp_path / "store.sqlite"
        argv = ["--all", "--limit", "1", "--registry", str(registry), "--data-root", str(sample_root)]
        code, output = vlc_main(capsys, "run", *argv, "--store", f"sqlite:///{store}", "--no-progress")
        assert code == 2, output
        assert "registry.yaml:5: models[0].params.model: '@../creds/.git-credentials' resolves outside" in output
        assert server.requests == []
    assert "THECREDENTIAL" not in output
    assert not store.exists()


@pytest.mark.parametrize(
    "value, problem",
    [
        ("'@../creds/.git-credentials'", "outside the registry's folder"),
        ("'@link.txt'", "outside the registry's folder"),  # a link inside the folder pointing out
        ("'@sub/../../creds/x.json'", "outside the registry's folder"),
        ("'@.git/config'", "hidden"),
        ("'@/etc/hostname'", "absolute path"),
        ("'@~/.netrc'", "'~'"),
    ],
)
def test_at_files_must_resolve_inside_the_folder(tmp_path, vlc_plugins, value, problem):
    creds, folder = _layout(tmp_path)
    (folder / "link.txt").symlink_to(creds)
    (folder / "sub").mkdir()
    path = _one_model(folder, f"{{seed: {value}}}")
    with pytest.raises(RegistryError) as raised:
        load_registry([path], vlc_plugins)
    assert f"{path}:4: models[0].params.seed: " in str(raised.value)
    assert problem in str(raised.value)
    assert "THECREDENTIAL" not in str(raised.value)


@pytest.mark.parametrize(
    "params, key, problem",
    [
        ("{arch: ViT-B-32, pretrained: /etc/passwd}", "pretrained", "absolute path"),
        ("{arch: ViT-B-32, pretrained: ~/.ssh/id_rsa}", "pretrained", "'~'"),
        ("{arch: ViT-B-32, pretrained: ../creds/.git-credentials}", "pretrained", "outside the registry's folder"),
        ("{arch: ViT-B-32, pretrained: ./out.pt}", "pretrained", "outside the registry's folder"),  # link out
        ("{arch: ViT-B-32, pretrained: out}", "pretrained", "outside the registry's folder"),  # a bare name, linked out
        ("{arch: ViT-B-32, pretrained: ./cfg.pt}", "pretrained", "hidden"),  # a link to .git/config inside
        ("{arch: 'local-dir:/home/runner/work', pretrained: null}", "arch", "absolute path"),
        ("{arch: ViT-B-32, pretrained: 'file:///etc/passwd'}", "pretrained", "absolute path"),
        ("{arch: ViT-B-32, pretrained: 'ckpts/../../../etc/passwd'}", "pretrained", "'..'"),
        ("{arch: {text_cfg: {hf_tokenizer_name: /root/tok}}, pretrained: null}", "arch.text_cfg", "absolute path"),
    ],
)
def test_paths_in_params_stay_inside_the_folder(tmp_path, vlc_plugins, params, key, problem):
    creds, folder = _layout(tmp_path)
    (folder / "out.pt").symlink_to(creds)
    (folder / "out").symlink_to(creds)
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("[http]\n\textraheader = AUTHORIZATION: basic x\n")
    (folder / "cfg.pt").symlink_to(folder / ".git" / "config")
    path = _one_model(folder, params, "open_clip")
    with pytest.raises(RegistryError) as raised:
        load_registry([path], vlc_plugins)
    assert f"{path}:4: models[0].params.{key}" in str(raised.value)
    assert problem in str(raised.value)


def test_paths_inside_the_folder_still_resolve(tmp_path, vlc_plugins):
    folder = tmp_path / "reg"
    (folder / "configs").mkdir(parents=True)
    (folder / "configs" / "seed.json").write_text("7")
    (folder / "seed-link.json").symlink_to(folder / "configs" / "seed.json")  # a link that stays inside
    for value in ("'@configs/seed.json'", "'@./seed-link.json'", "'@configs/../configs/seed.json'"):
        entry = load_registry([_one_model(folder, f"{{seed: {value}}}")], vlc_plugins).models["m"]
        assert entry.params.seed == 7


def test_inline_specs_keep_their_freedom(tmp_path, vlc_plugins):
    config = tmp_path / "elsewhere" / "seed.json"
    config.parent.mkdir()
    config.write_text("11")
    assert parse_inline_model(f"random:seed=@{config}", vlc_plugins).params.seed == 11
    assert parse_inline_model("random:{seed: 3}", vlc_plugins).params.seed == 3


def test_paper_params_follow_the_same_rule(tmp_path, vlc_plugins):
    _, folder = _layout(tmp_path)
    path = folder / "registry.yaml"
    path.write_text(
        "models:\n  - id: m\n    type: open_clip\n    params: {arch: ViT-B-32, pretrained: openai}\n"
        "    meta: {paper_params: {pretrained: /home/runner/.git-credentials}}\n"
    )
    with pytest.raises(RegistryError, match=r"registry.yaml:5: models\[0\].meta.paper_params.pretrained: .*absolute"):
        load_registry([path], vlc_plugins)


def test_the_shipped_registries_name_no_path_outside_their_folder(vlc_plugins):
    repo = Path(__file__).resolve().parents[2]
    for name in ("registry.yaml", "examples/quickstart.yaml"):
        registry = load_registry([repo / name], vlc_plugins)
        assert registry.models and json.dumps([e.params_dict() for e in registry.models.values()])
