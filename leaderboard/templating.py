"""The Jinja2 environment the site renders with: autoescape on (every string is untrusted), strict
undefined, the number and metric filters, and the Content-Security-Policy every page carries.

Templates can be overridden per file from extra folders (``--templates DIR`` or
``$VLC_HARNESS_TEMPLATES``), searched before the built-in ones.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vlc_harness.results import tie_rule_words
from vlc_harness.wording import plural
from vlc_leaderboard.fmt import (
    DIFF_NOTE,
    DIFF_TITLE,
    LOWER_IS_BETTER,
    SORT_ORDERS,
    metric_diff,
    metric_title,
    metric_tooltip,
    metric_value,
    number,
    pct,
    slug,
)
from vlc_leaderboard.site_policy import CSP
from vlc_leaderboard.svg import gap_bar, scatter

__all__ = ["CSP", "ENV_TEMPLATES", "TEMPLATES", "environment"]

TEMPLATES = Path(__file__).with_name("templates")
ENV_TEMPLATES = "VLC_HARNESS_TEMPLATES"


def environment(extra_templates: list[Path] | None = None) -> Any:
    """The Jinja2 environment: autoescape for every template, extra template folders first."""
    import jinja2

    folders = [*(extra_templates or [])]
    if os.environ.get(ENV_TEMPLATES):
        folders += [Path(p) for p in os.environ[ENV_TEMPLATES].split(os.pathsep) if p]
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([*map(str, folders), str(TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = pct
    env.filters["slug"] = slug
    env.filters["metric_title"] = metric_title
    env.filters["metric_value"] = metric_value
    env.filters["metric_diff"] = metric_diff
    env.filters["number"] = number
    env.filters["tie_rule"] = tie_rule_words
    env.globals.update(
        gap_bar=gap_bar,
        scatter=scatter,
        metric_tooltip=metric_tooltip,
        csp=CSP,
        plural=plural,
        lower_is_better=LOWER_IS_BETTER,
        sort_orders=SORT_ORDERS,
        diff_note=DIFF_NOTE,
        diff_title=DIFF_TITLE,
    )
    return env
