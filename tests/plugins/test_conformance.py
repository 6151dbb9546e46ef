"""The shared conformance checks, run over every registered model and benchmark type."""

from vlc_harness.testing.conformance import *  # noqa: F401,F403
