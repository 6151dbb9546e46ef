"""SugarCrepe against the real upstream files in ../shared/data (skipped where absent)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from vlc_harness.errors import DataUnavailable
from vlc_harness.params import build
from vlc_harness_builtins.benchmarks.sugarcrepe import SugarCrepe

COUNTS_7511 = {
    "add_obj": 2062,
    "add_att": 692,
    "replace_obj": 1652,
    "replace_att": 788,
    "replace_rel": 1406,
    "swap_att": 666,
    "swap_obj": 245,
}


def bench(root: Path, **params) -> SugarCrepe:
    return SugarCrepe(build(SugarCrepe.Params, params), root)


def test_upstream_counts_match_the_data_readme(shared_data):
    b = bench(shared_data, version="upstream-7511")
    b.check_data()
    instances = b.load_instances()
    assert len(instances) == 7511
    assert Counter(i.category for i in instances) == COUNTS_7511
    assert "swap_obj/108" not in {i.id for i in instances}
    assert len({i.images[0].path.name for i in instances}) == 1560


def test_paper_version_has_7512_with_swap_obj_108(shared_data):
    b = bench(shared_data)
    assert b.data_version == "paper-7512"
    b.check_data()
    instances = {i.id: i for i in b.load_instances()}
    assert len(instances) == 7512
    assert sum(1 for i in instances if i.startswith("swap_obj/")) == 246
    case = instances["swap_obj/108"]
    assert case.images[0].path.name == "000000310622.jpg"
    # texts are kept byte-for-byte as upstream has them (trailing space included)
    assert [t.strip() for t in case.texts] == [
        "A West 32nd sign under a Korea Way road sign.",
        "A Korea Way sign under a West 32nd road sign.",
    ]


def test_missing_and_altered_files_name_what_to_get(shared_data, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(shared_data / "sugarcrepe", root / "sugarcrepe", ignore=shutil.ignore_patterns("data_unrefined"))
    (root / "sugarcrepe" / "add_att.json").unlink()
    with pytest.raises(DataUnavailable) as info:
        bench(root, version="upstream-7511").check_data()
    message = str(info.value)
    assert "add_att.json" in message and "raw.githubusercontent.com/RAIVNLab/sugar-crepe" in message
    records = json.loads((root / "sugarcrepe" / "swap_att.json").read_text())
    records["0"]["caption"] = "edited"
    (root / "sugarcrepe" / "swap_att.json").write_text(json.dumps(records))
    with pytest.raises(DataUnavailable, match="swap_att.json has sha256"):
        bench(root, version="upstream-7511").check_data()
