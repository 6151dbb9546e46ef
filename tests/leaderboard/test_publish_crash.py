"""Publishing is crash-safe (issue 38, item 5): a render killed between the swap's two renames leaves
only the hidden ``.SITE.old-*`` and ``.SITE.staging-*`` folders; the next render restores the last
complete site (its releases included) before comparing manifests, so the lost-cell check still
runs. A full disk or a read-only folder is one sentence (exit 2), never a traceback, and the
published site stays as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REFUSED = 5
FAULT_EXIT = 86


pytestmark = pytest.mark.subprocess  # the board is built by the vlc-harness script


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    """Two random models on the SugarCrepe sample, in a store; a registry naming both, one naming alpha only."""
    from tests.conftest import SUGARCREPE_SAMPLE, sugarcrepe_filenames
    from vlc_harness.testing import write_standin_images

    tmp = tmp_path_factory.mktemp("publish-crash")
    root = tmp / "data"
    shutil.copytree(SUGARCREPE_SAMPLE, root / "sugarcrepe")
    write_standin_images(sugarcrepe_filenames(root / "sugarcrepe"), root / "coco" / "val2017")
    both, alpha = tmp / "both.yaml", tmp / "alpha.yaml"
    bench = "benchmarks:\n  - {id: sugarcrepe, type: sugarcrepe, params: {version: custom}}\n"
    a = "  - {id: alpha, type: random, params: {seed: 1}}\n"
    both.write_text("models:\n" + a + "  - {id: beta, type: random, params: {seed: 2}}\n" + bench)
    alpha.write_text("models:\n" + a + bench)
    store = tmp / "store.sqlite"
    out = cli("run", "--all", "--registry", str(both), "--data-root", str(root), "--store", f"sqlite:///{store}")
    assert out.exit_code == 0, out.output
    return {"both": both, "alpha": alpha, "store": store, "root": root}


def cli(*args: str):
    from click.testing import CliRunner

    from vlc_harness.cli import build_cli

    return CliRunner().invoke(build_cli(), [*args, "--no-progress"] if args[0] == "run" else list(args))


def render_args(setup: dict, site: Path, registry: str = "both") -> list[str]:
    return ["render", "--registry", str(setup[registry]), "--store", f"sqlite:///{setup['store']}", "--out", str(site)]


def snapshot(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def leftovers(site: Path) -> list[str]:
    return sorted(p.name for p in site.parent.iterdir() if p.name.startswith(f".{site.name}."))


def published(setup: dict, tmp_path: Path) -> Path:
    """A site rendered once, with a frozen release r1."""
    site = tmp_path / "site"
    first = cli(*render_args(setup, site), "--release", "r1")
    assert first.exit_code == 0, first.output
    assert (site / "releases" / "r1" / "manifest.json").is_file()
    return site


def killed_between_renames(site: Path) -> None:
    """The state a kill between the swap's renames leaves: the old site set aside, the new one staged."""
    os.rename(site, site.parent / f".{site.name}.old-k1ll3d")
    staged = site.parent / f".{site.name}.staging-n3w0ne"
    shutil.copytree(site.parent / f".{site.name}.old-k1ll3d", staged)
    shutil.rmtree(staged / "releases")  # what today's render published after such a kill: no release


def test_a_render_after_a_kill_between_the_renames_still_refuses_a_lost_cell(board, tmp_path):
    """The issue: the next render said "no manifest.json yet: nothing to compare, every cell is new",
    skipped the lost-cell check and published without the frozen release."""
    site = published(board, tmp_path)
    before = snapshot(site)
    killed_between_renames(site)
    out = cli(*render_args(board, site, registry="alpha"))  # beta's published value would be lost
    assert out.exit_code == REFUSED, out.output
    assert "nothing to compare" not in out.output
    assert "lost: beta x sugarcrepe" in out.output
    assert "restored" in out.output and ".site.old-k1ll3d" in out.output
    assert snapshot(site) == before  # the last complete site, releases included, is back as it was
    assert leftovers(site) == []


def test_a_render_after_a_kill_between_the_renames_keeps_the_releases(board, tmp_path):
    site = published(board, tmp_path)
    release = snapshot(site / "releases")
    killed_between_renames(site)
    out = cli(*render_args(board, site))
    assert out.exit_code == 0, out.output
    assert "checked against the published manifest: nothing lost" in out.output
    assert snapshot(site / "releases") == release
    assert leftovers(site) == []


def test_a_set_aside_site_left_after_the_second_rename_is_removed(board, tmp_path):
    site = published(board, tmp_path)
    shutil.copytree(site, site.parent / f".{site.name}.old-st4le0")  # killed while deleting the old site
    (site.parent / f".{site.name}.staging-h4lf").mkdir()  # and a build killed half-way
    release = snapshot(site / "releases")
    out = cli(*render_args(board, site))
    assert out.exit_code == 0, out.output
    assert "checked against the published manifest: nothing lost" in out.output
    assert leftovers(site) == [] and snapshot(site / "releases") == release


def test_two_set_aside_sites_and_no_site_are_refused_in_one_sentence(board, tmp_path):
    from vlc_harness.errors import UserError

    site = published(board, tmp_path)
    shutil.copytree(site, site.parent / f".{site.name}.old-0ne")
    os.rename(site, site.parent / f".{site.name}.old-tw0")
    out = cli(*render_args(board, site))
    assert isinstance(out.exception, UserError), out.output
    assert ".site.old-0ne" in str(out.exception) and ".site.old-tw0" in str(out.exception)
    assert not site.exists() and len(leftovers(site)) == 2  # nothing deleted: a person chooses


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VLC_HARNESS_FAULT"}
    return env | extra


def test_an_injected_kill_between_the_renames_is_recovered_by_the_next_render(board, tmp_path):
    site = published(board, tmp_path)
    before = snapshot(site)
    command = [sys.executable, "-m", "vlc_harness", *render_args(board, site)]
    killed = subprocess.run(
        command, capture_output=True, text=True, timeout=300, env=_env(VLC_HARNESS_FAULT="render.swapped-aside")
    )
    assert killed.returncode == FAULT_EXIT, (killed.returncode, killed.stdout, killed.stderr)
    assert not site.exists()
    assert [n.split("-")[0] for n in leftovers(site)] == [".site.old", ".site.staging"]
    again = subprocess.run(
        [sys.executable, "-m", "vlc_harness", *render_args(board, site, registry="alpha")],
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(),
    )
    assert again.returncode == REFUSED, again.stdout + again.stderr
    assert snapshot(site) == before and leftovers(site) == []


def _in_mount_namespace(script: str) -> subprocess.CompletedProcess:
    """A shell ``script`` in a private mount namespace (``unshare``: root, or a user namespace)."""
    return subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=600)


def test_a_full_disk_is_one_sentence_and_the_site_stays(board, tmp_path):
    """A real full disk: a small tmpfs, filled after a first render."""
    disk, report = tmp_path / "disk", tmp_path / "report"
    disk.mkdir()
    report.mkdir()
    site = disk / "site"
    render = " ".join(f"'{a}'" for a in [sys.executable, "-m", "vlc_harness", *render_args(board, site)])
    script = f"""
        set -u
        mount -t tmpfs -o size=8m tmpfs {disk} || exit 90
        {render} > {report}/first.out 2>&1; echo $? > {report}/first.rc
        (cd {site} && find . -type f | sort | xargs sha256sum) > {report}/before.sums
        dd if=/dev/zero of={disk}/filler bs=64k 2>/dev/null
        {render} > {report}/full.out 2> {report}/full.err; echo $? > {report}/full.rc
        (cd {site} && find . -type f | sort | xargs sha256sum) > {report}/after.sums
        ls -a {disk} > {report}/listing
    """
    ran = _in_mount_namespace(script)
    assert ran.returncode == 0, (ran.returncode, ran.stderr)
    assert (report / "first.rc").read_text().strip() == "0", (report / "first.out").read_text()
    err = (report / "full.err").read_text()
    assert (report / "full.rc").read_text().strip() == "2", err
    assert "Traceback" not in err and "OSError" not in err
    assert err.startswith("Error: ") and "no space left on the device" in err, err
    assert len(err.strip().splitlines()) <= 2  # the sentence and its hint
    assert (report / "after.sums").read_text() == (report / "before.sums").read_text()
    assert sorted((report / "listing").read_text().split()) == [".", "..", "filler", "site"]


def test_a_read_only_folder_is_one_sentence(board, tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    site = published(board, parent)
    before = snapshot(site)
    render = " ".join(f"'{a}'" for a in [sys.executable, "-m", "vlc_harness", *render_args(board, site)])
    ran = _in_mount_namespace(f"mount --bind -o ro {parent} {parent} && exec {render}")
    assert ran.returncode == 2, (ran.returncode, ran.stdout, ran.stderr)
    assert ran.stderr.startswith("Error: ") and "read-only" in ran.stderr and "Traceback" not in ran.stderr
    assert snapshot(site) == before and leftovers(site) == []
