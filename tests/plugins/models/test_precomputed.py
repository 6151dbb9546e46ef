"""``precomputed`` scores named by url and sha256 (a lab's submission): download, verify, cache, check."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from vlc_harness.errors import RegistryError
from vlc_harness.params import build
from vlc_harness.plugins import get_plugins
from vlc_harness.registry import parse_inline_benchmark, parse_registry_text
from vlc_harness.run.prepare import prepare
from vlc_harness.submitted import ReplaysScores, check_submitted, missing_scores
from vlc_harness_builtins.models.precomputed import Precomputed, cached_file, read_scores

SC = "sugarcrepe:version=custom"
GOOD_META = {
    "display_name": "Lab X",
    "source": "Lab X",
    "license": "CC-BY-4.0",
    "paper": "https://example.org/paper",
    "submitted": True,
}


def _scores_file(folder: Path, root: Path, drop: int = 0) -> tuple[Path, str, list[dict]]:
    """A scores file for every needed pair of the SugarCrepe sample (less the first ``drop``), its sha256."""
    plugins = get_plugins()
    entry = parse_inline_benchmark(SC, plugins)
    p = prepare(entry, plugins.benchmarks, root, None)
    lines = [
        {"benchmark": entry.id, "version": p.data_version, "instance": inst.id, "image": i, "text": j, "score": 0.5 * j}
        for inst in p.instances
        for i, j in inst.needed_pairs()
    ][drop:]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"scores-{drop}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, hashlib.sha256(path.read_bytes()).hexdigest(), lines


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A folder served over HTTP on 127.0.0.1, and its base URL; the network counts as on."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    yield folder, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _cell(vlc_run, spec: str, root: Path):
    out = vlc_run("-m", spec, "-b", SC, data_root=root)
    (cell,) = vlc_run.store().latest_cells()
    return out, cell


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("{}", "give exactly one of path (a local file) and url (with sha256)"),
        ("{path: x.jsonl, url: 'https://example.org/s.jsonl', sha256: " + "a" * 64 + "}", "give exactly one of"),
        ("{url: 'https://example.org/s.jsonl'}", "required with url: the sha256 of the scores file"),
        ("{url: 'ftp://example.org/s.jsonl', sha256: " + "a" * 64 + "}", "expected an http(s) link"),
        ("{url: 'https://example.org/s.jsonl', sha256: ABC}", "expected 64 lowercase hex digits"),
    ],
)
def test_params_name_one_file_and_a_well_formed_sha256(params: str, message: str):
    text = f"models:\n  - id: lab\n    type: precomputed\n    params: {params}\n"
    with pytest.raises(RegistryError, match="r.yaml:4: .*" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_registry_text(text, "r.yaml", get_plugins())


def test_a_submitted_file_is_downloaded_verified_cached_and_scored(vlc_run, sample_root, served):
    folder, base = served
    path, sha, lines = _scores_file(folder, sample_root)
    out, cell = _cell(vlc_run, f"precomputed:url={base}/{path.name},sha256={sha}", sample_root)
    assert out.exit_code == 0, out.output
    assert (cell.status, cell.n_failed) == ("ok", 0)
    cached = cached_file(sha)
    assert cached.read_bytes() == path.read_bytes()

    path.unlink()  # from now on only the cache has it
    model = Precomputed(build(Precomputed.Params, {"url": f"{base}/{path.name}", "sha256": sha}), None)
    assert model.identify().weights == f"sha256:{sha}"
    model.load("cpu")
    assert len(model._scores) == len(lines)


def test_a_download_with_another_sha256_is_refused_and_not_kept(vlc_run, sample_root, served):
    folder, base = served
    path, sha, _ = _scores_file(folder, sample_root)
    wrong = "0a" * 32
    out, cell = _cell(vlc_run, f"precomputed:url={base}/{path.name},sha256={wrong}", sample_root)
    assert out.exit_code == 3  # its one cell failed: nothing computed
    assert cell.status == "failed"
    assert f"has sha256 {sha}, not the {wrong} its entry names" in cell.error
    assert not cached_file(wrong).exists()
    assert not [p for p in cached_file(wrong).parent.iterdir() if p.name.startswith(".download-")]


def test_offline_and_not_downloaded_is_unavailable_with_the_reason(vlc_run, sample_root):
    sha = hashlib.sha256(b"never fetched").hexdigest()
    out, cell = _cell(vlc_run, f"precomputed:url=https://example.org/s.jsonl,sha256={sha}", sample_root)
    assert out.exit_code == 3, out.output  # its one cell is unavailable: nothing computed
    assert cell.status == "unavailable"
    assert "https://example.org/s.jsonl are not downloaded yet" in cell.error and "HF_HUB_OFFLINE" in cell.error


def test_a_local_path_is_checked_against_the_sha256_it_names(vlc_run, tmp_path, sample_root):
    path, sha, _ = _scores_file(tmp_path / "local", sample_root)
    out, cell = _cell(vlc_run, f"precomputed:path={path},sha256={'1b' * 32}", sample_root)
    assert out.exit_code == 3 and cell.status == "failed"  # its one cell failed: nothing computed
    assert f"has sha256:{sha}, not the sha256 {'1b' * 32} its entry names" in cell.error
    by_path = Precomputed(build(Precomputed.Params, {"path": str(path), "sha256": sha}), None)
    by_url = Precomputed(build(Precomputed.Params, {"url": "https://example.org/s.jsonl", "sha256": sha}), None)
    assert by_path.identify() == by_url.identify()  # the same file is the same weights, however it is named


def test_missing_scores_names_the_pairs_a_file_lacks(tmp_path, sample_root):
    path, _, lines = _scores_file(tmp_path, sample_root, drop=1)
    plugins = get_plugins()
    entry = parse_inline_benchmark(SC, plugins)
    p = prepare(entry, plugins.benchmarks, sample_root, None)
    gap = missing_scores(read_scores(path), entry.id, p.data_version, p.instances)
    assert len(gap) == 1 and gap[0][2] == p.instances[0].id
    assert missing_scores(read_scores(path), entry.id, "another-version", p.instances[:1])  # versions must match


def test_check_submitted_wants_a_url_sha256_and_who_made_the_scores():
    plugins = get_plugins()
    good = "{url: 'https://example.org/s.jsonl', sha256: " + "a" * 64 + "}"
    text = (
        f"models:\n  - id: lab\n    type: precomputed\n    params: {good}\n    meta: {json.dumps(GOOD_META)}\n"
        "  - id: local\n    type: precomputed\n    params: {path: x.jsonl}\n    meta: {submitted: true}\n"
        "  - id: computed\n    type: random\n    meta: {submitted: true, display_name: R, source: S, license: MIT}\n"
    )
    models, _ = parse_registry_text(text, "r.yaml", plugins)
    cls = plugins.models.get("precomputed").cls
    assert check_submitted(models["lab"], cls) == []
    local = check_submitted(models["local"], cls)
    assert "name the scores file by params.url and params.sha256 (submitted files are not committed)" in local
    assert "meta.license is required for submitted scores" in local
    assert "meta.homepage or meta.paper is required for submitted scores" in local
    computed = check_submitted(models["computed"], plugins.models.get("random").cls)
    assert computed[0] == "type random does not replay submitted scores (use type: precomputed)"


def test_precomputed_answers_the_core_s_replay_interface(sample_root, served):
    folder, base = served
    path, sha, lines = _scores_file(folder, sample_root)
    cls = get_plugins().models.get("precomputed").cls  # as the PR check finds it
    assert issubclass(cls, ReplaysScores)
    by_url = build(cls.Params, {"url": f"{base}/{path.name}", "sha256": sha})
    by_path = build(cls.Params, {"path": str(path)})
    assert cls.submission_problems(by_url) == []
    assert cls.submission_problems(by_path) == [
        "name the scores file by params.url and params.sha256 (submitted files are not committed)"
    ]
    scores = cls.submitted_scores(by_url)
    assert len(scores) == len(lines) and scores == read_scores(path)
    assert cached_file(sha).read_bytes() == path.read_bytes()
    with pytest.raises(ValueError, match="not the 0a0a"):
        cls.submitted_scores(build(cls.Params, {"url": f"{base}/{path.name}", "sha256": "0a" * 32}))
