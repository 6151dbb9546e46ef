"""The tiers (tests/tiers.py, registered by tests/conftest.py): the guard fails a test that starts a
Python interpreter without a marker saying so and passes a marked one or one that starts a light
program; a browser fixture's tests and the reason markers' tests are slow, so the inner loop leaves
them out."""

from __future__ import annotations

import pytest

from tests.tiers import ProcessGuard, heavy_program, mark_tiers

pytest_plugins = ["pytester"]

PLANTED = """
import subprocess, sys
import pytest

def test_starts_python_unmarked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

@pytest.mark.subprocess
def test_starts_python_marked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)

def test_starts_a_light_program():
    subprocess.run(["true"], check=True)
"""

TIERED = """
import pytest

@pytest.fixture
def browser():
    return "chromium"

def test_reads_a_page(browser):
    pass

@pytest.mark.vlc_worker_process
def test_needs_a_worker_process():
    pass

def test_plain():
    pass
"""


class Tiers:
    """The collection hook of tests/conftest.py, for a pytester session."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items):
        mark_tiers(items)


@pytest.mark.subprocess  # the planted tests start interpreters
def test_an_unmarked_test_that_starts_python_fails_and_names_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_planted=PLANTED)
    result = pytester.runpytest(
        "-p", "no:xdist", "-W", "ignore::pytest.PytestUnknownMarkWarning", plugins=[ProcessGuard()]
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*test_starts_python_unmarked started python* without a marker saying so*"])


def test_the_inner_loop_leaves_out_the_browser_and_worker_process_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_tiered=TIERED)
    args = ["-p", "no:xdist", "-W", "ignore::pytest.PytestUnknownMarkWarning", "-m", "not slow", "-v"]
    result = pytester.runpytest(*args, plugins=[Tiers()])
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*test_plain PASSED*"])
    full = pytester.runpytest("-p", "no:xdist", "-W", "ignore::pytest.PytestUnknownMarkWarning", plugins=[Tiers()])
    full.assert_outcomes(passed=3)  # a test the inner loop deselects still runs in the full suite


@pytest.mark.parametrize(
    "argv, heavy",
    [
        (["/usr/bin/python3.11", "-c", "pass"], "python3.11"),
        (["runuser", "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/initdb", "-D", "x"], "initdb"),
        ("chromedriver --port=0", "chromedriver"),
        (["git", "rev-parse", "HEAD"], None),
        (["nvidia-smi", "-L"], None),
    ],
)
def test_heavy_programs_are_known_by_name(argv, heavy):
    assert heavy_program(argv) == heavy
