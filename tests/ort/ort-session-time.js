#!/usr/bin/env node
// Median wall time to create an ONNX Runtime InferenceSession for MODEL with graph optimisations disabled and
// one intra-op thread: the baseline for the load benchmark (tests/bench).
//
//   node ort-session-time.js MODEL [--repeat N]      (default N = 5)
//
// stdout: {"median_s": S, "runs": [S1, S2, ...]}. The first creation also pays for loading the ONNX Runtime
// shared library; one untimed warm-up creation is done first so every timed run measures the same thing.
'use strict';

const path = require('path');

function usage(msg) {
  if (msg) process.stderr.write(`ort-session-time.js: ${msg}\n`);
  process.stderr.write('usage: node ort-session-time.js MODEL [--repeat N]\n');
  process.exit(2);
}

async function main() {
  const argv = process.argv.slice(2);
  let model = null, repeat = 5;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--repeat' || a.startsWith('--repeat=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (!/^[1-9]\d*$/.test(v || '')) usage(`bad --repeat '${v}'`);
      repeat = Number(v);
    } else if (a.startsWith('-')) usage(`unknown option '${a}'`);
    else if (model) usage('only one MODEL');
    else model = a;
  }
  if (!model) usage('no MODEL');
  const ort = require('onnxruntime-node');
  const opts = { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1 };
  const file = path.resolve(model);

  const warm = await ort.InferenceSession.create(file, opts);
  if (warm.release) await warm.release();
  const runs = [];
  for (let i = 0; i < repeat; i++) {
    const t0 = process.hrtime.bigint();
    const s = await ort.InferenceSession.create(file, opts);
    const t1 = process.hrtime.bigint();
    runs.push(Number(t1 - t0) / 1e9);
    if (s.release) await s.release();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  process.stdout.write(JSON.stringify({ median_s: median, runs }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`ort-session-time.js: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
