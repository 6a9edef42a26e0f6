"""The project's own static quantizer: turns a float32 ONNX model into QDQ form the way ONNX Runtime's
static quantizer (quantize_static, QuantFormat.QDQ, MinMax calibration, per_channel=True) writes it, so the
real suite has INT8 models without onnxruntime's Python package.

Usage: quantize-qdq.py IN.onnx OUT.onnx [--activations uint8|int8] [--scale S] [--calib-seed N]

  * weights: every Conv weight, Gemm B and MatMul B that is an initializer becomes an int8 initializer,
    symmetric per output channel (scale = max|w| / 127, zero point 0, values in [-127, 127]), read through a
    DequantizeLinear with axis 0 (Conv, Gemm with transB=1) or 1 (MatMul B [K, N], Gemm with transB=0);
  * biases of Conv and Gemm: int32 with scale input_scale × weight_scale[c] and zero point 0, through a
    DequantizeLinear with axis 0;
  * activations: each float input of a Conv, Gemm or MatMul that is not an initializer gets one
    QuantizeLinear → DequantizeLinear pair (shared by every consumer), per tensor, uint8 (asymmetric) by
    default or int8 (symmetric);
  * activation ranges are calibrated (min and max over one run, as MinMax does) by running the model in
    ONNX Runtime through tests/ort/ort-run.js on its seeded inputs (--calib-seed, default 7: not the seed the
    checks use, so the checked inputs also exercise saturation), or fixed: --scale S gives every activation
    scale S and zero point 128 (uint8) or 0 (int8) and needs no ONNX Runtime.

Deterministic: the same input and options give the same bytes. Needs opset 13 or later (per-axis
DequantizeLinear). Environment: NODE (node binary, default node), FW_ORT_DIR (folder of ort-run.js, default
tests/ort next to this script's folder). Prints a summary line (counts of QuantizeLinear and
DequantizeLinear nodes)."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

COMPUTE = ("Conv", "Gemm", "MatMul")


def die(msg):
    sys.stderr.write(f"quantize-qdq.py: {msg}\n")
    sys.exit(1)


def opset_of(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return 0


def weight_axis(node):
    """The axis of a weight's output channels, per the weight's layout."""
    if node.op_type == "Conv":
        return 0
    if node.op_type == "Gemm":
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        return 0 if trans_b else 1
    return 1


def resolve_identity(graph, inits):
    """Exporters share a weight between layers through Identity nodes: reads of such an Identity's output
    become reads of the initializer itself."""
    alias = {n.output[0]: n.input[0] for n in graph.node if n.op_type == "Identity" and n.input[0] in inits}
    for node in graph.node:
        if node.op_type in COMPUTE:
            for slot in range(1, len(node.input)):
                if node.input[slot] in alias:
                    node.input[slot] = alias[node.input[slot]]


def drop_dead_identities(graph):
    while True:
        used = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
        dead = [n for n in graph.node if n.op_type == "Identity" and n.output[0] not in used]
        if not dead:
            return
        for n in dead:
            graph.node.remove(n)


def quant_targets(graph, inits):
    """(activation tensors to quantize, in first-use order; [(node, weight slot)] to quantize per channel)."""
    acts, weights = [], []
    resolve_identity(graph, inits)
    drop_dead_identities(graph)
    for node in graph.node:
        if node.op_type not in COMPUTE:
            continue
        if node.op_type == "Gemm":
            trans_a = next((a.i for a in node.attribute if a.name == "transA"), 0)
            if trans_a:
                continue
        for slot in (0, 1):
            name = node.input[slot] if slot < len(node.input) else ""
            if not name:
                continue
            if name in inits:
                w = inits[name]
                # Per-channel weights: Conv W, 2-D Gemm/MatMul B. Anything else stays float.
                if slot == 1 and w.data_type == TensorProto.FLOAT and (
                        node.op_type == "Conv" or len(w.dims) == 2):
                    weights.append((node, slot))
            elif name not in acts:
                acts.append(name)
    return acts, weights


def calibrate(model, acts, seed):
    """min and max of each activation over one ONNX Runtime run on ort-run.js's seeded inputs."""
    here = os.path.dirname(os.path.abspath(__file__))
    ort_dir = os.environ.get("FW_ORT_DIR", os.path.join(here, "..", "ort"))
    node_bin = os.environ.get("NODE", "node")
    calib = onnx.ModelProto()
    calib.CopyFrom(model)
    g = calib.graph
    del g.output[:]
    for k, name in enumerate(acts):
        out = f"{name}__calib"
        g.node.append(helper.make_node("Identity", [name], [out], name=f"calib_{k}"))
        g.output.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, None))
    with tempfile.TemporaryDirectory(prefix="fw-quantize-") as tmp:
        path = os.path.join(tmp, "calib.onnx")
        onnx.save(calib, path)
        dump = os.path.join(tmp, "out")
        run = subprocess.run([node_bin, os.path.join(ort_dir, "ort-run.js"), path, "--seed", str(seed),
                              "--dump", dump], capture_output=True, text=True)
        if run.returncode != 0:
            die(f"ONNX Runtime could not run the calibration model: {run.stderr.strip()}")
        meta = json.loads(run.stdout)
        ranges = {}
        for i, o in enumerate(meta["outputs"]):
            if o["type"] != "float32":
                die(f"activation {o['name']} is {o['type']}, not float32")
            v = np.fromfile(os.path.join(dump, f"{i}.bin"), dtype="<f4")
            ranges[o["name"][:-len("__calib")]] = (float(v.min()), float(v.max()))
    return ranges


def act_params(rmin, rmax, qtype):
    """ONNX Runtime's compute_scale_zp: the range widened to hold 0; uint8 asymmetric, int8 symmetric."""
    rmin, rmax = min(rmin, 0.0), max(rmax, 0.0)
    if qtype == "int8":
        absmax = max(abs(rmin), abs(rmax))
        scale = np.float32(2 * absmax / 254.0) if absmax > 0 else np.float32(1.0)
        return scale, np.int8(0)
    scale = np.float32((rmax - rmin) / 255.0) if rmax > rmin else np.float32(1.0)
    zp = int(np.clip(np.round(-rmin / float(scale)), 0, 255))
    return scale, np.uint8(zp)


def main(argv):
    args = argv[1:]
    opts = {"--activations": "uint8", "--scale": None, "--calib-seed": "7"}
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            if not args:
                die(f"{a} needs a value")
            opts[a] = args.pop(0)
        elif a.startswith("--"):
            die(f"unknown option {a}")
        else:
            pos.append(a)
    if len(pos) != 2 or opts["--activations"] not in ("uint8", "int8"):
        sys.exit(__doc__)
    src, dst = pos
    qtype = opts["--activations"]
    model = onnx.load(src)
    if opset_of(model) < 13:
        die(f"{src}: opset {opset_of(model)}; per-axis DequantizeLinear needs opset 13 or later")
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    acts, weights = quant_targets(graph, inits)

    if opts["--scale"] is not None:
        fixed = np.float32(float(opts["--scale"]))
        params = {a: (fixed, np.uint8(128) if qtype == "uint8" else np.int8(0)) for a in acts}
    else:
        ranges = calibrate(model, acts, int(opts["--calib-seed"]))
        params = {a: act_params(*ranges[a], qtype) for a in acts}

    new_inits, q_nodes, dq_nodes = [], [], []
    # Activations: one Q → DQ pair per tensor, placed just before its first consumer's position (the
    # graph stays topologically sorted since the tensor exists by then).
    act_dq = {}
    for k, a in enumerate(acts):
        scale, zp = params[a]
        s_name, z_name = f"{a}_scale", f"{a}_zero_point"
        new_inits.append(numpy_helper.from_array(np.array(scale, dtype=np.float32), s_name))
        new_inits.append(numpy_helper.from_array(np.array(zp), z_name))
        q_out, dq_out = f"{a}_quantized", f"{a}_dequantized"
        q_nodes.append((a, helper.make_node("QuantizeLinear", [a, s_name, z_name], [q_out], name=f"{a}_QuantizeLinear")))
        dq_nodes.append((a, helper.make_node("DequantizeLinear", [q_out, s_name, z_name], [dq_out],
                                             name=f"{a}_DequantizeLinear")))
        act_dq[a] = dq_out

    # Weights and biases.
    weight_nodes = []
    replaced = set()
    for node, slot in weights:
        wname = node.input[slot]
        w = numpy_helper.to_array(inits[wname]).astype(np.float32)
        axis = weight_axis(node)
        moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
        absmax = np.abs(moved).max(axis=1)
        w_scale = np.where(absmax > 0, absmax / np.float32(127.0), np.float32(1.0)).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.rint(w / w_scale.reshape(shape)), -127, 127).astype(np.int8)
        qname = f"{wname}_quantized"
        if wname not in replaced:
            replaced.add(wname)
            new_inits += [numpy_helper.from_array(q, qname),
                          numpy_helper.from_array(w_scale, f"{wname}_scale"),
                          numpy_helper.from_array(np.zeros(w_scale.shape, np.int8), f"{wname}_zero_point")]
            weight_nodes.append(helper.make_node("DequantizeLinear", [qname, f"{wname}_scale", f"{wname}_zero_point"],
                                                 [f"{wname}_dequantized"], name=f"{wname}_DequantizeLinear", axis=axis))
        node.input[slot] = f"{wname}_dequantized"
        # The bias (Conv input 2, Gemm C of one value per channel): int32 at input_scale × weight_scale.
        if node.op_type in ("Conv", "Gemm") and len(node.input) > 2 and node.input[2] in inits \
                and node.input[0] in params and (node.op_type == "Conv" or axis == 0):
            bname = node.input[2]
            b = numpy_helper.to_array(inits[bname]).astype(np.float32)
            if b.ndim == 1 and b.shape[0] == w_scale.shape[0]:
                b_scale = (np.float32(params[node.input[0]][0]) * w_scale).astype(np.float32)
                bq = np.rint(b / np.where(b_scale > 0, b_scale, np.float32(1.0))).astype(np.int64)
                bq = np.clip(bq, -2**31, 2**31 - 1).astype(np.int32)
                tag = f"{bname}_{node.name or len(weight_nodes)}"
                new_inits += [numpy_helper.from_array(bq, f"{tag}_quantized"),
                              numpy_helper.from_array(b_scale, f"{tag}_scale"),
                              numpy_helper.from_array(np.zeros(b_scale.shape, np.int32), f"{tag}_zero_point")]
                weight_nodes.append(helper.make_node("DequantizeLinear",
                                                     [f"{tag}_quantized", f"{tag}_scale", f"{tag}_zero_point"],
                                                     [f"{tag}_dequantized"], name=f"{tag}_DequantizeLinear", axis=0))
                node.input[2] = f"{tag}_dequantized"
                replaced.add(bname)

    # Rewire activation consumers to the dequantized copies.
    for node in graph.node:
        if node.op_type in COMPUTE:
            for slot in (0, 1):
                if slot < len(node.input) and node.input[slot] in act_dq:
                    node.input[slot] = act_dq[node.input[slot]]

    # Rebuild the node list: weight DQs first (they read initializers only), then each activation's Q → DQ
    # right after the node producing it (or at the top for graph inputs).
    pairs = {}
    for (a, qn), (_, dqn) in zip(q_nodes, dq_nodes):
        pairs[a] = [qn, dqn]
    ordered = list(weight_nodes)
    inputs = {i.name for i in graph.input}
    for a in acts:
        if a in inputs:
            ordered += pairs.pop(a)
    for node in graph.node:
        ordered.append(node)
        for out in node.output:
            if out in pairs:
                ordered += pairs.pop(out)
    if pairs:
        die(f"no producer for {sorted(pairs)}")
    del graph.node[:]
    graph.node.extend(ordered)
    used = {i for n in ordered for i in n.input} | {o.name for o in graph.output}
    keep = [t for t in graph.initializer if t.name not in replaced or t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep + new_inits)
    # value_info of the float model stays valid; the new values are left to inference.
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    n_q = sum(1 for n in graph.node if n.op_type == "QuantizeLinear")
    n_dq = sum(1 for n in graph.node if n.op_type == "DequantizeLinear")
    print(f"{dst}: {n_q} QuantizeLinear, {n_dq} DequantizeLinear, {len(weights)} weights per channel, "
          f"{len(acts)} activations {qtype}")


if __name__ == "__main__":
    main(sys.argv)
