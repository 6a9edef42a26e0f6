#!/usr/bin/env node
// Compares two dumps of the same model's outputs (i.bin files: raw little-endian bytes), ONNX Runtime's
// (ort-run.js --dump) against ours (fw-exec-run --dump), element by element.
//
//   node compare-outputs.js ORT.json ORT_DIR OURS.json OURS_DIR [--rel R] [--abs A] [--scale S]
//
// ORT.json / OURS.json are the tools' stdout ({outputs:[{name,type,dims}]}). An element passes when
// |ours − ort| <= abs + rel × |ort| (float32 defaults: rel 1e-4, abs 1e-5; float16 and bfloat16 are decoded
// and compared the same way, with the tolerances the caller gives); integers and bools must be equal.
// --scale S (for intermediate values) raises each output's abs to S × its largest |ort|: rounding
// differences of the first layers (another summation order in a GEMM) carry through the rest of a deep
// network, so deep activations are compared at the scale of their tensor. Model outputs are compared without it.
// Prints one line per output with the worst errors; exit 1 when any output differs in name, type, dims or
// values.
'use strict';
const fs = require('fs');
const path = require('path');

const args = process.argv.slice(2);
if (args.length < 4) { process.stderr.write('usage: compare-outputs.js ORT.json ORT_DIR OURS.json OURS_DIR [--rel R] [--abs A]\n'); process.exit(2); }
let rel = 1e-4, abs = 1e-5, scale = 0;
for (let i = 4; i < args.length; i += 2) {
  if (args[i] === '--rel') rel = Number(args[i + 1]);
  else if (args[i] === '--abs') abs = Number(args[i + 1]);
  else if (args[i] === '--scale') scale = Number(args[i + 1]);
  else { process.stderr.write(`unknown option ${args[i]}\n`); process.exit(2); }
}
const ort = JSON.parse(fs.readFileSync(args[0], 'utf8')).outputs;
const ours = JSON.parse(fs.readFileSync(args[2], 'utf8')).outputs;
const views = {
  float32: (b) => new Float32Array(b.buffer, b.byteOffset, b.length / 4),
  float64: (b) => new Float64Array(b.buffer, b.byteOffset, b.length / 8),
  int64: (b) => new BigInt64Array(b.buffer, b.byteOffset, b.length / 8),
  int32: (b) => new Int32Array(b.buffer, b.byteOffset, b.length / 4),
  bool: (b) => new Uint8Array(b.buffer, b.byteOffset, b.length),
  uint8: (b) => new Uint8Array(b.buffer, b.byteOffset, b.length),
  int8: (b) => new Int8Array(b.buffer, b.byteOffset, b.length),
  int16: (b) => new Int16Array(b.buffer, b.byteOffset, b.length / 2),
  uint16: (b) => new Uint16Array(b.buffer, b.byteOffset, b.length / 2),
  float16: (b) => Float64Array.from(new Uint16Array(b.buffer, b.byteOffset, b.length / 2), halfToNumber),
  bfloat16: (b) => Float64Array.from(new Uint16Array(b.buffer, b.byteOffset, b.length / 2),
    (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]),
};
// IEEE binary16 bits → number (exact: every half value is a double).
function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0x1f) return m ? NaN : sign * Infinity;
  return sign * (e ? (1 + m / 1024) * 2 ** (e - 15) : m * 2 ** -24);
}
let failed = false;
if (ort.length !== ours.length) { console.log(`FAIL: ${ort.length} outputs from ONNX Runtime, ${ours.length} from ours`); process.exit(1); }
for (let i = 0; i < ort.length; i++) {
  const a = ort[i], b = ours[i];
  const tag = `output ${i} '${a.name}'`;
  if (a.name !== b.name || a.type !== b.type || a.dims.join('x') !== b.dims.join('x')) {
    console.log(`FAIL: ${tag}: ONNX Runtime ${a.name} ${a.type} [${a.dims}], ours ${b.name} ${b.type} [${b.dims}]`);
    failed = true; continue;
  }
  const view = views[a.type];
  if (!view) { console.log(`FAIL: ${tag}: cannot compare type ${a.type}`); failed = true; continue; }
  // Copy so the typed-array views are aligned.
  const x = view(Buffer.from(fs.readFileSync(path.join(args[1], `${i}.bin`))));
  const y = view(Buffer.from(fs.readFileSync(path.join(args[3], `${i}.bin`))));
  if (x.length !== y.length) { console.log(`FAIL: ${tag}: ${x.length} vs ${y.length} elements`); failed = true; continue; }
  const isFloat = a.type.startsWith('float');
  let maxAbs = 0, maxRel = 0, bad = 0, worst = -1, tabs = abs;
  if (isFloat && scale > 0) {
    let peak = 0;
    for (let k = 0; k < x.length; k++) if (Number.isFinite(x[k])) peak = Math.max(peak, Math.abs(x[k]));
    tabs = Math.max(abs, scale * peak);
  }
  for (let k = 0; k < x.length; k++) {
    if (!isFloat) { if (x[k] !== y[k]) { bad++; if (worst < 0) worst = k; } continue; }
    const r = x[k], f = y[k];
    if (Number.isNaN(r) || Number.isNaN(f)) { if (Number.isNaN(r) !== Number.isNaN(f)) { bad++; worst = k; } continue; }
    const d = Math.abs(f - r);
    maxAbs = Math.max(maxAbs, d);
    maxRel = Math.max(maxRel, d / Math.max(Math.abs(r), tabs));
    if (d > tabs + rel * Math.abs(r)) { bad++; if (worst < 0) worst = k; }
  }
  const line = `${tag} ${a.type} [${a.dims}]: max abs ${maxAbs.toExponential(2)}, max rel ${maxRel.toExponential(2)}, ${bad} of ${x.length} outside`;
  if (bad) { console.log(`FAIL: ${line} (first at ${worst}: ort ${x[worst]}, ours ${y[worst]})`); failed = true; }
  else console.log(`ok: ${line}`);
}
process.exit(failed ? 1 : 0);
