"""The registry's ``plugins:`` section: pins parsed and validated, ``plugins install --dry-run`` and
``plugins check``, and an entry of a listed-but-not-installed type loading with unavailable cells."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest

from tests.conftest import commit, git
from vlc_harness import plugin_install
from vlc_harness.errors import RegistryError
from vlc_harness.plugin_install import read_plugin_packages
from vlc_harness.reasons import Reason
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


def test_hashed_pins_parse(tmp_path):
    packages = read_plugin_packages([write(tmp_path, MY_CLIP)])
    clip = packages["vlc-my-clip"]
    assert (clip.version, clip.hashes, clip.models) == ("0.1.0", (SHA,), ("my_clip",))
    assert clip.requirement() == "vlc-my-clip==0.1.0"
    assert clip.install_hint() == "install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)"


@pytest.mark.parametrize("pin", [f"git+https://github.com/lab/b@{COMMIT}", "git+https://h/a@main"])
def test_a_git_pin_is_refused_and_nothing_is_installed(tmp_path, vlc_cli, monkeypatch, pin):
    """pip would build it from source, running its build code and unhashed build dependencies (issue 37):
    the registry refuses it, so no command ever reaches pip (docs/third_party.md says to publish a wheel)."""
    path = write(tmp_path, MY_CLIP + f"  - package: vlc-lab-bench\n    pin: {pin}\n    benchmarks: [lab]\n")
    with pytest.raises(RegistryError, match=r"r.yaml:7: plugins\[1\].pin: .*git pins are not accepted.*Publish a"):
        read_plugin_packages([path])
    monkeypatch.setattr(plugin_install.subprocess, "run", lambda *a, **k: pytest.fail(f"ran {a}"))
    with pytest.raises(RegistryError, match="git pins are not accepted"):
        vlc_cli("plugins", "install", "--registry", str(path))


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("{package: a, pin: a==1, models: [x]}", "r.yaml:2: plugins[0].hashes: a name==version pin needs its"),
        ("{package: a, pin: 'a>=1', hashes: [H], models: [x]}", "plugins[0].pin: 'a>=1': expected 'a==VERSION'"),
        ("{package: a, pin: b==1, hashes: [H], models: [x]}", "plugins[0].pin: pins 'b', not the package 'a'"),
        ("{package: a, pin: a==1, hashes: [sha256:12], models: [x]}", "plugins[0].hashes[0]: 'sha256:12' is not"),
        ("{package: a, pin: 'git+https://h/a@C', hashes: [H], models: [x]}", "plugins[0].pin: 'git+https://h/a@"),
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


def test_install_dry_run_prints_the_pip_command(tmp_path, vlc_cli):
    constraints = write(tmp_path, "numpy==2.0\n", "constraints.txt")
    out = vlc_cli("plugins", "install", "--registry", str(write(tmp_path, MY_CLIP)), "--constraints", str(constraints),
                  "--dry-run")  # fmt: skip
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].endswith(
        f"-m pip install --no-deps --only-binary :all: -c {constraints} --require-hashes -r {{requirements}}"
    )
    assert lines[1:] == ["# {requirements}:", f"vlc-my-clip==0.1.0 --hash={SHA}"]


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
    json.loads(vlc_cli("plugins", "list", "--format", "json").stdout)


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
    assert cells["lab-clip"].status == "unavailable" and cells["lab-clip"].reason_code == Reason.PACKAGE_MISSING
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
    cells = {c["model"]: c for c in json.loads(out.stdout)["cells"]}
    assert cells["lab-clip"]["status"] == "unavailable"
    assert "install vlc-my-clip==0.1.0" in cells["lab-clip"]["reason"]
    assert cells["rand"]["status"] == "compute"


def test_a_plugin_s_own_dependency_is_pinned_with_its_hashes(tmp_path, vlc_plugins):
    text = MY_CLIP + f"  - {{package: lab-tok, pin: lab-tok==2.1.0, hashes: [{SHA}], dependency_of: vlc-my-clip}}\n"
    registry = load_registry([write(tmp_path, text)], vlc_plugins)
    dependency = registry.packages["lab-tok"]
    assert dependency.dependency_of == "vlc-my-clip" and not dependency.models and not dependency.benchmarks
    assert dependency.requirement() == "lab-tok==2.1.0"


@pytest.mark.subprocess
def test_plan_diff_summarises_an_entry_of_a_missing_package_as_unknown(tmp_path, sample_root):
    # the base revision's plan runs in another process: a base registry naming a package this
    # environment lacks must give a plan, and its cells an unknown change, not a crash
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, MY_CLIP + "models:\n  - {id: lab-clip, type: my_clip}\n  - {id: rand, type: random}\n")
    commit(repo, "base")
    argv = ["plan", "--registry", "r.yaml", "-b", "sugarcrepe:version=custom", "--data-root", str(sample_root)]
    argv += ["--store", f"sqlite:///{tmp_path / 's.sqlite'}", "--diff", "HEAD", "--format", "json"]
    out = subprocess.run([sys.executable, "-m", "vlc_harness", *argv], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    plan = json.loads(out.stdout)
    models = {m["id"]: m for m in plan["models"]}
    assert (models["lab-clip"]["fingerprint"], models["lab-clip"]["declared"]) == ("-", None)
    assert models["lab-clip"]["not_identified"].endswith("install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)")
    (cell,) = plan["diff"]["cells"]  # rand x sc is unchanged
    assert (cell["model"], cell["change"]) == ("lab-clip", "unknown")
    assert cell["why"][0].endswith("install vlc-my-clip==0.1.0 (`vlc-harness plugins install`)")
