"""Writes small models that exercise the quantisation operators the way no exported network does, for the
real suite to compare our reference interpreter with ONNX Runtime on every value
(check-real-model.sh quantize-ops). Inputs are float (ort-run.js and fw-exec-run seed float inputs), so
each model quantizes first.

Usage: make-quantize-models.py OUTDIR   (prints the path of each model written)

  q_qlinear_conv     QuantizeLinear (uint8) → QLinearConv (int8 weights, per-channel scales, int32 bias,
                     group 2, stride 2, pads 1, uint8 output as ONNX Runtime
                     implements it for uint8 x) → DequantizeLinear, opset 13
  q_qlinear_matmul   QuantizeLinear (uint8) → QLinearMatMul (int8 B, per-column scales, uint8 output,
                     batched A) → DequantizeLinear, opset 13
  q_dynamic          DynamicQuantizeLinear (all three outputs) → DequantizeLinear, opset 13
  q_axis             per-axis QuantizeLinear / DequantizeLinear with axis -2 (int8 and uint8), opset 13
  q_blocked_int16    opset 21: blocked int8 (block_size 3, axis 1, a partial last block), int16 and uint16
                     per tensor, each through its DequantizeLinear
  q_int4             opset 21, 4-bit: x quantised to int4 per axis and to uint4 in blocks of 16 (a partial
                     last block), halves (all ties) to int4 and uint4 per tensor, each dequantised; MatMuls of those with int4 and
                     uint4 weights dequantised in blocks of 16 along K (packed initializers, zero points of
                     an odd count, so a padding nibble; the blocked zero points in int32_data), the first with a bias and Relu (the planner's
                     float group: no integer kernel takes 4-bit weights, FW-NF-023). Every output is float: ONNX Runtime's node binding
                     cannot hand back a 4-bit tensor, so the 4-bit values are compared through their
                     DequantizeLinear"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(out, name, nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="make-quantize-models.py")
    model.ir_version = 10 if opset >= 21 else 7
    path = os.path.join(out, f"{name}.onnx")
    onnx.save(model, path)
    print(path)


def value(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def qlinear_conv(out, rng):
    # 7-bit weights, as ONNX Runtime's quantizer makes them for x86 (reduce_range): on a CPU without VNNI its
    # uint8 x int8 convolution sums pairs of products in saturating int16 (vpmaddubsw), so full-range weights
    # (255 * 127 * 2 > 32767) make ONNX Runtime, not us, wrong on AVX2-only machines. Our full-range products
    # are checked against exact sums in test-exec-quantize.
    w = rng.integers(-64, 64, size=(6, 2, 3, 3)).astype(np.int8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["yq"],
                         group=2, strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    inits = [const("xs", np.float32(1 / 64)), const("xz", np.uint8(128)), const("w", w),
             const("ws", rng.uniform(0.001, 0.01, 6).astype(np.float32)), const("wz", np.zeros(6, np.int8)),
             const("ys", np.float32(0.05)), const("yz", np.uint8(125)),
             const("b", rng.integers(-2000, 2000, 6).astype(np.int32))]
    save(out, "q_qlinear_conv", nodes, [value("x", TensorProto.FLOAT, [1, 4, 9, 9])],
         [value("yq", TensorProto.UINT8, None), value("y", TensorProto.FLOAT, None)], inits, 13)


def qlinear_matmul(out, rng):
    nodes = [
        helper.make_node("QuantizeLinear", ["a", "as", "az"], ["aq"]),
        helper.make_node("QLinearMatMul", ["aq", "as", "az", "b", "bs", "bz", "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    inits = [const("as", np.float32(1 / 100)), const("az", np.uint8(120)),
             # 7-bit, for the reason qlinear_conv gives (ONNX Runtime's int16 pair sums without VNNI)
             const("b", rng.integers(-64, 64, size=(16, 8)).astype(np.int8)),
             const("bs", rng.uniform(0.001, 0.02, 8).astype(np.float32)), const("bz", np.zeros(8, np.int8)),
             const("ys", np.float32(0.03)), const("yz", np.uint8(128))]
    save(out, "q_qlinear_matmul", nodes, [value("a", TensorProto.FLOAT, [2, 3, 16])],
         [value("yq", TensorProto.UINT8, None), value("y", TensorProto.FLOAT, None)], inits, 13)


def dynamic(out, rng):
    nodes = [
        helper.make_node("Mul", ["x", "k"], ["xk"]),
        helper.make_node("DynamicQuantizeLinear", ["xk"], ["yq", "ys", "yz"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    save(out, "q_dynamic", nodes, [value("x", TensorProto.FLOAT, [4, 33])],
         [value("yq", TensorProto.UINT8, None), value("ys", TensorProto.FLOAT, None),
          value("yz", TensorProto.UINT8, None), value("y", TensorProto.FLOAT, None)],
         [const("k", np.float32(3.7))], 13)


def axis(out, rng):
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z8"], ["q8"], axis=-2),
        helper.make_node("DequantizeLinear", ["q8", "s", "z8"], ["d8"], axis=-2),
        helper.make_node("QuantizeLinear", ["x", "s", "zu"], ["qu"], axis=-2),
        helper.make_node("DequantizeLinear", ["qu", "s", "zu"], ["du"], axis=-2),
    ]
    inits = [const("s", np.array([1 / 50, 1 / 200, 1 / 1000], np.float32)),
             const("z8", np.array([0, -20, 100], np.int8)), const("zu", np.array([128, 0, 255], np.uint8))]
    save(out, "q_axis", nodes, [value("x", TensorProto.FLOAT, [2, 3, 20])],
         [value(n, t, None) for n, t in (("q8", TensorProto.INT8), ("d8", TensorProto.FLOAT),
                                         ("qu", TensorProto.UINT8), ("du", TensorProto.FLOAT))], inits, 13)


def blocked(out, rng):
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "bs", "bz"], ["qb"], axis=1, block_size=3),
        helper.make_node("DequantizeLinear", ["qb", "bs", "bz"], ["db"], axis=1, block_size=3),
        helper.make_node("QuantizeLinear", ["x", "s16", "z16"], ["q16"]),
        helper.make_node("DequantizeLinear", ["q16", "s16", "z16"], ["d16"]),
        helper.make_node("QuantizeLinear", ["x", "s16", "zu16"], ["qu16"]),
        helper.make_node("DequantizeLinear", ["qu16", "s16", "zu16"], ["du16"]),
    ]
    inits = [const("bs", rng.uniform(0.002, 0.02, (4, 3)).astype(np.float32)),
             const("bz", rng.integers(-10, 10, (4, 3)).astype(np.int8)),
             const("s16", np.float32(1 / 20000)), const("z16", np.int16(-1000)), const("zu16", np.uint16(30000))]
    save(out, "q_blocked_int16", nodes, [value("x", TensorProto.FLOAT, [4, 8])],
         [value(n, t, None) for n, t in (("qb", TensorProto.INT8), ("db", TensorProto.FLOAT),
                                         ("q16", TensorProto.INT16), ("d16", TensorProto.FLOAT),
                                         ("qu16", TensorProto.UINT16), ("du16", TensorProto.FLOAT))], inits, 21)


INT4, UINT4 = 22, 21   # TensorProto.INT4 / UINT4 (onnx >= 1.16; Debian's python3-onnx is older)


def packed4(name, values, elem, typed=False):
    """A 4-bit initializer as onnx.proto stores it: two a byte, the first in the low nibble, in raw_data or
    (typed) in int32_data, one packed byte an entry."""
    v = np.asarray(values, np.int64)
    nib = (v.ravel() & 0xF).astype(np.uint8)
    if nib.size % 2:
        nib = np.append(nib, np.uint8(0))
    t = TensorProto()
    t.name = name
    t.data_type = elem
    t.dims.extend(v.shape)
    pairs = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8)
    if typed:
        t.int32_data.extend(int(b) for b in pairs)
    else:
        t.raw_data = pairs.tobytes()
    return t


def int4(out, rng):
    k, n = 40, 5
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sa", "za"], ["xa"], axis=0),
        helper.make_node("DequantizeLinear", ["xa", "sa", "za"], ["da"], axis=0),
        helper.make_node("QuantizeLinear", ["x", "sb", "zb"], ["xb"], axis=1, block_size=16),
        helper.make_node("DequantizeLinear", ["xb", "sb", "zb"], ["db"], axis=1, block_size=16),
        # every half from -11.5 to 11.5: all ties, beyond both ends of each range
        helper.make_node("QuantizeLinear", ["xh", "one", "zh"], ["xh4"]),
        helper.make_node("DequantizeLinear", ["xh4", "one", "zh"], ["dh"]),
        helper.make_node("QuantizeLinear", ["xh", "one", "zt"], ["xt"]),
        helper.make_node("DequantizeLinear", ["xt", "one", "zt"], ["dt"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0, block_size=16),
        # with an epilogue, so the float MatMul the planner falls back to is a group of its own
        helper.make_node("MatMul", ["da", "wd"], ["mm"]),
        helper.make_node("Add", ["mm", "bias"], ["mb"]),
        helper.make_node("Relu", ["mb"], ["y"]),
        helper.make_node("DequantizeLinear", ["u", "us", "uz"], ["ud"], axis=0, block_size=16),
        helper.make_node("MatMul", ["db", "ud"], ["y2"]),
    ]
    # Power-of-two scales: inputs are k/1024 - 1, so x / scale is exact, and with the smaller scales far
    # beyond [-8, 7] and [0, 15] (saturation at both ends).
    inits = [const("sa", np.array([1 / 8, 1 / 16, 1 / 4, 1 / 2], np.float32)),
             packed4("za", [0, -3, 2, 7], INT4),
             const("sb", np.array([1 / 8, 1 / 4, 1 / 16] * 4, np.float32).reshape(4, 3)),
             packed4("zb", rng.integers(0, 16, (4, 3)), UINT4, typed=True),
             const("xh", np.arange(-11.5, 12, 1, dtype=np.float32)), const("one", np.float32(1)),
             packed4("zh", np.int64(0), INT4), packed4("zt", np.int64(8), UINT4),
             packed4("w", rng.integers(-8, 8, (k, n)), INT4),
             const("ws", rng.uniform(0.01, 0.1, (3, n)).astype(np.float32)),
             const("bias", rng.uniform(-0.5, 0.5, n).astype(np.float32)),
             packed4("wz", rng.integers(-8, 8, (3, n)), INT4),
             packed4("u", rng.integers(0, 16, (k, n)), UINT4),
             const("us", rng.uniform(0.01, 0.1, (3, n)).astype(np.float32)),
             packed4("uz", rng.integers(0, 16, (3, n)), UINT4)]
    save(out, "q_int4", nodes, [value("x", TensorProto.FLOAT, [4, k])],
         [value(nm, TensorProto.FLOAT, None) for nm in ("da", "db", "dh", "dt", "y", "y2")], inits, 21)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    rng = np.random.default_rng(19)
    for make in (qlinear_conv, qlinear_matmul, dynamic, axis, blocked, int4):
        make(argv[1], rng)


if __name__ == "__main__":
    main(sys.argv)
