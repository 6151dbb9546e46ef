"""``python -m harness`` is ``vlc-harness``."""

from harness.cli import main

main()
