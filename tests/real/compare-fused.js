#!/usr/bin/env node
// Compare two ort-run.js results: the original model's and its fused export's (check-real-model.sh (f)).
//
//   node compare-fused.js ORIG.json FUSED.json LABEL [ORIG_DUMP_DIR FUSED_DUMP_DIR]
//
// Names, types and dims must be equal. Values: bit-identical (equal sha256) passes at once; otherwise, with
// the two --dump folders, floating-point outputs may differ by |a - b| <= ABS + REL * |a| (ABS 1e-5,
// REL 1e-4; NaN only where the original has NaN) and every other type must be equal byte for byte.
// Exit status: 0 equal (or within tolerance), 1 different, 2 usage, 3 hashes differ and no dumps were given
// (run both models again with --dump and call again).
'use strict';

const fs = require('fs');
const path = require('path');

// FW_COMPARE_ABS, FW_COMPARE_REL: other tolerances (half-precision models: abs 1e-3, rel 1e-2).
const ABS = Number(process.env.FW_COMPARE_ABS || 1e-5), REL = Number(process.env.FW_COMPARE_REL || 1e-4);
const [afile, bfile, label, adump, bdump] = process.argv.slice(2);
if (!afile || !bfile || !label) {
  process.stderr.write('usage: node compare-fused.js ORIG.json FUSED.json LABEL [ORIG_DUMP FUSED_DUMP]\n');
  process.exit(2);
}
const a = JSON.parse(fs.readFileSync(afile, 'utf8')), b = JSON.parse(fs.readFileSync(bfile, 'utf8'));
const errs = [];

if (JSON.stringify(a.inputs) !== JSON.stringify(b.inputs))
  errs.push(`inputs differ: original ${JSON.stringify(a.inputs)}, fused ${JSON.stringify(b.inputs)}`);
if (a.outputs.length !== b.outputs.length) errs.push(`${a.outputs.length} outputs before, ${b.outputs.length} after`);

// float16 bits -> number
function half(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >>> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function floats(type, buf) {
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  switch (type) {
    case 'float32': return new Float32Array(ab);
    case 'float64': return new Float64Array(ab);
    case 'float16': return Array.from(new Uint16Array(ab), half);
    default: return null;
  }
}

const differing = [];
a.outputs.forEach((x, i) => {
  const y = b.outputs[i];
  if (!y) return;
  for (const k of ['name', 'type'])
    if (x[k] !== y[k]) errs.push(`output ${i}: ${k} '${x[k]}' became '${y[k]}'`);
  if (JSON.stringify(x.dims) !== JSON.stringify(y.dims))
    errs.push(`output ${i} '${x.name}': dims [${x.dims}] became [${y.dims}]`);
  else if (x.sha256 !== y.sha256)
    differing.push(i);
});
if (errs.length) { for (const e of errs) console.error(`FAIL: ${label}: ${e}`); process.exit(1); }
if (differing.length === 0) {
  console.log(`${label}: bit-identical outputs (${a.outputs.length})`);
  process.exit(0);
}
if (!adump || !bdump) process.exit(3);

const notes = [];
for (const i of differing) {
  const x = a.outputs[i];
  const da = fs.readFileSync(path.join(adump, `${i}.bin`)), db = fs.readFileSync(path.join(bdump, `${i}.bin`));
  const fa = floats(x.type, da), fb = floats(x.type, db);
  if (fa === null) {
    errs.push(`output ${i} '${x.name}' (${x.type}): values differ, and non-float outputs must be equal`);
    continue;
  }
  if (fa.length !== fb.length) { errs.push(`output ${i} '${x.name}': ${fa.length} values became ${fb.length}`); continue; }
  let worstAbs = 0, worstRel = 0, bad = 0, firstBad = -1;
  for (let k = 0; k < fa.length; k++) {
    const p = fa[k], q = fb[k];
    if (Number.isNaN(p) || Number.isNaN(q)) {
      if (!(Number.isNaN(p) && Number.isNaN(q))) { bad++; if (firstBad < 0) firstBad = k; }
      continue;
    }
    if (p === q) continue;
    const d = Math.abs(p - q);
    worstAbs = Math.max(worstAbs, d);
    if (p !== 0) worstRel = Math.max(worstRel, d / Math.abs(p));
    if (!(d <= ABS + REL * Math.abs(p))) { bad++; if (firstBad < 0) firstBad = k; }
  }
  if (bad)
    errs.push(`output ${i} '${x.name}': ${bad} of ${fa.length} values past tolerance (abs ${ABS} + rel ${REL}); ` +
              `first at ${firstBad}: ${fa[firstBad]} became ${fb[firstBad]}; worst abs ${worstAbs}, rel ${worstRel}`);
  else notes.push(`'${x.name}' worst abs ${worstAbs.toExponential(2)} rel ${worstRel.toExponential(2)}`);
}
if (errs.length) { for (const e of errs) console.error(`FAIL: ${label}: ${e}`); process.exit(1); }
console.log(`${label}: outputs equal within tolerance (${notes.join(', ')}); ` +
            `${a.outputs.length - differing.length} of ${a.outputs.length} bit-identical`);
