from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sysconfig
import tempfile
from pathlib import Path

import pytest

from tests.once import built_once
from vlc_harness.testing import in_ci, write_standin_images

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUGARCREPE_SAMPLE = FIXTURES / "sugarcrepe_sample"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Spread the tests over every core (pytest-xdist, work stealing: ``-n auto --dist worksteal``) unless
    told otherwise: ``-n N`` / ``--dist MODE`` choose, ``-n 0`` or ``-p no:xdist`` runs in this process
    (what ``--pdb`` needs). Set here rather than in ``addopts`` so ``-p no:xdist`` still parses."""
    option = config.option
    if not config.pluginmanager.has_plugin("xdist") or hasattr(config, "workerinput"):
        return
    if option.numprocesses is None and option.dist == "no" and not option.usepdb and not option.collectonly:
        option.numprocesses, option.dist = "auto", "worksteal"


def pytest_configure(config: pytest.Config) -> None:
    # Never touch the network, never touch the user's cache or store (each xdist worker gets its own cache).
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["VLC_HARNESS_CACHE_DIR"] = tempfile.mkdtemp(prefix="vlc-test-cache-")
    os.environ.pop("VLC_HARNESS_STORE", None)
    # intervals stay on, and cheap; tests/metrics/test_intervals.py asks for more resamples
    os.environ.setdefault("VLC_HARNESS_BOOTSTRAP", "20")
    os.environ.pop("VLC_HARNESS_REGISTRY", None)
    share_the_cores()
    refuse_remote_connections()
    # a test that starts a heavy process without a marker saying so fails (tests/tiers.py)
    from tests.tiers import ProcessGuard

    config.pluginmanager.register(ProcessGuard(), "vlc-process-guard")
    # a test that leaves files in the repository fails the session (tests/working_tree.py); under xdist
    # the controller checks, before the first worker starts and after the last one ends
    if not hasattr(config, "workerinput"):
        from tests.working_tree import WorkingTreeCheck

        config.pluginmanager.register(WorkingTreeCheck(REPO), "vlc-working-tree-check")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers' markers (tests/tiers.py), before ``-m`` selects by them."""
    from tests.tiers import mark_tiers

    mark_tiers(items)


def share_the_cores() -> None:
    """In an xdist worker, give torch ``cores // workers`` threads (before it is imported): two workers
    each spinning two OpenMP threads on two cores run the tiny models several times slower than one
    each. numpy's OpenBLAS keeps every core, as in a run without xdist: it would otherwise follow
    OMP_NUM_THREADS, and some stored metrics (hard positives' on the real files) differ in their last
    bits with its thread count, which the benchmark-port snapshot holds them to."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if workers > 1:
        cores = os.cpu_count() or 1
        os.environ.setdefault("OPENBLAS_NUM_THREADS", str(cores))
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, str(max(1, cores // workers)))


class NetworkUsedInTest(RuntimeError):
    """A test tried to reach a host other than this machine."""


def is_local_address(family: int, address: object) -> bool:
    if family == getattr(socket, "AF_UNIX", None):
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def refuse_remote_connections() -> None:
    """Make any in-process connection to another host fail loudly (loopback stays open for the
    tests' own HTTP, Ray and PostgreSQL servers). Worker subprocesses get HF_HUB_OFFLINE instead."""
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guarded(method):  # noqa: ANN001, ANN202
        def call(self: socket.socket, address: object):  # noqa: ANN202
            if not is_local_address(self.family, address):
                raise NetworkUsedInTest(f"tests must not use the network (connect to {address!r})")
            return method(self, address)

        return call

    socket.socket.connect = guarded(connect)  # type: ignore[method-assign]
    socket.socket.connect_ex = guarded(connect_ex)  # type: ignore[method-assign]


def shared_data_dir() -> Path | None:
    env = os.environ.get("VLC_HARNESS_SHARED_DATA")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data (the team's copy of upstream annotations); skip cleanly elsewhere."""
    path = shared_data_dir()
    if path is None:
        if os.environ.get("VLC_HARNESS_REQUIRE_SHARED_DATA") == "1" or in_ci():
            pytest.fail("../shared/data is required here (CI) but absent")
        pytest.skip("../shared/data is not present")
    return path


def sugarcrepe_filenames(folder: Path) -> set[str]:
    names = set()
    for path in folder.rglob("*.json"):
        if "data_unrefined" in path.parts:
            continue
        names.update(rec["filename"] for rec in json.loads(path.read_text()).values())
    return names


@pytest.fixture
def sample_root(tmp_path: Path) -> Path:
    """A data root with the SugarCrepe fixture sample and stand-in COCO images."""
    root = tmp_path / "data"
    shutil.copytree(SUGARCREPE_SAMPLE, root / "sugarcrepe")
    write_standin_images(sugarcrepe_filenames(root / "sugarcrepe"), root / "coco" / "val2017")
    return root


@pytest.fixture(scope="session")
def full_root(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root with the real SugarCrepe files and a stand-in image for each COCO file name (once per run)."""

    def build(root: Path) -> str:
        (root / "sugarcrepe").symlink_to(shared_data / "sugarcrepe")
        write_standin_images(sugarcrepe_filenames(shared_data / "sugarcrepe"), root / "coco" / "val2017")
        return str(root)

    return Path(built_once(tmp_path_factory, "full_data", build))


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A tiny open_clip model: config dict file plus a random-weight checkpoint saved locally (once per
    run, whatever the number of xdist workers: tests/once.py)."""
    from vlc_harness.testing import require

    require("open_clip")
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.openclip import OpenClip
    from vlc_harness_builtins.testing.tiny_openclip import TINY_CONFIG

    def build(folder: Path) -> dict:
        params = example_for(OpenClip, folder)
        config = folder / "tiny_config.json"
        config.write_text(json.dumps(TINY_CONFIG))
        return {"config": str(config), "checkpoint": str(params["pretrained"])}

    return built_once(tmp_path_factory, "tiny_clip", build)


@pytest.fixture
def tiny_spec(tiny_clip: dict) -> str:
    """Inline model spec of the tiny open_clip checkpoint."""
    return f"open_clip:arch=@{tiny_clip['config']},pretrained={tiny_clip['checkpoint']}"


@pytest.fixture
def faulty(monkeypatch):
    """Load tests/plugins/faulty_models.py as a plugin (for this test only)."""
    from vlc_harness.plugins import get_plugins

    monkeypatch.setenv("VLC_HARNESS_PLUGINS_DIR", str(Path(__file__).parent / "local_plugins"))
    plugins = get_plugins(reload=True)
    yield plugins
    monkeypatch.delenv("VLC_HARNESS_PLUGINS_DIR")
    get_plugins(reload=True)


@pytest.fixture(scope="session")
def postgres_server():
    """A throwaway PostgreSQL server for the session (Debian's postgresql; CI installs it)."""
    from vlc_harness.testing import in_ci, require
    from vlc_harness.testing.postgres import postgres_bin, running_postgres

    require("psycopg")
    if postgres_bin() is None:
        message = "PostgreSQL is not installed (apt-get install postgresql)"
        if in_ci():
            pytest.fail(message)
        pytest.skip(message)
    with running_postgres() as url:
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.subprocess)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store's URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite'}"
    from vlc_harness.testing.postgres import fresh_database

    return fresh_database(request.getfixturevalue("postgres_server"))


def make_side_env(env: Path) -> Path:
    """A virtualenv at ``env`` that sees this one's packages and installs into its own site-packages, so an
    editable plugin install never touches the environment the suite runs in; its interpreter."""
    import site
    import sys
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(env), "platbase": str(env)}))
    parents = [p for p in site.getsitepackages() if Path(p).is_dir()]
    purelib.joinpath("vlc_side_env.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in parents))
    return env / "bin" / "python"


@pytest.fixture(scope="session")
def side_env(tmp_path_factory) -> Path:
    """A virtualenv of :func:`make_side_env` for the session (its interpreter)."""
    return make_side_env(tmp_path_factory.mktemp("side-env") / "venv")


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` with a fixed identity and branch name; its stdout."""
    cmd = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "init.defaultBranch=main", *args]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout


def commit(repo: Path, message: str) -> None:
    """Stage everything in ``repo`` and commit it."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def registry_pull_request(folder: Path, base: str, head: str, extra: dict[str, str] | None = None) -> Path:
    """A repository ``folder/repo`` whose branch ``base`` holds the registry text ``base`` and whose ``main``
    holds a pull request on it: the registry text ``head`` and the ``extra`` files (path -> text)."""
    repo = folder / "repo"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "registry.yaml").write_text(base)
    commit(repo, "base")
    git(repo, "branch", "base")
    (repo / "registry.yaml").write_text(head)
    for name, text in (extra or {}).items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    commit(repo, "a pull request")
    return repo


def dependency_paths() -> str:
    """This environment's packages as ``.pth`` path lines for another virtualenv (which then sees them without
    running their ``.pth`` files): its site-packages, and the folders that site-packages' own ``.pth`` files add
    (a virtualenv layered on another names that one's there), never their ``import`` lines (an editable
    install's finder)."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    folders = [purelib]
    for pth in sorted(purelib.glob("*.pth")):
        for line in pth.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "import ", "import\t")) and (purelib / line).is_dir():
                folders.append((purelib / line).resolve())
    return "".join(f"{folder}\n" for folder in folders)


def copy_code(repo: Path) -> None:
    """This checkout's packages, the ``pyproject.toml`` that maps their import names and the
    ``constraints.txt`` that pins their scoring stacks, into ``repo`` (what ``plan --diff`` runs of a
    revision)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("harness", "plugins", "leaderboard"):
        shutil.copytree(REPO / folder, repo / folder, ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", repo / "pyproject.toml")
    shutil.copy(REPO / "constraints.txt", repo / "constraints.txt")  # the pins its scoring stacks come from
