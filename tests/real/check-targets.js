#!/usr/bin/env node
// Step (h) of check-real-model.sh: a report of `--target host --target ascend --verify --export DIR` has a
// compiled host SuperKernel and a generated Ascend C kernel for every fused candidate, every group verified,
// and the export folder holds the fused model, the whitelist and a manifest listing every kernel.
//
//   node check-targets.js REPORT.json EXPORT_DIR MODEL_STEM LABEL
'use strict';
const fs = require('fs'), path = require('path');
const [file, edir, stem, label] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(file, 'utf8'));
const fail = (m) => { console.error(`FAIL: ${label}: ${m}`); process.exit(1); };
const fused = r.plan.candidates.filter((c) => c.status === 'proposed' || c.status === 'accepted').length;
const host = r.targets.host.kernels, asc = r.targets.ascend.kernels;
if (host.length !== fused || asc.length !== fused)
  fail(`${fused} fused candidates, ${host.length} host and ${asc.length} Ascend kernels`);
for (const k of host) if (k.status !== 'compiled') fail(`host kernel of candidate ${k.candidate}: ${k.status}: ${k.message}`);
// A group read or written through a strided index map (a transpose, a slice) is refused by the Ascend
// generator with that reason until it emits DataCopyPad with strides: listed, not a failure. Any other gap is.
const indexMapped = (k) => /index map/.test(k.message || '');
// Sin and Cos (a rotary embedding's position table, once injective ops join its group) have no Ascend C
// lowering yet: listed with the generator's reason, as the index maps are.
const trigonometric = (k) => /no Ascend C lowering for (Sin|Cos) /.test(k.message || '');
// A fused attention (scores, softmax and P·V in one kernel) has no Ascend C lowering yet: refused with
// FW-TG-003 (docs/reason-codes.md), listed, host-verified.
const attention = (k) => /\[FW-TG-003\]/.test(k.message || '');
// A horizontal GEMM (the aggressive strategy's packed projections) has none either: FW-TG-006, host-verified.
const hgemm = (k) => /\[FW-TG-006\]/.test(k.message || '');
const notAscend = asc.filter((k) => k.status !== 'generated');
for (const k of notAscend) console.error(`${label}: Ascend kernel of candidate ${k.candidate} not generated: ${k.message}`);
// Integer (QDQ) groups the Ascend generator does not make (Conv roots, two activations: FW-TG-005,
// docs/reason-codes.md): listed, host-verified; the MatMul/Gemm ones are generated and checked like the rest.
const integer = (k) => /\[FW-TG-005\]/.test(k.message || '');
// bfloat16 groups: the A2 vector unit computes half and float only; refused with FW-TG-004, host-verified.
const bfloat16 = (k) => /\[FW-TG-004\]/.test(k.message || '');
const gaps = notAscend.filter((k) => !indexMapped(k) && !trigonometric(k) && !attention(k) && !integer(k) &&
                                     !hgemm(k) && !bfloat16(k));
if (notAscend.some(bfloat16))
  console.log(`${label}: ${notAscend.filter(bfloat16).length} Ascend kernels refused: bfloat16, FW-TG-004 (host-verified)`);
if (notAscend.some(integer))
  console.log(`${label}: ${notAscend.filter(integer).length} Ascend kernels refused: integer (QDQ) groups, FW-TG-005 (host-verified)`);
if (notAscend.some(indexMapped))
  console.log(`${label}: ${notAscend.filter(indexMapped).length} Ascend kernels refused for strided index maps (host-verified)`);
if (notAscend.some(trigonometric))
  console.log(`${label}: ${notAscend.filter(trigonometric).length} Ascend kernels refused: no Sin/Cos lowering yet (host-verified)`);
if (notAscend.some(attention))
  console.log(`${label}: ${notAscend.filter(attention).length} Ascend kernels refused: fused attention, FW-TG-003 (host-verified)`);
if (gaps.length && !process.env.FW_ALLOW_ASCEND_GAPS) fail(`${gaps.length} Ascend kernels not generated`);
// The plan priced each Ascend kernel's own buffers: its tile and UB figure are the kernel's, byte for byte.
const byId = new Map(r.plan.candidates.map((c) => [c.id, c]));
for (const k of asc.filter((a) => a.status === 'generated')) {
  const c = byId.get(k.candidate);
  if (!c) fail(`Ascend kernel of unknown candidate ${k.candidate}`);
  if (k.ub_bytes !== c.resource.ub_bytes || k.tile_elements !== c.resource.tile_elements)
    fail(`candidate ${k.candidate}: the Ascend kernel allocates ${k.ub_bytes} B for a tile of ${k.tile_elements}, ` +
         `the plan priced ${c.resource.ub_bytes} B for ${c.resource.tile_elements}`);
}
// The host kernel's per-thread row scratch is what the plan carries between passes over a row.
for (const k of host) {
  const c = byId.get(k.candidate);
  if (!c || !c.kernel) fail(`host kernel of candidate ${k.candidate} has no planned kernel`);
  if (k.row_scratch_elements !== c.kernel.row_scratch_elements)
    fail(`candidate ${k.candidate}: the host kernel allocates ${k.row_scratch_elements} scratch elements a thread, ` +
         `the plan carries ${c.kernel.carried.length} values over rows: ${c.kernel.row_scratch_elements}`);
}
const v = r.verification;
if ((!v.pass && !process.env.FW_QDQ) || v.unverified.length) fail(`verification pass=${v.pass}, unverified [${v.unverified}]`);
if (v.groups.length !== fused) fail(`${v.groups.length} groups verified of ${fused}`);
// A QDQ model (FW_QDQ set): every group is verified on its own, but the fused model's outputs drift from
// the interpreter's wherever a last-bit float difference crosses a QuantizeLinear's rounding boundary; the
// report holds them to the float original instead (verification.outputs[].quantisation, the golden rule),
// and the outputs' drift is printed.
for (const o of v.outputs) {
  if (o.pass) continue;
  if (!process.env.FW_QDQ) fail(`output ${o.name} outside tolerance`);
  console.log(`${label}: output ${o.name} of the fused model drifts (not checked on a QDQ model): max abs ` +
              `${o.max_abs_error.toExponential(2)}, ${o.failed_elements} of ${o.elements} elements outside rel ` +
              `${o.tolerance.rel} abs ${o.tolerance.abs}`);
}
if (!v.groups.every((g) => g.pass)) fail(`groups failed verification: ${v.groups.filter((g) => !g.pass).map((g) => g.candidate)}`);
for (const f of [`${stem}.fused.onnx`, `${stem}.fusion.yaml`, 'kernels/manifest.json'])
  if (!fs.existsSync(path.join(edir, f))) fail(`the export has no ${f}`);
const man = JSON.parse(fs.readFileSync(path.join(edir, 'kernels', 'manifest.json'), 'utf8'));
if (!Array.isArray(man.kernels) || man.kernels.length !== fused) fail(`the manifest lists ${man.kernels && man.kernels.length} kernels of ${fused}`);
let worst = 0;
for (const g of v.groups) worst = Math.max(worst, g.max_abs_error);
// Under the golden policy (half-precision models), each output's error against the golden run, the fused
// beside the unfused.
if (v.policy === 'golden') {
  const e = (x) => `max abs ${x.max_abs_error.toExponential(3)}, max rel ${x.max_rel_error.toExponential(3)}, ` +
                   `cosine ${x.cosine.toFixed(7)}`;
  for (const o of v.outputs)
    console.log(`${label}: output ${o.name} against the golden (${v.golden_dtype}): unfused ${e(o.golden.unfused)}; ` +
                `fused ${e(o.golden.fused)}; fused vs unfused max abs ${o.max_abs_error.toExponential(3)}`);
  const farther = v.groups.filter((g) => g.golden.fused.max_abs_error > g.golden.unfused.max_abs_error).length;
  console.log(`${label}: ${v.groups.length} groups verified under golden, ${farther} fused farther from the golden than unfused`);
}
if (process.env.FW_QDQ) {
  const e = (x) => `max abs ${x.max_abs_error.toExponential(3)}, cosine ${x.cosine.toFixed(7)}`;
  for (const o of v.outputs) {
    if (!o.quantisation) fail(`output ${o.name} of a QDQ model has no quantisation error`);
    console.log(`${label}: output ${o.name}: quantisation error (against the float original) unfused ` +
                `${e(o.quantisation.unfused)}, fused ${e(o.quantisation.fused)}; fusion error (fused vs unfused) ` +
                `max abs ${o.max_abs_error.toExponential(3)}`);
  }
  const integer = v.groups.filter((g) => g.integer);
  const steps = integer.filter((g) => g.quantisation_step).reduce((m, g) => Math.max(m, g.max_abs_error), 0);
  console.log(`${label}: ${integer.length} integer groups verified, requantised outputs at most ${steps} step(s) ` +
              `from the interpreter`);
}
console.log(`${label}: ${fused} groups: host SuperKernels compiled and verified (worst abs error ${worst.toExponential(2)}), ` +
            `${fused - notAscend.length} Ascend C kernels generated, export complete`);
