"""The leaderboard: tables from the store's cells, the ``show`` command, the static site.

It is a built-in plugin: its commands reach the ``vlc-harness`` group through the
``register_commands`` hook, so the core never imports it.
"""

from __future__ import annotations

vlc_harness_plugins = ["vlc_leaderboard.show", "vlc_leaderboard.render", "vlc_leaderboard.bundle_command"]
