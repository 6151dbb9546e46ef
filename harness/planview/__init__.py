"""``vlc-harness plan``, the dry run of ``run``, as one package: the command (:mod:`.command`) and
plain functions behind it.

:mod:`.grid` plans every cell as a run would (the run path's own planner, :mod:`vlc_harness.run.plan`,
over a store :mod:`.store` opens read-only), with each model's identity and each benchmark's
(:mod:`.identity`), the GPU time (:mod:`vlc_harness.gpucost`, :mod:`.gpu`) and the cost of paid requests;
:mod:`.document` is its ``--format json`` document, :mod:`.table` its text. ``--diff REF`` has REF's
own code print REF's document (:mod:`.revision`) and compares the two (:mod:`.diff`).
"""
