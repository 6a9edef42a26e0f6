#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 60) and fails on any finding: crash, leak, sanitizer
# report, an input slower than 1 s or using over 512 MiB. Seeds: the committed corpora in
# tests/fuzz/corpus/<name>/ plus what is generated here (test models, the bundled rules and hardware
# profiles), all copied into a temporary folder so a run never grows the repository. libFuzzer writes a finding to
# the current folder (crash-*, leak-*, timeout-*, oom-*); keep reproducers under tests/fuzz/crashes/, not in
# the corpus.
# Usage: tests/fuzz/run-fuzzers.sh BUILD_DIR [SECONDS] [TARGET…]   (BUILD_DIR configured with -Dfuzzing=true)
set -euo pipefail
build=${1:?usage: run-fuzzers.sh BUILD_DIR [SECONDS] [TARGET…]}
seconds=${2:-60}
shift $(( $# < 2 ? $# : 2 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz-onnx fuzz-rules fuzz-ops fuzz-profile fuzz-tensor fuzz-whitelist fuzz-planner fuzz-session fuzz-exec)
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Committed seeds first.
for name in onnx rules ops profile tensor whitelist planner session exec; do
  mkdir -p "$work/$name"
  cp -r "$here/corpus/$name/." "$work/$name/" 2>/dev/null || true
done
# fuzz-exec reads the planner's header and grammar: the planner's seeds are graphs for it too.
for seed in "$here/corpus/planner/"*; do
  cp "$seed" "$work/exec/planner-$(basename "$seed")"
done
# Our own test models, written by the generator compiled into this build.
gen="$build/tests/tools/fw-make-test-model"
for kind in small-transformer conv chain; do
  "$gen" "$kind" "$work/onnx/$kind.onnx" 6
done
cp "$here/../../rules/"*.yaml "$work/rules/"
cp "$here/../../data/hw/"*.yaml "$work/profile/"

status=0
for target in "${targets[@]}"; do
  corpus="$work/${target#fuzz-}"
  echo "fuzz: $target for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=512 -max_len=65536 \
       -print_final_stats=1 "$corpus" > "$work/$target.log" 2>&1; then
    echo "fuzz: $target FAILED"; tail -40 "$work/$target.log"; status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$work/$target.log" || true
  fi
done
exit $status
