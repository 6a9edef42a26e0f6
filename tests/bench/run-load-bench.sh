#!/usr/bin/env bash
# Load benchmark: the three loading bars of the design, measured as ratios within one run.
#
#   tests/bench/run-load-bench.sh BUILD_DIR          by hand, after `ninja -C BUILD_DIR`
#   meson test -C BUILD_DIR --benchmark -v           the same, registered with meson's benchmark()
#
# Bars (each line of the table ends in PASS or FAIL; the exit status is 1 when any bar fails):
#   1. Weights are never copied: loading + inferring vit_b_16.onnx (~350 MB of inline weights) raises the
#      process's peak RSS (VmHWM, reset before the load) by less than 10% of the file size. The detail splits
#      it into private memory (where a copy of the weights would show) and pages of the file mapping (shared
#      page cache; on kernels with large folios each byte touched inside the mapping maps 2 MiB).
#   2. Load + infer of vit_b_16 takes less than 0.1x the time ONNX Runtime needs to create a session for it
#      with graph optimisations disabled (tests/ort/ort-session-time.js), both medians of 5, same machine,
#      same run, file in the page cache for both.
#   3. A 100,000-node graph (fw-make-test-model long-chain 100000) loads and infers in under 1 s. Shown
#      beside it, for scale: the time to read the same file into memory (g_file_get_contents, the floor for
#      any reader that copies its input) and ONNX Runtime's session creation for the same file.
#
# Needs: node and tests/ort/node_modules (`npm ci --ignore-scripts` in tests/ort), and vit_b_16.onnx: taken
# from $FW_REAL_MODELS_DIR, or BUILD_DIR/tests/real/models (the real suite's cache), or exported there with
# tests/real/export-models.py (python3-torch). Missing prerequisites: exit 77 (skip), or 1 when CI
# is set. Environment: NODE (node binary), FW_BENCH_REPEAT (default 5).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: run-load-bench.sh BUILD_DIR}" && pwd)
NODE=${NODE:-node}
REPEAT=${FW_BENCH_REPEAT:-5}
ORT_DIR=${FW_ORT_DIR:-$src/tests/ort}
EXPORTER=$src/tests/real/export-models.py
CACHE=${FW_MODEL_CACHE:-$build/tests/real/models}
BENCH=$build/tests/bench/fw-bench-load
MAKE_MODEL=$build/tests/tools/fw-make-test-model

die() { echo "FAIL: load benchmark: $*" >&2; exit 1; }
missing() {
  [[ -n "${CI:-}" ]] && die "missing prerequisite in CI: $*"
  echo "SKIP: load benchmark: $*" >&2
  exit 77
}

[[ -x $BENCH ]] || die "$BENCH not built (ninja -C $build)"
[[ -x $MAKE_MODEL ]] || die "$MAKE_MODEL not built (ninja -C $build)"
command -v "$NODE" >/dev/null 2>&1 || missing "node ('$NODE') not found"
[[ -d $ORT_DIR/node_modules/onnxruntime-node ]] ||
  missing "onnxruntime-node is not installed; run: (cd '$ORT_DIR' && npm ci --ignore-scripts)"

# --- vit_b_16.onnx: pre-exported, cached, or exported now (same cache and lock as tests/real) ---
vit=
if [[ -n "${FW_REAL_MODELS_DIR:-}" && -s $FW_REAL_MODELS_DIR/vit_b_16.onnx ]]; then
  vit=$FW_REAL_MODELS_DIR/vit_b_16.onnx
elif [[ -s $CACHE/vit_b_16.onnx ]]; then
  vit=$CACHE/vit_b_16.onnx
else
  /usr/bin/python3 -c 'import torch, torchvision, onnx' 2>/dev/null ||
    missing "no vit_b_16.onnx and python3-torch/torchvision/onnx are not installed to export it"
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.export.lock"
  flock 9
  if [[ ! -s $CACHE/vit_b_16.onnx ]]; then
    tmp=$(mktemp -d "$CACHE/.export-vit_b_16.XXXXXX")
    echo "exporting vit_b_16 into $CACHE (first run only)..." >&2
    /usr/bin/python3 "$EXPORTER" "$tmp" vit_b_16 >"$tmp.log" 2>&1 ||
      { cat "$tmp.log" >&2; rm -rf "$tmp" "$tmp.log"; die "export of vit_b_16 failed"; }
    mv -f "$tmp/vit_b_16.onnx" "$CACHE/vit_b_16.onnx"
    rm -rf "$tmp" "$tmp.log"
  fi
  flock -u 9
  exec 9>&-
  vit=$CACHE/vit_b_16.onnx
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/fw-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$MAKE_MODEL" long-chain "$work/long-chain.onnx" 100000 || die "fw-make-test-model long-chain 100000 failed"

# Warm the page cache for both readers, so neither pays for the disk.
cat "$vit" "$work/long-chain.onnx" >/dev/null

"$BENCH" "$vit" --repeat "$REPEAT" >"$work/vit.json" || die "fw-bench-load on $vit failed"
"$NODE" "$ORT_DIR/ort-session-time.js" "$vit" --repeat "$REPEAT" >"$work/vit-ort.json" ||
  die "ort-session-time.js on $vit failed"
"$BENCH" "$work/long-chain.onnx" --repeat "$REPEAT" >"$work/chain.json" || die "fw-bench-load on long-chain failed"
"$NODE" "$ORT_DIR/ort-session-time.js" "$work/long-chain.onnx" --repeat 3 >"$work/chain-ort.json" ||
  die "ort-session-time.js on long-chain failed"

"$NODE" - "$work" "$vit" <<'EOF'
const fs = require('fs');
const [work, vitPath] = process.argv.slice(2);
const rd = (f) => JSON.parse(fs.readFileSync(`${work}/${f}`, 'utf8'));
const vit = rd('vit.json'), vitOrt = rd('vit-ort.json'), chain = rd('chain.json'), chainOrt = rd('chain-ort.json');
const rows = [];
let fail = false;
const bar = (name, figure, detail, ok) => { rows.push([name, figure, detail, ok ? 'PASS' : 'FAIL']); if (!ok) fail = true; };
const ms = (s) => `${(s * 1000).toFixed(1)} ms`;
const mb = (kb) => `${(kb / 1024).toFixed(1)} MiB`;

// Sanity: the benchmark measured a real load, not an early exit.
if (vit.nodes === 0 || chain.nodes < 100000) {
  console.error(`FAIL: load benchmark: inference visited ${vit.nodes} nodes of vit_b_16 and ${chain.nodes} of the long chain`);
  process.exit(1);
}

// The bar is the literal one: peak RSS growth (VmHWM reset before the load), file-backed pages of the model's
// mapping included. Those pages are shared page cache, not copies, but on kernels with large folios (ext4,
// Linux >= 6.x) every byte the reader touches inside the mapping maps a whole 2 MiB folio, so a reader that
// parses the structure in place shows up here; the private (anonymous) part is shown apart: a copy of the
// weights would be there.
const frac = (vit.peak_added_kb * 1024) / vit.file_bytes;
const privKb = vit.peak_added_kb - Math.max(0, vit.file_added_kb);
bar('weights not copied (vit_b_16)', `${(frac * 100).toFixed(2)}% of file`,
    `peak RSS +${mb(vit.peak_added_kb)} for ${(vit.file_bytes / 1e6).toFixed(0)} MB: private +${mb(privKb)}, ` +
    `mapped file pages +${mb(vit.file_added_kb)}${vit.hwm_reset ? '' : ' (VmHWM not reset: an upper bound)'}`,
    frac < 0.10);
const r = vit.median_s / vitOrt.median_s;
bar('load+infer vs ORT session (vit_b_16)', `${r.toFixed(3)}x`,
    `ours ${ms(vit.median_s)}, ORT create (opt disabled, 1 thread) ${ms(vitOrt.median_s)}`, r < 0.1);
bar('100k-node graph load+infer', `${chain.median_s.toFixed(3)} s`,
    `${chain.nodes} nodes; ${(chain.median_s / chain.read_median_s).toFixed(1)}x reading the ` +
    `${(chain.file_bytes / 1e6).toFixed(1)} MB file (${ms(chain.read_median_s)}), ` +
    `${(chain.median_s / chainOrt.median_s).toFixed(3)}x ORT session creation (${ms(chainOrt.median_s)})`,
    chain.median_s < 1.0);

const w = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length), ['bar', 'figure', 'detail'][i].length));
const line = (c) => `${c[0].padEnd(w[0])}  ${c[1].padStart(w[1])}  ${c[2].padEnd(w[2])}  ${c[3] || ''}`;
console.log(line(['bar', 'figure', 'detail', 'result']));
for (const row of rows) console.log(line(row));
console.log(`vit_b_16: ${vitPath}; vit first load ${ms(vit.first_s)}; ` +
            `medians of ${vit.runs_s.length} (ORT ${vitOrt.runs.length}); inference static ${vit.static_values}/${vit.values} values`);
process.exit(fail ? 1 : 0);
EOF
