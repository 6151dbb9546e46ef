"""``vlc-harness ci nightly``, the steps of .github/workflows/nightly.yml: two nights on a temporary
registry (the second with its data removed), the install commands, and the fetch step's verdicts."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from tests.nightly_cli import run_night, write_registry
from vlc_harness.ci.nightly import command, install
from vlc_harness.ci.nightly.fetch import fetch
from vlc_harness.ci.nightly.steps import Step
from vlc_harness.datafetch import FetchError
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import load_registry
from vlc_harness.testing import write_standin_images

if sys.version_info >= (3, 11):
    pass
else:  # Python 3.10: the same parser, from PyPI (a dev dependency there)
    pass

REPO = Path(__file__).resolve().parents[2]


def offline(url, dest, sha256, progress=True):
    raise FetchError(f"cannot download {url}: offline (test)")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def night(tmp_path, monkeypatch, vlc_cli):
    """``night(name)``: the command with --no-install on a store, data root and site of this test."""
    monkeypatch.setattr("vlc_harness.datafetch.download", offline)  # a night without the network

    def run(name: str, registry: Path, data_root: Path) -> tuple[int, dict, str]:
        return run_night(vlc_cli, tmp_path, registry, "--no-install", name=name, data_root=data_root)

    return run


@pytest.mark.subprocess
def test_a_night_without_its_data_fails_names_the_lost_cells_and_leaves_the_site(night, tmp_path, sample_root):
    registry = write_registry(
        tmp_path / "registry.yaml",
        [
            {"id": "random", "type": "random", "params": {"seed": 0}},
            {"id": "random-7", "type": "random", "params": {"seed": 7}},
        ],
        [
            {"id": "shapes", "type": "shapes", "params": {"seed": 0, "n_scenes": 6, "image_size": 32}},
            {"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}},
        ],
    )
    write_standin_images(["000000000139.jpg"], sample_root / "coco" / "val2017")  # the val2017 archive is present

    code, first, markdown = night("night1", registry, sample_root)
    assert code == 0, markdown
    assert first["exit_code"] == 0 and first["run"]["statuses"] == {"ok": 4}
    assert {(c["model"], c["benchmark"]) for c in first["run"]["new"]} == {
        (m, b) for m in ("random", "random-7") for b in ("shapes", "sugarcrepe")
    }
    assert first["steps"]["install"]["skipped"] and first["steps"]["render"]["exit_code"] == 0
    assert markdown.startswith("## Nightly leaderboard: exit 0 (the site is published)")
    site = tmp_path / "site"
    assert (site / "index.html").is_file()
    published = snapshot(site)

    shutil.rmtree(sample_root)  # the data is gone, and the network too
    code, second, markdown = night("night2", registry, sample_root)
    assert code == 5, markdown  # run: 4 (lost cells); render: 5 (refused); the highest wins
    steps = second["steps"]
    assert steps["run"]["exit_code"] == 4 and steps["render"]["exit_code"] == 5
    assert any(
        "sugarcrepe: failed: cannot download https://images.cocodataset.org" in line for line in steps["fetch"]["lines"]
    )
    assert steps["fetch"]["exit_code"] == 0  # the archive is not pinned: reported, not fatal
    lost = second["run"]["lost"]
    assert [(c["model"], c["benchmark"]) for c in lost] == [("random", "sugarcrepe"), ("random-7", "sugarcrepe")]
    assert second["run"]["exit_reason"].startswith("Exit 4: 2 cell(s) that had a number")
    assert "**Lost (had a number before this run)** (2)" in markdown
    assert "- random x sugarcrepe: was ok (i2t_accuracy_macro=" in markdown
    assert markdown.startswith("## Nightly leaderboard: exit 5 (nothing is published)")
    assert snapshot(site) == published


def test_a_pinned_file_that_cannot_be_fetched_fails_the_night_and_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr("vlc_harness.datafetch.download", offline)
    registry_file = tmp_path / "registry.yaml"
    registry_file.write_text(
        yaml.safe_dump({"benchmarks": [{"id": "hp", "type": "hard_positives"}, {"id": "wu", "type": "whatsup"}]})
    )
    registry = load_registry([registry_file], get_plugins())
    root = tmp_path / "data"
    step = fetch(registry, ["--registry", str(registry_file), "--data-root", str(root)], root)
    assert step.code == 1
    (pinned,) = [line for line in step.lines if line.startswith("pinned, not fetched (fails the night): hp: ")]
    assert "missing hard_positives/data/vl_checklist_attributes.json (https://" in pinned
    (unpinned,) = [line for line in step.lines if line.startswith("not fetched (unpinned or manual-only")]
    assert "wu: failed: cannot download" in unpinned


def test_the_install_step_installs_what_the_published_registry_needs():
    registry = load_registry([REPO / "registry.yaml"], get_plugins())
    commands = [" ".join(c) for c in install.install_commands(registry)]
    hashed = "-m pip install --no-deps --require-hashes --only-binary :all: -r"
    assert commands[0].endswith(f"{hashed} {REPO / 'lock' / 'nightly.txt'}")
    assert commands[1].endswith(f"-m pip install --no-deps --no-build-isolation -e {REPO}")
    assert commands[2].endswith(f"{hashed} {{no-deps requirements}}")  # lock/no-deps.txt's en_core_web_sm line
    assert len(commands) == 3
    (line,) = install.no_deps_requirements(registry).splitlines()  # ARO's tagger, hashed
    assert line.startswith("en_core_web_sm @ https://github.com/explosion/spacy-models/releases/download/")
    assert line.endswith("--hash=sha256:1932429db727d4bff3deed6b34cfc05df17794f4a52eeb26cf8928f7c1a0fb85")


def test_the_install_step_installs_the_registry_s_plugin_packages(tmp_path):
    sha = "sha256:" + "ab" * 32
    path = tmp_path / "r.yaml"
    path.write_text(
        f"plugins:\n  - {{package: vlc-my-clip, pin: vlc-my-clip==0.1.0, hashes: [{sha}], models: [my_clip]}}\n"
        "models:\n  - {id: lab-clip, type: my_clip}\n",
        encoding="utf-8",
    )
    registry = load_registry([path], get_plugins())
    commands = [" ".join(c) for c in install.install_commands(registry, path)]
    assert commands[-1].endswith(f"-m vlc_harness plugins install --registry {path}")


@pytest.mark.slow  # over a second: the full suite's
def test_the_install_step_reads_each_types_declaration():
    """registry.yaml's types declare openclip, hf, blind, data and aro (ARO's Order tasks) and the spaCy
    pipeline their tagger names; nothing else is installed (the extras come from the classes alone)."""
    from vlc_harness.registry import load_registry

    registry = load_registry([REPO / "registry.yaml"], get_plugins())
    wanted = install.needs(registry)
    assert wanted.spacy_models == ("en_core_web_sm",) and wanted.no_deps == ()
    assert set(wanted.extras) == {"aro", "blind", "data", "hf", "openclip"}
    assert set(wanted.extras) == {
        x for kind in (registry.models, registry.benchmarks) for e in kind.values() for x in _declared(e).extras
    }


def _declared(entry):
    plugins = get_plugins()
    registrar = plugins.models if entry.id in load_ids("models") else plugins.benchmarks
    return registrar.get(entry.type).cls.requires


def load_ids(kind: str) -> set[str]:
    from vlc_harness.registry import load_registry

    return set(getattr(load_registry([REPO / "registry.yaml"], get_plugins()), kind))


def test_the_summary_goes_to_the_job_summary_on_github(tmp_path, monkeypatch, vlc_cli):
    page = tmp_path / "step_summary.md"
    page.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(page))
    registry = tmp_path / "registry.yaml"
    registry.write_text("models: []\nbenchmarks: []\n")
    code = vlc_cli("ci", "nightly", "--registry", str(registry), "--no-install", "--print-install").exit_code
    assert code == 0 and page.read_text() == "earlier step\n"  # --print-install only prints
    monkeypatch.setattr(command, "night", lambda options: (2, {"run": None}, [Step("run", code=2)]))
    assert vlc_cli("ci", "nightly", "--registry", str(registry), "--no-install").exit_code == 2
    text = page.read_text()
    assert text.startswith("earlier step\n## Nightly leaderboard: exit 2 (nothing is published)")


def test_a_night_off_the_pins_is_refused_with_exit_6_and_publishes_nothing(night, tmp_path, monkeypatch):
    """Issue 39 item 2: installed score-changing versions other than constraints.txt's stop the night
    before the run (``run --require-pinned``), with its own exit code, which the deploy job does not publish."""
    import importlib

    from tests.core.test_stack import fake_distribution
    from vlc_harness.exit_codes import PUBLISHED, ExitCode
    from vlc_harness.stack import CONSTRAINTS_ENV

    monkeypatch.setenv(CONSTRAINTS_ENV, str(REPO / "constraints.txt"))
    fake_distribution(tmp_path / "meta", "numpy", "9.9.9")  # another numpy, as its package metadata says
    monkeypatch.syspath_prepend(str(tmp_path / "meta"))
    importlib.invalidate_caches()
    registry = tmp_path / "registry.yaml"
    shapes = {"id": "shapes", "type": "shapes", "params": {"seed": 0, "n_scenes": 6, "image_size": 32}}
    registry.write_text(yaml.safe_dump({"models": [{"id": "random", "type": "random"}], "benchmarks": [shapes]}))
    code, summary, markdown = night("off-pin", registry, tmp_path / "data")
    assert code == ExitCode.OFF_PIN == 6 and code not in PUBLISHED, markdown
    assert summary["steps"]["run"]["exit_code"] == 6 and summary["run"] is None and "render" not in summary["steps"]
    (line,) = [x for x in summary["steps"]["run"]["lines"] if x.startswith("off-pin:")]
    assert "numpy 9.9.9 (pinned " in line
    assert any("refused (--require-pinned)" in x for x in summary["steps"]["run"]["lines"])
    assert markdown.startswith("## Nightly leaderboard: exit 6 (nothing is published)"), markdown
    assert not (tmp_path / "site").exists()


@pytest.mark.subprocess
def test_the_three_jobs_in_order_publish_the_site_render_publishes_and_keep_releases(
    tmp_path, sample_root, monkeypatch, vlc_cli
):
    """The workflow's jobs, each its own call as on its own runner (run: install skipped, fetch, run, export;
    render: the bundle alone, with the published site in another folder; verify), give the site ``vlc-harness
    render`` gives from the same store, byte for byte under a fixed clock; a release frozen one night is carried
    by the next from the published copy, and a render without it is refused by the deploy check."""
    monkeypatch.setattr("vlc_harness.datafetch.download", offline)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767409200")
    registry = tmp_path / "registry.yaml"
    registry.write_text(
        yaml.safe_dump(
            {
                "models": [{"id": "random", "type": "random", "params": {"seed": 0}}],
                "benchmarks": [
                    {"id": "shapes", "type": "shapes", "params": {"seed": 0, "n_scenes": 6, "image_size": 32}},
                    {"id": "sugarcrepe", "type": "sugarcrepe", "params": {"version": "custom"}},
                ],
            }
        )
    )
    write_standin_images(["000000000139.jpg"], sample_root / "coco" / "val2017")
    where = ["--registry", str(registry), "--store", f"sqlite:///{tmp_path / 'store.sqlite'}"]
    where += ["--data-root", str(sample_root)]
    bundle, site = tmp_path / "artifact" / "board-bundle.zip", tmp_path / "site"

    def job(*args: str) -> int:
        md = tmp_path / "night.md"
        return vlc_cli("ci", "nightly", "--no-install", "--markdown", str(md), *args).exit_code

    assert job("--steps", "run", *where, "--bundle", str(bundle)) == 0 and bundle.is_file()
    assert job("--steps", "run", *where) == 2  # run alone must say where its bundle goes
    assert job("--steps", "render", "--bundle", str(bundle), "--site", str(site), "--release", "r1") == 0
    assert job("--steps", "verify", "--site", str(site)) == 0
    before = tmp_path / "render"
    assert vlc_cli("render", *where, "--out", str(before), "--release", "r1").exit_code == 0
    assert snapshot(site) == snapshot(before)  # the same site as render from the store
    assert (site / "releases" / "r1" / "index.html").is_file()

    published = tmp_path / "published"  # the deployed artifact, on the next night's render runner
    shutil.copytree(site, published)
    second = tmp_path / "site2"
    assert job("--steps", "render", "--bundle", str(bundle), "--site", str(second), "--previous", str(published)) == 0
    assert job("--steps", "verify", "--site", str(second), "--previous", str(published)) == 0
    assert snapshot(second / "releases") == snapshot(published / "releases")
    wiped = tmp_path / "site3"  # a render job that had only the manifest, not the releases
    assert job("--steps", "render", "--bundle", str(bundle), "--site", str(wiped)) == 0
    assert not (wiped / "releases").exists()
    assert job("--steps", "verify", "--site", str(wiped), "--previous", str(published)) == 9
