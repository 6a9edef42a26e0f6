#!/usr/bin/env node
// Run an ONNX model once with ONNX Runtime on deterministic, seeded pseudo-random inputs and print a
// fingerprint of every output.
//
//   node ort-run.js MODEL [--bind NAME=VALUE]... [--shape INPUT=1x3x224x224]... [--seed N]
//                         [--dump DIR] [--opt disabled|basic|extended|all] [--int-max N] [--time N]
//
// Inputs are generated from the model's declared input metadata (session.inputMetadata): a fixed dim is
// used as is, a symbolic dim takes its --bind value (else 1), an unknown dim is 1; --shape replaces the
// whole shape of one input. Values: floating point uniform in [-1, 1) (exactly representable in float16,
// so every float type sees the same values), integers uniform in [0, --int-max) (default 10), bool 0/1.
// The stream for an input depends only on the seed, the input's name, its type and its shape, so two models
// with the same inputs (an original and its round trip) get bit-identical inputs.
//
// stdout: {"inputs":[{name,type,dims}],"outputs":[{name,type,dims,sha256}]}, sha256 over the raw output
// bytes (little-endian, as ONNX Runtime returns them). --dump DIR also writes output i to DIR/<i>.bin.
// --time N then times N more runs (2 intra-op threads, as always) and adds run_median_s and runs_s.
// Exit status: 0 ok, 1 ONNX Runtime failed, 2 usage.
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function usage(msg) {
  if (msg) process.stderr.write(`ort-run.js: ${msg}\n`);
  process.stderr.write('usage: node ort-run.js MODEL [--bind NAME=VALUE]... [--shape INPUT=AxBxC]... ' +
                       '[--seed N] [--dump DIR] [--opt disabled|basic|extended|all] [--int-max N]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { model: null, binds: new Map(), shapes: new Map(), seed: 1, dump: null, opt: 'disabled', intMax: 10, time: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const eq = a.indexOf('=');
      if (a.startsWith('--') && eq > 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    const key = a.startsWith('--') ? a.split('=')[0] : a;
    switch (key) {
      case '--bind': {
        const v = val(); const m = /^([^=]+)=(\d+)$/.exec(v);
        if (!m) usage(`bad --bind '${v}' (want NAME=VALUE)`);
        o.binds.set(m[1], Number(m[2])); break;
      }
      case '--shape': {
        const v = val(); const m = /^([^=]+)=(\d+(?:x\d+)*|)$/.exec(v);
        if (!m) usage(`bad --shape '${v}' (want INPUT=AxBxC, empty for a scalar)`);
        o.shapes.set(m[1], m[2] === '' ? [] : m[2].split('x').map(Number)); break;
      }
      case '--seed': { const v = val(); if (!/^\d+$/.test(v)) usage(`bad --seed '${v}'`); o.seed = Number(v) >>> 0; break; }
      case '--int-max': { const v = val(); if (!/^[1-9]\d*$/.test(v)) usage(`bad --int-max '${v}'`); o.intMax = Number(v); break; }
      case '--dump': o.dump = val(); break;
      case '--time': { const v = val(); if (!/^[1-9]\d*$/.test(v)) usage(`bad --time '${v}'`); o.time = Number(v); break; }
      case '--opt': {
        const v = val();
        if (!['disabled', 'basic', 'extended', 'all'].includes(v)) usage(`bad --opt '${v}'`);
        o.opt = v; break;
      }
      case '-h': case '--help': usage();
      default:
        if (a.startsWith('-')) usage(`unknown option '${a}'`);
        if (o.model) usage('only one MODEL');
        o.model = a;
    }
  }
  if (!o.model) usage('no MODEL');
  return o;
}

// 32-bit FNV-1a, to mix an input's name into its stream.
function fnv1a(s) {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) { h ^= b; h = Math.imul(h, 0x01000193) >>> 0; }
  return h >>> 0;
}

// mulberry32: small, fast, fully specified 32-bit generator.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// float -> IEEE half bits; only called on k/1024 values in [-1, 1), which are exact in half.
const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
function toHalf(x) {
  f32[0] = x;
  const b = u32[0], sign = (b >>> 16) & 0x8000, exp = ((b >>> 23) & 0xff) - 127 + 15, mant = b & 0x7fffff;
  if (x === 0) return sign;
  if (exp <= 0) return sign | ((mant | 0x800000) >>> (14 - exp)); // subnormal (not reached for k/1024)
  return sign | (exp << 10) | (mant >>> 13);
}

function makeInput(ort, name, type, dims, o) {
  const n = dims.reduce((p, d) => p * d, 1);
  const next = rng((o.seed ^ fnv1a(`${name}|${type}|${dims.join('x')}`)) >>> 0);
  // k/1024 - 1 for k in [0, 2048): uniform in [-1, 1), exact in float16, float32 and float64.
  const unit = () => (next() >>> 21) / 1024 - 1;
  let data;
  switch (type) {
    case 'float32': data = new Float32Array(n); for (let i = 0; i < n; i++) data[i] = unit(); break;
    case 'float64': data = new Float64Array(n); for (let i = 0; i < n; i++) data[i] = unit(); break;
    case 'float16': data = new Uint16Array(n); for (let i = 0; i < n; i++) data[i] = toHalf(unit()); break;
    case 'int64': data = new BigInt64Array(n); for (let i = 0; i < n; i++) data[i] = BigInt(next() % o.intMax); break;
    case 'uint64': data = new BigUint64Array(n); for (let i = 0; i < n; i++) data[i] = BigInt(next() % o.intMax); break;
    case 'int32': data = new Int32Array(n); for (let i = 0; i < n; i++) data[i] = next() % o.intMax; break;
    case 'uint32': data = new Uint32Array(n); for (let i = 0; i < n; i++) data[i] = next() % o.intMax; break;
    case 'int16': data = new Int16Array(n); for (let i = 0; i < n; i++) data[i] = next() % Math.min(o.intMax, 32768); break;
    case 'uint16': data = new Uint16Array(n); for (let i = 0; i < n; i++) data[i] = next() % Math.min(o.intMax, 65536); break;
    case 'int8': data = new Int8Array(n); for (let i = 0; i < n; i++) data[i] = next() % Math.min(o.intMax, 128); break;
    case 'uint8': data = new Uint8Array(n); for (let i = 0; i < n; i++) data[i] = next() % Math.min(o.intMax, 256); break;
    case 'bool': data = new Uint8Array(n); for (let i = 0; i < n; i++) data[i] = next() >>> 31; break;
    default: throw new Error(`input '${name}': unsupported type '${type}'`);
  }
  return new ort.Tensor(type, data, dims);
}

function inputDims(meta, o) {
  if (o.shapes.has(meta.name)) return o.shapes.get(meta.name);
  if (!Array.isArray(meta.shape)) throw new Error(`input '${meta.name}': no shape in metadata; pass --shape ${meta.name}=AxB`);
  return meta.shape.map((d) => {
    if (typeof d === 'number' && d >= 0) return d;
    if (typeof d === 'string' && d !== '' && o.binds.has(d)) return o.binds.get(d);
    return 1; // unbound symbolic or unknown dim
  });
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    process.stderr.write(`ort-run.js: cannot load onnxruntime-node (run 'npm ci --ignore-scripts' in ${__dirname}): ${e.message}\n`);
    process.exit(1);
  }
  const session = await ort.InferenceSession.create(path.resolve(o.model), {
    graphOptimizationLevel: o.opt, intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential',
  });
  const metas = session.inputMetadata;
  if (!Array.isArray(metas)) throw new Error('this onnxruntime-node has no session.inputMetadata (1.30 has)');
  for (const k of o.shapes.keys())
    if (!session.inputNames.includes(k)) throw new Error(`--shape names '${k}', which is not an input (inputs: ${session.inputNames.join(', ')})`);

  const feeds = {}, inputs = [];
  for (const meta of metas) {
    if (meta.isTensor === false) throw new Error(`input '${meta.name}' is not a tensor`);
    const dims = inputDims(meta, o);
    feeds[meta.name] = makeInput(ort, meta.name, meta.type, dims, o);
    inputs.push({ name: meta.name, type: meta.type, dims });
  }

  const results = await session.run(feeds);
  if (o.dump) fs.mkdirSync(o.dump, { recursive: true });
  const outputs = session.outputNames.map((name, i) => {
    const t = results[name];
    if (!t) throw new Error(`ONNX Runtime returned no value for output '${name}'`);
    if (t.type === 'string') throw new Error(`output '${name}' is a string tensor; not supported`);
    const d = t.data;
    const bytes = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    if (o.dump) fs.writeFileSync(path.join(o.dump, `${i}.bin`), bytes);
    return { name, type: t.type, dims: Array.from(t.dims, Number),
             sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
  });
  const report = { inputs, outputs };
  if (o.time > 0) {
    const runs = [];
    for (let r = 0; r < o.time; r++) {
      const t0 = process.hrtime.bigint();
      await session.run(feeds);
      runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const sorted = runs.slice().sort((a, b) => a - b);
    report.run_median_s = sorted[Math.floor(sorted.length / 2)];
    report.runs_s = runs;
  }
  process.stdout.write(JSON.stringify(report) + '\n');
  if (session.release) await session.release();
}

main().catch((e) => {
  process.stderr.write(`ort-run.js: ${process.argv[2] || ''}: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
