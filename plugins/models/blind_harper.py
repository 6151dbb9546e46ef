"""Harper's rule-based English linter as an image-blind caption score (PyPI ``harper-py``).

``params``:

* ``dialect``: ``american`` (default), ``british``, ``australian``, ``canadian`` or ``indian``.
* ``language``: the markup Harper assumes, ``plaintext`` (default; captions are plain text) or
  ``markdown`` (Harper's own default).

Scoring: ``-len(Linter(dialect).lint(caption, language=language))``, i.e. minus the number of
lint issues with Harper's default rule set and its default de-duplication of overlapping lints.
Scores are small integers, so a positive and a negative caption often tie (a tie is wrong under
strict accuracy: report ties-half too). The rules ship inside the package (a Rust extension, no
network, no weights): the package version is the weights identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from vlc_harness import hookimpl
from vlc_harness.models import Identity, TextOnlyModel
from vlc_harness.requires import Requires

PACKAGE = "harper-py"
DIALECTS = ("american", "british", "australian", "canadian", "indian")


@dataclass(frozen=True)
class HarperParams:
    """Which English dialect Harper checks against, and which markup it assumes."""

    dialect: Literal["american", "british", "australian", "canadian", "indian"] = "american"
    language: Literal["plaintext", "markdown"] = "plaintext"


class HarperLint(TextOnlyModel):
    """Image-blind: minus the number of issues Harper's grammar linter finds in the caption."""

    type_name = "blind_harper"
    requires = Requires(extras=("blind",), scoring=("harper-py",))
    Params = HarperParams

    def identify(self) -> Identity:
        """``pypi:harper-py==<version>``; the rule count is shown in the details."""
        import importlib.metadata

        version = importlib.metadata.version(PACKAGE)
        from harper import get_default_lint_config

        rules = get_default_lint_config()
        protocol = f"score_texts/minus-lint-count/{self.params.dialect}/{self.params.language}/default-rules/dedup"
        details = {"rules": len(rules), "rules_on": sum(bool(v) for v in rules.values())}
        return Identity(weights=f"pypi:{PACKAGE}=={version}", dtype="int", protocol=protocol, details=details)

    def load(self, device: str) -> None:
        """Build the linter (about a second: it compiles the curated dictionary)."""
        from harper import Dialect, Language, Linter

        self._linter = Linter(Dialect[self.params.dialect.upper()])
        self._language = Language(self.params.language)

    def lints(self, text: str) -> list[Any]:
        """Harper's lints of one caption (for inspection and tests)."""
        return list(self._linter.lint(text, language=self._language))

    def score_texts(self, texts: list[str]) -> list[float]:
        """Minus the lint count per text."""
        return [-float(len(self.lints(t))) for t in texts]


@hookimpl
def register_models(register: Any) -> None:
    """Register the Harper lint-count scorer."""
    register(HarperLint)
