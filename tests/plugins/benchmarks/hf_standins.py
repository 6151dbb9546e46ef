"""Stand-ins for the Hugging Face ``datasets`` module, so benchmark exports are tested offline."""

from __future__ import annotations

import types
from typing import Any


class StandInSplit:
    """What ``datasets.load_dataset(...)`` returns, as far as the exports read it."""

    def __init__(self, rows: list[dict]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, k: int) -> dict:
        return self.rows[k]

    def cast_column(self, column: str, feature: object) -> StandInSplit:
        return self


def stand_in_datasets(**functions: Any) -> types.ModuleType:
    """A ``datasets`` module with ``Image`` and ``disable_progress_bars``, plus ``functions``
    (the loader the export calls: ``load_dataset`` or ``load_from_disk``)."""
    module = types.ModuleType("datasets")
    module.Image = lambda decode=True: ("Image", decode)
    module.disable_progress_bars = lambda: None
    for name, function in functions.items():
        setattr(module, name, function)
    return module
