#!/usr/bin/env bash
# Prepare the GPU check of issue 15 here, where pip reaches the package registry: the wheels the
# device image lacks (see /work/.library/device/KINDS.md), this project's own wheel, and the
# SugarCrepe annotations, in two git-ignored folders that the device call carries:
#
#   bash bench/device/prepare.sh            # then: run(command="bash bench/device/run.sh",
#                                           #           carry=[".whl", ".bench_data"], timeout_s=540)
# For a CPU rehearsal here: WHEELS=/tmp/whl-local PY_VERSION=3.x bash bench/device/prepare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
wheels="${WHEELS:-.whl}"
for ignored in /.whl/ /.bench_data/; do
    grep -qxF "$ignored" .git/info/exclude 2>/dev/null || echo "$ignored" >> .git/info/exclude
done
rm -rf "$wheels" && mkdir -p "$wheels" .bench_data
# the device runs CPython 3.12 on x86-64 with torch, torchvision, transformers, timm, numpy, pillow,
# click, pluggy, jinja2, pyyaml, tqdm, requests, scikit-learn and huggingface_hub already installed
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "${PY_VERSION:-3.12}" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$wheels" "SQLAlchemy==2.1.9" "platformdirs==4.14.8" "open_clip_torch==3.3.0" "ftfy==6.3.1" \
    "wcwidth==0.9.4" "clip-benchmark==1.6.2"
had_build=$([ -d build ] && echo yes || true)
python3 -m pip wheel -q --no-deps --no-build-isolation -w "$wheels" .
[ -n "$had_build" ] || rm -rf build  # setuptools' scratch copy, not left in the checkout
annotations="${1:-../shared/data/sugarcrepe}"
rm -rf .bench_data/sugarcrepe && cp -r "$annotations" .bench_data/sugarcrepe
du -sh "$wheels" .bench_data
