"""The nightly leaderboard (``.github/workflows/nightly.yml``): install, fetch, run, render; one command,
``vlc-harness ci nightly``, that the workflow and the tests run alike.

Steps (``vlc-harness ci nightly [options]``):

1. install (:mod:`.install`): the hashed lock (``pip install --no-deps --require-hashes --only-binary
   :all: -r lock/nightly.txt``, or ``--lock PATH``), which holds every extra a built-in type declares;
   the checkout ``--no-deps --no-build-isolation`` (built with the locked setuptools); the hashed lines
   of ``lock/no-deps.txt`` for the ``--no-deps`` packages (``t2v_metrics``) and the spaCy pipeline the
   registry's types declare (each class's ``requires``: :class:`~vlc_harness.requires.Requires`); and
   the plugin packages the registry's ``plugins:`` section pins (``vlc-harness plugins install``:
   wheels with hashes only). Nothing is installed when the lock lacks an extra the types need or a
   needed line of ``lock/no-deps.txt`` lacks its hash. The registry is then read again, so that the
   types those packages register are known to the later steps. ``--no-install`` skips the step (a
   machine already set up); ``--print-install`` prints the commands and stops. Every pip command
   honours pip's own environment: ``PIP_INDEX_URL`` (a mirror), or ``PIP_NO_INDEX=1
   PIP_FIND_LINKS=DIR`` (a local folder of wheels) installs offline what the lock names when the rest is
   installed already (tests/e2e/test_third_party_pr.py does, with a lock of its own).
2. ``vlc-harness data fetch --registry R --images`` (:mod:`.fetch`): present files are kept.
   Afterwards every pinned file (a sha256 in the benchmark's data files) must be present and
   intact: one that is not fails the night and is named. Unpinned and manual-only data that could
   not be fetched is reported, and so is a benchmark whose plugin package is not installed (its
   cells are ``unavailable``).
3. ``vlc-harness run --all --require-pinned --registry R --summary FILE``: exit 1 a cell failed, 3
   nothing could be computed, 4 a cell that had a number in the store is lost, 6 an installed
   score-changing package differs from ``constraints.txt`` (refused before anything runs; README,
   "Exit status").
4. ``vlc-harness render --registry R --out SITE``: builds beside SITE and swaps it in only when no
   published cell is lost and no value changed without a fingerprint or data-version change (else
   exit 5, SITE untouched).

The night exits with the step code that wins (:func:`vlc_harness.exit_codes.worst`: for these codes the
highest, and 2, a usage error, always wins); a pinned file that could
not be fetched or a failed install counts as 1. The workflow publishes SITE when the night exits 0
or 1 (a cell failed, or a pinned file is missing, but nothing published was lost and render
accepted the site). The Markdown summary (:mod:`.markdown`) goes to ``--markdown``, else
``$GITHUB_STEP_SUMMARY``, else stdout; ``--summary FILE`` writes the night as JSON (the run's
summary included). :mod:`.steps` runs each step's command in this process; :mod:`.command` is the
click command and the night in order.
"""
