"""``python -m vlc_harness`` is ``vlc-harness``."""

from vlc_harness.cli import main

main()
