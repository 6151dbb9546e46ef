"""The registry's ``plugins:`` section: pins parsed and validated, ``plugins install --dry-run`` and
``plugins check``, and an entry of a listed-but-not-installed type loading with unavailable cells."""

from __future__ import annotations

import importlib.metadata
import json

import pytest

from vlc_harness.errors import PACKAGE_MISSING, RegistryError
from vlc_harness.plugin_install import read_plugin_packages
from vlc_harness.registry import load_registry

SHA = "sha256:" + "ab" * 32
COMMIT = "0123456789abcdef0123456789abcdef01234567"
MY_CLIP = f"""plugins:
  - package: vlc-my-clip
    pin: vlc-my-clip==0.1.0
    hashes: [{SHA}]
    models: [my_clip]
"""


def write(tmp_path, text, name="r.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_hash_and_git_pins_parse(tmp_path):
    text = (
        MY_CLIP + f"  - package: vlc-lab-bench\n    pin: git+https://github.com/lab/b@{COMMIT}\n    benchmarks: [lab]\n"
    )
    packages = read_plugin_packages([write(tmp_path, text)])
    clip, bench = packages["vlc-my-clip"], packages["vlc-lab-bench"]
    assert (clip.version, clip.commit, clip.hashes, clip.models) == ("0.1.0", None, (SHA,), ("my_clip",))
    assert clip.install_hint() == "install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)"
    assert (bench.version, bench.commit, bench.benchmarks) == (None, COMMIT, ("lab",))
    assert bench.requirement() == f"vlc-lab-bench @ git+https://github.com/lab/b@{COMMIT}"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("{package: a, pin: a==1, models: [x]}", "r.yaml:2: plugins[0].hashes: a name==version pin needs its sha256"),
        ("{package: a, pin: 'a>=1', hashes: [H], models: [x]}", "plugins[0].pin: 'a>=1': expected 'a==VERSION'"),
        ("{package: a, pin: b==1, hashes: [H], models: [x]}", "plugins[0].pin: pins 'b', not the package 'a'"),
        ("{package: a, pin: a==1, hashes: [sha256:12], models: [x]}", "plugins[0].hashes[0]: 'sha256:12' is not"),
        ("{package: a, pin: 'git+https://h/a@main', models: [x]}", "plugins[0].pin: 'git+https://h/a@main': a git pin"),
        ("{package: a, pin: 'git+https://h/a@C', hashes: [H], models: [x]}", "plugins[0].hashes: a git pin is fixed"),
        ("{package: a, pin: a==1, hashes: [H]}", "plugins[0]: names no types"),
        ("{package: a, pin: a==1, hashes: [H], dependency_of: zz}", "plugins[0].dependency_of: 'zz' is not a package"),
        ("{package: a, pin: a==1, hashes: [H], models: [x], dependency_of: a}", "plugins[0].dependency_of: a depen"),
        ("{package: a, pin: a==1, hashes: [H], models: [x], colour: red}", "plugins[0].colour: unknown key"),
        ("{pin: a==1, hashes: [H], models: [x]}", "plugins[0].package: required"),
    ],
)
def test_malformed_plugins_name_file_line_and_key(tmp_path, item, expected):
    text = "plugins:\n  - " + item.replace("H", SHA).replace("@C", "@" + COMMIT) + "\n"
    with pytest.raises(RegistryError) as info:
        read_plugin_packages([write(tmp_path, text)])
    assert expected in str(info.value)


def test_a_type_listed_twice_is_an_error(tmp_path):
    text = MY_CLIP + f"  - {{package: other, pin: other==1, hashes: [{SHA}], models: [my_clip]}}\n"
    with pytest.raises(RegistryError, match=r"plugins\[1\].models: type 'my_clip' is already provided by"):
        read_plugin_packages([write(tmp_path, text)])


def test_install_dry_run_prints_the_pip_commands(tmp_path, vlc_cli):
    text = (
        MY_CLIP + f"  - package: vlc-lab-bench\n    pin: git+https://github.com/lab/b@{COMMIT}\n    benchmarks: [lab]\n"
    )
    constraints = write(tmp_path, "numpy==2.0\n", "constraints.txt")
    out = vlc_cli("plugins", "install", "--registry", str(write(tmp_path, text)), "--constraints", str(constraints),
                  "--dry-run")  # fmt: skip
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].endswith(f"-m pip install --no-deps -c {constraints} --require-hashes -r {{requirements}}")
    assert lines[1].endswith(
        f"-m pip install --no-deps -c {constraints} vlc-lab-bench @ git+https://github.com/lab/b@{COMMIT}"
    )
    assert f"vlc-my-clip==0.1.0 --hash={SHA}" in lines


def test_check_says_ok_other_and_missing(tmp_path, vlc_cli):
    real = importlib.metadata.version("click")
    text = f"""plugins:
  - {{package: click, pin: click=={real}, hashes: [{SHA}], models: [a]}}
  - {{package: Click-Plugins-Nowhere, pin: Click-Plugins-Nowhere==1.0, hashes: [{SHA}], models: [b]}}
"""
    out = vlc_cli("plugins", "check", "--registry", str(write(tmp_path, text)))
    assert out.exit_code == 1
    assert f"ok       click=={real}" in out.output
    assert "missing  Click-Plugins-Nowhere==1.0: not installed" in out.output
    wrong = text.replace(f"click=={real}", "click==0.0.1")
    out = vlc_cli("plugins", "check", "--registry", str(write(tmp_path, wrong)))
    assert f"other    click==0.0.1: installed {real}" in out.output
    only_ok = f"plugins:\n  - {{package: click, pin: click=={real}, hashes: [{SHA}], models: [a]}}\n"
    assert vlc_cli("plugins", "check", "--registry", str(write(tmp_path, only_ok))).exit_code == 0


def test_plugins_alone_and_plugins_list_still_list_the_plugins(vlc_cli):
    for args in (("plugins",), ("plugins", "list"), ("plugins", "--format", "json")):
        out = vlc_cli(*args)
        assert out.exit_code == 0, out.output
        assert "vlc_harness_builtins.models.random" in out.output
    json.loads(vlc_cli("plugins", "list", "--format", "json").output)


def test_unknown_type_suggests_the_close_one(tmp_path, vlc_plugins):
    with pytest.raises(RegistryError, match=r"unknown model type 'randon' \(did you mean random\?\)"):
        load_registry([write(tmp_path, "models:\n  - {id: x, type: randon}\n")], vlc_plugins)
    with pytest.raises(RegistryError, match=r"unknown benchmark type 'sugar-crepe' \(did you mean sugarcrepe\?\)"):
        load_registry([write(tmp_path, "benchmarks:\n  - {id: x, type: sugar-crepe}\n")], vlc_plugins)


def test_unknown_model_id_suggests_the_close_one(tmp_path, vlc_plugins):
    from vlc_harness.run.select import select_models

    registry = load_registry([write(tmp_path, "models:\n  - {id: rand-one, type: random}\n")], vlc_plugins)
    with pytest.raises(RegistryError, match=r"unknown model id 'rand-onw' \(did you mean rand-one\?\)"):
        select_models(registry, vlc_plugins, ["rand-onw"])


def test_a_listed_type_whose_package_is_missing_gives_unavailable_cells(tmp_path, vlc_run, vlc_plugins, sample_root):
    text = MY_CLIP + "models:\n  - {id: lab-clip, type: my_clip, params: {arch: tiny}}\n  - {id: rand, type: random}\n"
    registry = load_registry([write(tmp_path, text)], vlc_plugins)
    assert registry.models["lab-clip"].unavailable.endswith(
        "install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)"
    )
    assert registry.models["lab-clip"].params_dict() == {"arch": "tiny"}
    out = vlc_run("--registry", str(tmp_path / "r.yaml"), "-m", "lab-clip", "-m", "rand", "-b",
                  "sugarcrepe:version=custom", data_root=sample_root)  # fmt: skip
    assert out.exit_code == 0, out.output
    from vlc_harness.store import open_store

    cells = {c.model_id: c for c in open_store(f"sqlite:///{vlc_run.store_path}").latest_cells()}
    assert cells["rand"].status == "ok"
    assert cells["lab-clip"].status == "unavailable" and cells["lab-clip"].reason_code == PACKAGE_MISSING
    assert "install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)" in cells["lab-clip"].error


def test_a_type_no_listed_package_provides_stays_an_error(tmp_path, vlc_plugins):
    text = MY_CLIP + "models:\n  - {id: lab-clip, type: my-clip}\n"
    with pytest.raises(RegistryError, match=r"unknown model type 'my-clip' \(did you mean my_clip\?\)"):
        load_registry([write(tmp_path, text)], vlc_plugins)


def test_plan_shows_a_missing_package_as_unavailable_cells(tmp_path, vlc_cli, sample_root):
    text = MY_CLIP + "models:\n  - {id: lab-clip, type: my_clip}\n  - {id: rand, type: random}\n"
    write(tmp_path, text)
    out = vlc_cli("plan", "--registry", str(tmp_path / "r.yaml"), "-m", "lab-clip", "-m", "rand",
                  "-b", "sugarcrepe:version=custom", "--data-root", str(sample_root),
                  "--store", f"sqlite:///{tmp_path / 's.sqlite'}", "--format", "json")  # fmt: skip
    assert out.exit_code == 0, out.output
    cells = {c["model"]: c for c in json.loads(out.output)["cells"]}
    assert cells["lab-clip"]["status"] == "unavailable"
    assert "install vlc-my-clip==0.1.0" in cells["lab-clip"]["reason"]
    assert cells["rand"]["status"] == "compute"


def test_a_plugin_s_own_dependency_is_pinned_with_its_hashes(tmp_path, vlc_plugins):
    text = MY_CLIP + f"  - {{package: lab-tok, pin: lab-tok==2.1.0, hashes: [{SHA}], dependency_of: vlc-my-clip}}\n"
    registry = load_registry([write(tmp_path, text)], vlc_plugins)
    dependency = registry.packages["lab-tok"]
    assert dependency.dependency_of == "vlc-my-clip" and not dependency.models and not dependency.benchmarks
    assert dependency.requirement() == "lab-tok==2.1.0"


def test_plan_diff_summarises_an_entry_of_a_missing_package_as_unknown(tmp_path, sample_root):
    # planview_grid.py is what `plan --diff` runs on the base revision: a base registry naming a
    # package this environment lacks must give a grid, not a crash
    from vlc_harness.cli import planview_grid

    write(tmp_path, MY_CLIP + "models:\n  - {id: lab-clip, type: my_clip}\n  - {id: rand, type: random}\n")
    out = tmp_path / "grid.json"
    argv = ["--out", str(out), "--registry", str(tmp_path / "r.yaml"), "--data-root", str(sample_root)]
    assert planview_grid.main([*argv, "-b", "sugarcrepe:version=custom"]) == 0
    models = json.loads(out.read_text())["models"]
    assert models["lab-clip"]["fingerprint"] == "unknown"
    assert models["lab-clip"]["unknown"].endswith("install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)")
    assert models["rand"]["fingerprint"] != "unknown"
