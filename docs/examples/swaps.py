"""A 2 x 2 benchmark: two images, two captions that swap roles; image k goes with caption k.

Data: ``<data root>/swaps/pairs.jsonl``, one ``{"id", "category", "images": [a, b],
"captions": [a, b]}`` per line, and the images beside it.
"""

import json

from vlc_harness import (
    Benchmark,
    BenchmarkCard,
    ImageSource,
    Instance,
    Macro,
    PerCategory,
    Pool,
    RowsFile,
    TextImageGroup,
    hookimpl,
)


class Swaps(Benchmark):
    """Text, image and group scores (Winoground's), per category and their macro average."""

    type_name = "swaps"
    card = BenchmarkCard(
        title="Swaps",
        citation="Your paper, 2026.",
        headline="group",
        headline_source="ours: a made-up example, no paper reports it",
        gap_metrics=("text", "image"),
        image_pools=("swaps-squares",),  # for training-overlap marks: shared pools (COCO, VG, ...) or its own
        own_pools={"swaps-squares": Pool("Swaps' generated coloured squares")},
    )
    metrics = (TextImageGroup({"text": "text", "image": "image", "group": "group"}, (PerCategory(), Macro())),)

    def data_source(self):  # checked before a run; the data version names the file's content: v1-<sha256[:12]>
        return RowsFile(self.data_root, self.title, "swaps/pairs.jsonl", "v1", images="swaps", fields=("id", "images"))

    def load_instances(self):
        source = self.data_source()
        return [
            Instance(
                id=f"{row['category']}/{row['id']}",
                category=row["category"],
                images=tuple(ImageSource(source.images / name) for name in row["images"]),
                texts=tuple(row["captions"]),
                gold={"matches": [[0, 0], [1, 1]]},
            )
            for row in source.rows()
        ]

    @classmethod
    def conformance_example(cls, tmp_path):
        from PIL import Image

        (tmp_path / "swaps").mkdir()
        rows = []
        for k, (a, b) in enumerate([("red", "blue"), ("green", "yellow"), ("white", "black")]):
            for colour in (a, b):
                Image.new("RGB", (16, 16), colour).save(tmp_path / "swaps" / f"{colour}.png")
            texts = [f"a {a} square left of a {b} one", f"a {b} square left of a {a} one"]
            rows.append({"id": k, "category": "colour", "images": [f"{a}.png", f"{b}.png"], "captions": texts})
        (tmp_path / "swaps" / "pairs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
        return {}, tmp_path


@hookimpl
def register_benchmarks(register):
    register(Swaps)
