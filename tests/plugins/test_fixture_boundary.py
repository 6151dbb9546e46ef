"""Test code stays out of production, and the built-ins' conformance examples come from their testing
plugin, registered through the ``vlc_harness_testing`` entry point as a third party's would be.

That no plugin or board module imports ``vlc_harness.testing`` or the built-ins' testing package (at
any depth, inside functions and under ``TYPE_CHECKING`` too) is an import contract (``no-test-code``
in pyproject.toml), and that the plugins hold no import loop is ``no-cycles`` (import-cycles.toml):
``tests/repo/test_architecture.py`` runs both, ``test_architecture_guard.py`` sees them fail.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys

import pytest

TESTING_PACKAGES = ("vlc_harness.testing", "vlc_harness_builtins.testing")
"""Test code: the shipped testing helpers and the built-ins' tiny checkpoints and example data."""
OWN_EXAMPLES = {"random", "shapes_clip", "t2v_metrics"}
"""Built-in model types whose example is on the class: params only, no files (``t2v_metrics``: none)."""


def is_testing(name: str) -> bool:
    """True for a module of a testing package (or the package itself)."""
    return any(name == t or name.startswith(t + ".") for t in TESTING_PACKAGES)


# -- the rules on this checkout ----------------------------------------------------------------------


def test_the_builtins_register_their_testing_plugin_through_the_entry_point():
    found = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="vlc_harness_testing")}
    assert found.get("builtin") == "vlc_harness_builtins.testing.examples", found
    import vlc_harness_builtins

    assert vlc_harness_builtins.vlc_harness_plugins, "no built-in plugin module found"
    assert not [m for m in vlc_harness_builtins.vlc_harness_plugins if is_testing(m)]


def test_every_builtin_type_gets_its_example_from_the_testing_plugin(vlc_plugins):
    from vlc_harness_builtins.testing.examples import builtin_example

    for registrar in (vlc_plugins.models, vlc_plugins.benchmarks):
        for name, reg in registrar.entries.items():
            if not reg.cls.__module__.startswith("vlc_harness_builtins."):
                continue
            if name in OWN_EXAMPLES:
                assert "conformance_example" in vars(reg.cls), name
                assert builtin_example(reg.cls) is None, name
            else:
                found = builtin_example(reg.cls)
                assert found is not None and found[0] is reg.cls, name


def test_each_benchmark_example_is_declared_beside_its_test_data_and_only_once():
    from vlc_harness_builtins.testing import benchmark_examples as declared
    from vlc_harness_builtins.testing.benchmark_examples import benchmark_example, benchmark_examples

    found = benchmark_examples()
    assert all(build.__module__.startswith("vlc_harness_builtins.testing.data_") for build in found.values())
    assert found["whatsup"].__module__ == "vlc_harness_builtins.testing.data_whatsup"

    def again(cls, tmp_path):
        """A second example of a type that has one."""

    with pytest.raises(ValueError, match=r"'whatsup' has two conformance examples: .*data_whatsup\.example and"):
        benchmark_example("brand_new", "whatsup")(again)
    assert "brand_new" not in declared._DECLARED and declared._DECLARED["whatsup"] is found["whatsup"]


def test_a_subclass_inherits_the_builtin_example_unless_it_has_its_own(tmp_path):
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.precomputed import Precomputed

    class Replay(Precomputed):
        """Inherits the example."""

    class Own(Precomputed):
        """Brings its own."""

        @classmethod
        def conformance_example(cls, tmp_path):
            return {"path": "own.jsonl"}

    assert example_for(Replay, tmp_path)["path"] == str(tmp_path / "precomputed_example.jsonl")
    assert example_for(Own, tmp_path) == {"path": "own.jsonl"}


@pytest.mark.subprocess
def test_a_run_never_imports_test_code():
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom vlc_harness.cli import build_cli\n"
        "r = CliRunner().invoke(build_cli(), ['plugins'])\nassert r.exit_code == 0, r.output\n"
        "from vlc_harness.plugins import get_plugins\n"
        "[e.cls for r in (get_plugins().models, get_plugins().benchmarks) for e in r.entries.values()]\n"
        f"print(','.join(sorted(m for m in sys.modules if m == 'pytest' or m.startswith({TESTING_PACKAGES!r}))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"listing the plugins imported {out.stdout.strip()}"
