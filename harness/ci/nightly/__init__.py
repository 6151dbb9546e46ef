"""The nightly leaderboard (``.github/workflows/nightly.yml``): one command, ``vlc-harness ci nightly``, that the
workflow's three jobs and the tests run alike, each job its part (``--steps run|render|verify``; all three, in
order, by default).

The run part (the ``run`` job, on the self-hosted GPU runner, which loads plugin code):

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
   score-changing package differs from ``constraints.txt`` (refused before anything runs), 8 the
   ``--deadline`` came first (README, "Exit status").
4. ``vlc-harness board export --registry R --out BUNDLE`` (:mod:`.board`): everything render reads, as
   one file (docs/board.md, "The board bundle"); the workflow uploads it.

The render part (the ``render`` job, on a GitHub-hosted runner with no plugin package installed):
``python -m vlc_leaderboard.render_bundle --bundle BUNDLE --out SITE --previous PUBLISHED`` in a process of
its own, which loads no plugin. It builds beside SITE and swaps it in only when no published cell is lost
and no value changed without a fingerprint or data-version change (else exit 5, SITE untouched);
``--previous`` is the published site (its ``manifest.json`` and ``releases/``), by default SITE as it was.

The verify part (the ``deploy`` job, before ``deploy-pages``): ``python -m vlc_leaderboard.verify_site SITE
--against PUBLISHED``, the deploy check (exit 9 on a refused site).

The night exits with the step code that wins (:func:`vlc_harness.exit_codes.worst`; 2, a usage error,
always wins); a pinned file that could not be fetched counts as 1; a step that leaves nothing to render
(registry, install, plugins, fetch, run) stops the night with 7 (:mod:`.stops`). Run as one command, render
follows the run part unless it stopped or the export failed, and verify follows an accepted render; the
workflow renders only after a run part that exits 0, 1 or 8 (a deadline: the complete cells) and deploys
only a site render accepted and the check passed. The Markdown summary (:mod:`.markdown`) goes
to ``--markdown``, else ``$GITHUB_STEP_SUMMARY``, else stdout; ``--summary FILE`` writes the night as JSON
(the run's summary included). :mod:`.steps` runs a ``vlc-harness`` command in this process; :mod:`.board`
the board's steps; :mod:`.command` is the click command and the night in order.
"""
