"""The pull-request check (``.github/workflows/pr.yml``): each step writes a Markdown section to the
job summary (``$GITHUB_STEP_SUMMARY``, else stdout) and exits 1 when it fails.

Steps (``vlc-harness ci pr-check [options] STEP...``; ``all`` runs every one), a module each:

* ``lint`` (:mod:`.lint`): ``ruff check`` and ``ruff format --check``.
* ``registry`` (:mod:`.registry`): every registry file loads (``registry.yaml``, ``examples/*.yaml``),
  and every entry with ``meta.submitted: true`` replays scores named by url and sha256, with its metadata.
* ``conformance`` (:mod:`.conformance`): the shipped conformance checks (``pytest --vlc-types``) for
  the model and benchmark types the PR brings in: those defined in files the PR changes (a type
  counts when a class of its MRO lives in a changed file; an in-tree plugin module added under
  ``plugins/`` is such a file), and those provided by a package the PR newly names or re-pins in the
  registry's ``plugins:`` section (installed beforehand by ``vlc-harness plugins install``).
* ``plan`` (:mod:`.plan`): ``vlc-harness plan --diff BASE --all``: cells the PR adds (first) and cells
  whose fingerprint changes; cells whose change cannot be known here (offline) are counted in one line.
* ``smoke`` (:mod:`.smoke`): ``vlc-harness run --limit 5`` on CPU, on the generated ``shapes``
  benchmark (50 scenes), of each model entry the PR adds whose weights are at most 300 MB (how the
  size is known: docs/pr_check.md). A model or benchmark entry the PR adds whose plugin package this
  job did not install fails it.
* ``submitted`` (:mod:`.submitted`): each submitted entry the PR adds or changes: its file downloads
  and matches its sha256, and it scores every needed pair of every benchmark it claims.

What every step reads is a :class:`~.context.Context`; :mod:`.command` is the click command.
Runs offline too (tests): what needs the network says so and is skipped, never guessed.
"""
