"""An image-blind baseline with a data file, and the conformance example that builds one."""

from dataclasses import dataclass
from pathlib import Path

from vlc_harness import TextOnlyModel, hookimpl


@dataclass(frozen=True)
class WordListParams:
    """The word list: a text file, one word per line (the fingerprint hashes its content)."""

    words: str


class WordList(TextOnlyModel):
    """Scores a caption by how many of its words the list holds, never looking at the image."""

    type_name = "word_list"
    Params = WordListParams

    def load(self, device):
        self.words = set(Path(self.params.words).read_text().split())

    def score_texts(self, texts):
        return [float(sum(word in self.words for word in text.lower().split())) for text in texts]


@hookimpl
def register_models(register):
    register(WordList)


@hookimpl
def conformance_example(cls, tmp_path):
    if cls is not WordList:
        return None
    (tmp_path / "words.txt").write_text("red\nblue\nsquare\ncircle\n")
    return {"words": str(tmp_path / "words.txt")}
