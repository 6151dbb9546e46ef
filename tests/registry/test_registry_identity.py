"""Registry slice of the front door: meta schema, @file and relative paths in registries, params
checked at load, local checkpoints identified by content, the v2 -> v3 store migration, and the
registry's JSON Schema."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sqlalchemy import text

from vlc_harness.errors import RegistryError
from vlc_harness.fingerprint import content_addressed, fingerprint_content, model_fingerprint
from vlc_harness.registry import load_registry, parse_inline_model
from vlc_harness.registry_schema import registry_schema
from vlc_harness.store.schema import SCHEMA_VERSION

REPO = Path(__file__).resolve().parents[2]


def write(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(body)
    return path


def one_model(params: str, meta: str = "{}") -> str:
    return f"models:\n  - id: m\n    type: open_clip\n    params: {params}\n    meta: {meta}\n"


# -- meta -------------------------------------------------------------------------------------


def test_meta_is_validated_and_kept(tmp_path, vlc_plugins):
    meta = (
        "{display_name: Tiny, description: 'A tiny model.', homepage: 'https://example.org',"
        " links: {code: 'https://example.org/code'}, parameters_m: 1, trained_on: [coco-train2014]}"
    )
    reg = load_registry([write(tmp_path, "r.yaml", one_model("{arch: ViT-B-32}", meta))], vlc_plugins)
    assert reg.models["m"].meta == {
        "display_name": "Tiny",
        "description": "A tiny model.",
        "homepage": "https://example.org",
        "links": {"code": "https://example.org/code"},
        "parameters_m": 1.0,
        "trained_on": ["coco-train2014"],
    }


@pytest.mark.parametrize(
    "meta, expected",
    [
        ("{descripton: x}", "r.yaml:5: models[0].meta.descripton: unknown key"),
        ("{homepage: 'ftp://example.org'}", "models[0].meta.homepage: expected an http(s) link"),
        ("{links: {code: 'javascript:alert(1)'}}", "models[0].meta.links.code: expected an http(s) link"),
        ("{trained_on: [laion-9b]}", "models[0].meta.trained_on: unknown image pool 'laion-9b'"),
        ("{verified: maybe}", "models[0].meta.verified: expected true/false"),
    ],
)
def test_bad_meta_is_an_error_naming_file_line_and_key(tmp_path, vlc_plugins, meta, expected):
    path = write(tmp_path, "r.yaml", one_model("{arch: ViT-B-32}", meta))
    with pytest.raises(RegistryError) as info:
        load_registry([path], vlc_plugins)
    assert expected in str(info.value)


def test_benchmark_meta_rejects_unknown_keys(tmp_path, vlc_plugins):
    body = "benchmarks:\n  - id: b\n    type: shapes\n    meta: {note: fine, homepage: 'https://x.org', colour: red}\n"
    with pytest.raises(RegistryError, match=r"benchmarks\[0\]\.meta\.colour: unknown key"):
        load_registry([write(tmp_path, "r.yaml", body)], vlc_plugins)


# -- paths and @file ---------------------------------------------------------------------------


def test_at_file_and_relative_paths_resolve_against_the_registry_folder(tmp_path, tiny_clip, vlc_plugins, monkeypatch):
    folder = tmp_path / "grid"
    folder.mkdir()
    shutil.copy(tiny_clip["config"], folder / "tiny.json")
    shutil.copy(tiny_clip["checkpoint"], folder / "ckpt.pt")
    path = write(folder, "r.yaml", one_model("{arch: '@tiny.json', pretrained: ./ckpt.pt}"))
    monkeypatch.chdir(tmp_path)  # not the registry's folder
    entry = load_registry([path], vlc_plugins).models["m"]
    assert entry.params.arch == json.loads(Path(tiny_clip["config"]).read_text())
    assert entry.params.pretrained == str((folder / "ckpt.pt").resolve())


def test_missing_at_file_is_an_error_at_its_key(tmp_path, vlc_plugins):
    path = write(tmp_path, "r.yaml", one_model("{arch: '@missing.json'}"))
    with pytest.raises(
        RegistryError, match=r"r\.yaml:4: models\[0\]\.params\.arch: file .*missing\.json does not exist"
    ):
        load_registry([path], vlc_plugins)


def test_bare_names_are_not_taken_for_paths(tmp_path, vlc_plugins):
    (tmp_path / "openai").mkdir()  # a folder that happens to share a tag's name
    path = write(tmp_path, "r.yaml", one_model("{arch: ViT-B-32, pretrained: openai}"))
    assert load_registry([path], vlc_plugins).models["m"].params.pretrained == "openai"


@pytest.mark.parametrize(
    "params, expected",
    [
        (
            "{arch: ViT-B-3}",
            r"models\[0\]\.params: arch 'ViT-B-3' is not an open_clip model name; did you mean ViT-B-32",
        ),
        ("{arch: 'local-dir:./nowhere'}", r"models\[0\]\.params: arch 'local-dir:.*nowhere': no such folder"),
        ("{arch: ViT-B-32, pretrained: ./gone.pt}", r"pretrained '.*gone\.pt' looks like a checkpoint path"),
    ],
)
def test_params_are_checked_at_load_as_a_usage_error(tmp_path, vlc_plugins, params, expected):
    pytest.importorskip("open_clip")
    with pytest.raises(RegistryError, match=expected):
        load_registry([write(tmp_path, "r.yaml", one_model(params))], vlc_plugins)


@pytest.mark.subprocess
def test_unknown_arch_fails_the_cli_before_any_cell(tmp_path):
    pytest.importorskip("open_clip")
    path = write(tmp_path, "r.yaml", one_model("{arch: ViT-B-3}"))
    store = tmp_path / "s.sqlite"
    argv = [
        sys.executable,
        "-m",
        "vlc_harness",
        "run",
        "--all",
        "--registry",
        str(path),
        "--store",
        f"sqlite:///{store}",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "r.yaml:4: models[0].params: arch 'ViT-B-3' is not an open_clip model name" in out.stderr
    assert not store.exists()


# -- identity by content ---------------------------------------------------------------------


def test_one_checkpoint_by_any_path_is_one_fingerprint(tmp_path, tiny_clip, vlc_plugins, monkeypatch):
    copy = tmp_path / "elsewhere" / "copy.pt"
    copy.parent.mkdir()
    shutil.copy(tiny_clip["checkpoint"], copy)
    shutil.copy(tiny_clip["checkpoint"], tmp_path / "ckpt.pt")
    shutil.copy(tiny_clip["config"], tmp_path / "tiny.json")
    monkeypatch.chdir(tmp_path)
    cls = vlc_plugins.models.entries["open_clip"].cls
    entries = []
    for pretrained in ("ckpt.pt", "./ckpt.pt", "elsewhere/copy.pt"):  # a registry names files inside its folder
        body = one_model(f"{{arch: '@tiny.json', pretrained: '{pretrained}'}}")
        entries.append(load_registry([write(tmp_path, "r.yaml", body)], vlc_plugins).models["m"])
    for pretrained in (tmp_path / "ckpt.pt", copy):  # an inline spec may name any path, absolute too
        entries.append(
            parse_inline_model(f"open_clip:arch=@{tiny_clip['config']},pretrained={pretrained}", vlc_plugins)
        )
    fingerprints = set()
    for entry in entries:
        identity = cls(entry.params, entry.run).identify()
        fingerprints.add(model_fingerprint(fingerprint_content("open_clip", entry.params_dict(), identity, "1")))
    assert len(entries) == 5 and len(fingerprints) == 1
    copy.write_bytes(copy.read_bytes() + b"\0")  # the same path with other bytes is another model
    changed = content_addressed({"pretrained": str(copy)})
    assert changed != content_addressed({"pretrained": str(tmp_path / "ckpt.pt")})


def test_content_addressed_keeps_names_and_hashes_folders(tmp_path):
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "config.json").write_text("{}")
    out = content_addressed({"arch": "ViT-B-32", "a": f"local-dir:{tmp_path / 'ckpt'}", "n": 3, "gone": "/no/such"})
    assert out["arch"] == "ViT-B-32" and out["n"] == 3 and out["gone"] == "/no/such"
    assert out["a"].startswith("local-dir:sha256-tree:")


# -- the v2 -> v3 migration -------------------------------------------------------------------


def v2_fingerprint(identity: dict) -> str:
    """A v2 fingerprint: params hashed as given, paths and all."""
    keys = ("type", "params", "weights", "dtype", "protocol", "scoring_version")
    return model_fingerprint({k: identity[k] for k in keys})


def test_migration_rewrites_fingerprints_keeps_scores_and_merges_models(tmp_path, sample_root, tiny_clip, vlc_run):
    ckpt = tmp_path / "ckpt.pt"
    shutil.copy(tiny_clip["checkpoint"], ckpt)
    spec = f"open_clip:arch=@{tiny_clip['config']},pretrained={ckpt}"
    first = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert first.exit_code == 0, first.output
    store = vlc_run.store()
    with store.engine.begin() as conn:
        (row_id, new_fp, identity_json) = conn.execute(text("SELECT id, fingerprint, identity FROM models")).one()
        n_scores = conn.execute(text("SELECT count(*) FROM scores")).scalar()
        identity = json.loads(identity_json)
        assert identity["params"]["pretrained"].startswith("sha256:")
        # turn it back into what a v2 harness wrote: the absolute path in params ...
        by_path = {**identity, "params": {**identity["params"], "pretrained": str(ckpt)}}
        conn.execute(
            text("UPDATE models SET fingerprint=:fp, identity=:i WHERE id=:id"),
            {"fp": v2_fingerprint(by_path), "i": json.dumps(by_path), "id": row_id},
        )
        conn.execute(text("UPDATE cells SET fingerprint=:fp"), {"fp": v2_fingerprint(by_path)})
        # ... and a second row for the same file by a relative path, with one score of its own
        by_rel = {**identity, "params": {**identity["params"], "pretrained": "ckpt.pt"}}
        conn.execute(
            text(
                "INSERT INTO models (fingerprint, model_type, identity, created_at) VALUES (:fp, 'open_clip', :i, 'x')"
            ),
            {"fp": v2_fingerprint(by_rel), "i": json.dumps(by_rel)},
        )
        rel_id = conn.execute(
            text("SELECT id FROM models WHERE fingerprint=:fp"), {"fp": v2_fingerprint(by_rel)}
        ).scalar()
        conn.execute(
            text("INSERT INTO scores (model, image_key, text, score) VALUES (:m, 'k', 'only here', 0.5)"), {"m": rel_id}
        )
        conn.execute(
            text("INSERT INTO scores SELECT :m, image_key, text, score FROM scores WHERE model=:old LIMIT 3"),
            {"m": rel_id, "old": row_id},
        )
        conn.execute(text("UPDATE schema_info SET value='2' WHERE key='schema_version'"))
    store.close()

    cwd = os.getcwd()
    os.chdir(tmp_path)  # v2 read relative paths from the current folder; so does the migration
    try:
        migrated = vlc_run.store()
    finally:
        os.chdir(cwd)
    with migrated.engine.connect() as conn:
        rows = conn.execute(text("SELECT id, fingerprint FROM models")).all()
        assert rows == [(row_id, new_fp)]
        assert conn.execute(text("SELECT count(*) FROM scores")).scalar() == n_scores + 1
        assert {r[0] for r in conn.execute(text("SELECT DISTINCT fingerprint FROM cells"))} == {new_fp}
    assert migrated.info()["schema_version"] == str(SCHEMA_VERSION)  # and on through the later steps
    migrated.close()
    again = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", data_root=sample_root)
    assert again.exit_code == 0, again.output
    assert "[stored]" in again.output  # the migrated cell is reused as it is
    with vlc_run.store().engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM models")).scalar() == 1


# -- JSON Schema ------------------------------------------------------------------------------


def test_schema_accepts_the_shipped_registries_and_rejects_typos(vlc_plugins):
    jsonschema = pytest.importorskip("jsonschema")
    schema = registry_schema(vlc_plugins)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name in ("registry.yaml", "examples/quickstart.yaml"):
        errors = list(validator.iter_errors(yaml.safe_load((REPO / name).read_text())))
        assert not errors, f"{name}: {errors[0].message}"
    typo = {"models": [{"id": "x", "type": "open_clip", "params": {"arch": "ViT-B-32", "pretraind": "openai"}}]}
    assert any("pretraind" in e.message for e in validator.iter_errors(typo))
    bad_meta = {"models": [{"id": "x", "type": "random", "meta": {"descripton": "x"}}]}
    assert any("descripton" in e.message for e in validator.iter_errors(bad_meta))
    assert schema["$defs"]["model.open_clip.run"]["properties"]["truncate_text"]["default"] is True
    assert schema["$defs"]["model_meta"]["properties"]["display_name"]["description"].startswith("The name")


def test_schema_command_prints_the_schema(vlc_cli, tmp_path):
    result = vlc_cli("schema", "registry")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "vlc-harness registry"
    out = tmp_path / "s.json"
    assert vlc_cli("schema", "registry", "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["$defs"]["model_meta"]["additionalProperties"] is False
