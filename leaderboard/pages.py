"""What the benchmark and model pages show, as data for their templates.

A benchmark page leads with its ranked headline table and the labelled I2T-against-T2I plot, then a
table of contents, the per-category tables (sorted, with humans, chance and the papers' numbers),
the benchmark's metadata and BibTeX, and the rules last. A model page reads like a model card:
description, links, license, parameters, the upstream evaluation it reproduces and what differs
from it, training-data pools with their overlap marks, a rank summary per benchmark, then each
cell's metrics and provenance.

The benchmark page is :mod:`vlc_leaderboard.benchmark_page`, the model page
:mod:`vlc_leaderboard.model_page`; the site takes both contexts from here.
"""

from __future__ import annotations

from vlc_leaderboard.benchmark_page import benchmark_context, identical_text_counts
from vlc_leaderboard.model_page import model_context, model_facts, params_text

__all__ = ["benchmark_context", "identical_text_counts", "model_context", "model_facts", "params_text"]
