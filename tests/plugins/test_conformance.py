"""The shared conformance checks, run over every registered model and benchmark type."""

import pytest

from vlc_harness.testing.conformance import *  # noqa: F401,F403
from vlc_harness.testing.conformance import test_plugin_module_import_is_light

# it starts a fresh interpreter (one for every model type: vlc_harness.testing.light_imports)
test_plugin_module_import_is_light = pytest.mark.subprocess(test_plugin_module_import_is_light)
