#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) on a seed corpus made from the test models, and
# fails on any finding: crash, leak, sanitizer report, an input slower than 1 s or using over 512 MiB.
# Usage: tests/fuzz/run-fuzzers.sh BUILD_DIR [SECONDS]   (BUILD_DIR configured with -Dfuzzing=true)
set -euo pipefail
build=${1:?usage: run-fuzzers.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seeds: our own test models, written by a normal (non-fuzzing) helper build if there is one, else by the
# generator compiled into this build.
gen="$build/tests/tools/fw-make-test-model"
mkdir -p "$work/onnx"
for kind in small-transformer conv chain; do
  "$gen" "$kind" "$work/onnx/$kind.onnx" 6
done
cp -r "$here/corpus/onnx/." "$work/onnx/" 2>/dev/null || true
mkdir -p "$work/rules" "$work/profile"
cp "$here/../../rules/"*.yaml "$work/rules/"
cp "$here/../../data/hw/"*.yaml "$work/profile/"

status=0
for target in fuzz-onnx fuzz-rules fuzz-profile; do
  corpus="$work/${target#fuzz-}"
  echo "fuzz: $target for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=512 -max_len=65536 \
       -print_final_stats=1 "$corpus" > "$work/$target.log" 2>&1; then
    echo "fuzz: $target FAILED"; tail -40 "$work/$target.log"; status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$target.log" || true
  fi
done
exit $status
