#!/usr/bin/env bash
# The GPU check of issue 15, on the device machine (prepared by bench/device/prepare.sh): install
# the carried wheels, then bench/sugarcrepe_speed.py with every timing in the same run, the device
# named with each number. Arguments replace the defaults below (a CPU rehearsal here:
# `WHEELS=/tmp/whl-local bash bench/device/run.sh --device cpu --arch ViT-B-32 --skip-official
# --skip-clip-benchmark`, after preparing those wheels for this machine's Python).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/vlc-device-out}"
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "${WHEELS:-.whl}"/*.whl \
    || exit 1
python3 -m compileall -q -j 0 /tmp/site > /dev/null  # as pip would on a normal install: cold runs read bytecode
# CLIP_benchmark imports pycocoevalcap's scorers at import time, for captioning metrics only: an
# import-only stand-in (no scorer runs in image_caption_selection) lets it start without the package
standin=/tmp/standin/pycocoevalcap
for module in tokenizer/ptbtokenizer:PTBTokenizer bleu/bleu:Bleu meteor/meteor:Meteor rouge/rouge:Rouge \
    cider/cider:Cider spice/spice:Spice; do
    path="${module%%:*}"
    mkdir -p "$standin/$(dirname "$path")"
    touch "$standin/__init__.py" "$standin/$(dirname "$path")/__init__.py"
    printf 'class %s:\n    """Import-only stand-in (never called by image_caption_selection)."""\n' "${module##*:}" \
        > "$standin/$path.py"
done
export PYTHONPATH="/tmp/site:/tmp/standin" PATH="/tmp/site/bin:$PATH" HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
if [ "$#" -eq 0 ]; then
    set -- --arch ViT-B-32 --arch ViT-L-14 --precision fp32 --precision bf16
fi
timeout "${BENCH_TIMEOUT:-480}" python3 bench/sugarcrepe_speed.py --annotations .bench_data/sugarcrepe --work /tmp/vlc-bench "$@" 2>&1 \
    | tee "$out/sugarcrepe_speed.log"
status=${PIPESTATUS[0]}
cp /tmp/vlc-bench/results.json "$out/" 2> /dev/null
exit "$status"
