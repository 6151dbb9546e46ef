#!/usr/bin/env bash
# The published site, for the nightly's render and deploy jobs (docs/maintainers.md, "Where the published site
# comes from"): the github-pages artifact of the newest nightly run on main whose deploy job succeeded (the site
# GitHub Pages serves now), unpacked into DIR. It holds the manifest.json render and the deploy check compare
# with and the releases/ render carries over. Writes `found=true` or `found=false` to $GITHUB_OUTPUT.
#
# Usage: previous_site.sh DIR   (env: GH_TOKEN with actions: read, GITHUB_REPOSITORY, FIRST=true|false)
#
# No deployed run, or its artifact gone (expired, deleted), fails the job: rendering without the published
# site would publish a board that lost every frozen release. Only FIRST=true (the workflow_dispatch input
# first_publication) lets a night go on with nothing to compare with, and only when no run ever deployed.
set -euo pipefail
out="$1"
runs=$(gh run list --repo "$GITHUB_REPOSITORY" --workflow nightly.yml --branch main --limit 200 \
  --json databaseId --jq '.[].databaseId')
for run_id in $runs; do
  deployed=$(gh run view "$run_id" --repo "$GITHUB_REPOSITORY" --json jobs \
    --jq '[.jobs[] | select(.name == "deploy" and .conclusion == "success")] | length')
  if [ "$deployed" != "0" ]; then
    mkdir -p "$out" "$RUNNER_TEMP/previous-artifact"
    gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name github-pages --dir "$RUNNER_TEMP/previous-artifact"
    tar -xf "$RUNNER_TEMP/previous-artifact/artifact.tar" -C "$out"
    test -f "$out/manifest.json" || { echo "run $run_id's site holds no manifest.json" >&2; exit 1; }
    echo "the published site: nightly run $run_id's github-pages artifact"
    echo "found=true" >> "$GITHUB_OUTPUT"
    exit 0
  fi
done
if [ "${FIRST:-false}" != "true" ]; then
  echo "no nightly run on main ever deployed (or none of the last 200): nothing to compare with and no releases" \
    "to carry; run the workflow by hand with first_publication only if no site was ever published" >&2
  exit 1
fi
echo "first publication: no published site"
echo "found=false" >> "$GITHUB_OUTPUT"
