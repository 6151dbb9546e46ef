"""Type-check the repository's packages with mypy: ``python scripts/typecheck.py [MYPY OPTION ...]``.

mypy reads its settings from ``pyproject.toml``'s ``[tool.mypy]``, and checks every package that
``[tool.setuptools] package-dir`` names (``vlc_harness``, ``vlc_harness_builtins``, ``vlc_leaderboard``).
Those import names are not the folder names (``harness/``, ``plugins/``, ``leaderboard/``), and the
editable install maps them with an import hook that mypy does not run; so this script links each
import name to its folder, in a folder of links inside mypy's cache folder (``--cache-dir``, default
``.mypy_cache``: the same paths on every run, which the cached results name), puts that folder on
mypy's search path (``MYPYPATH``, which mypy adds to ``mypy_path``) and runs ``python -m mypy -p NAME
...`` from the repository. The paths mypy prints are rewritten to the repository's
(``harness/run/x.py:12``).

Options after the script name go to mypy as they are (``--cache-dir DIR``, ``--no-incremental``);
the exit status is mypy's (0: no error). It runs in the environment CI installs (``.[all,dev]``):
third-party types come from the installed packages, so a smaller environment can report more.
CI's slow tier (``tests/repo/test_typecheck.py``), the PR check's lint step and the pre-commit
hook all run this command.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 (tomli is a dependency there)
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]


def package_dirs(repo: Path) -> dict[str, str]:
    """``[tool.setuptools] package-dir`` of ``repo``'s pyproject.toml: import name -> folder."""
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    dirs = pyproject.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    if not dirs or "" in dirs:
        raise SystemExit(f"{repo / 'pyproject.toml'}: [tool.setuptools] package-dir names no package folder")
    return dict(dirs)


LINKS = "vlc-typecheck-links"
"""The folder of links, inside mypy's cache folder."""


def links_folder(repo: Path, mypy_args: list[str]) -> Path:
    """Where the links go: ``LINKS`` inside the cache folder that ``mypy_args`` name (default: mypy's)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--cache-dir", default=".mypy_cache")
    cache = Path(parser.parse_known_args(mypy_args)[0].cache_dir)
    return (repo / cache if not cache.is_absolute() else cache) / LINKS


def link_packages(repo: Path, dirs: dict[str, str], into: Path) -> None:
    """``into/NAME`` -> ``repo/FOLDER`` for each package: the tree mypy would see if installed. A link
    that exists is replaced at once (``os.replace``), so that two runs never see a missing one."""
    into.mkdir(parents=True, exist_ok=True)
    for name, folder in dirs.items():
        target = (repo / folder).resolve()
        if not (target / "__init__.py").is_file() and not (target / "__init__.pyi").is_file():
            raise SystemExit(f"package-dir maps {name} to {folder}/, which is not a package")
        link = into / name
        if link.is_symlink() and link.resolve() == target:
            continue
        fresh = into / f".{name}.{os.getpid()}"
        fresh.symlink_to(target, target_is_directory=True)
        os.replace(fresh, link)


def repo_paths(text: str, repo: Path, links: Path, dirs: dict[str, str]) -> str:
    """mypy's output with ``LINKS/NAME/...`` (absolute, or relative to the repository) written as the
    repository path ``FOLDER/...``."""
    prefixes = [links]
    if links.is_relative_to(repo):
        prefixes.append(links.relative_to(repo))
    for prefix in prefixes:
        for name, folder in dirs.items():
            text = text.replace(f"{prefix / name}{os.sep}", f"{Path(folder).as_posix()}/")
    return text


def typecheck(repo: Path, mypy_args: list[str]) -> int:
    """Run mypy over ``repo``'s packages (linked by import name); print its report; return its exit status."""
    dirs = package_dirs(repo)
    links = links_folder(repo, mypy_args)
    link_packages(repo, dirs, links)
    env = {**os.environ, "MYPYPATH": os.pathsep.join(p for p in (str(links), os.environ.get("MYPYPATH")) if p)}
    argv = [sys.executable, "-m", "mypy", "--config-file", str(repo / "pyproject.toml"), *mypy_args]
    for name in dirs:
        argv += ["-p", name]
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True)
    if "No module named mypy" in out.stderr:
        sys.stderr.write("mypy is not installed here: pip install -c constraints.txt -e '.[dev]'\n")
        return 2
    sys.stdout.write(repo_paths(out.stdout, repo, links, dirs))
    sys.stderr.write(repo_paths(out.stderr, repo, links, dirs))
    return out.returncode


if __name__ == "__main__":
    sys.exit(typecheck(REPO, sys.argv[1:]))
