"""Converts a float32 ONNX model to float16 or bfloat16 throughout: initializers, Constant and
ConstantOfShape values, graph inputs, outputs and value_info, and the targets of Cast nodes. Every float32
tensor becomes the half type (round to nearest even), except the inputs the ONNX operators require in
float32 (Resize's scales), which stay float32. Uses only the onnx package and numpy (Debian's
python3-onnx).

Usage: convert-half.py IN.onnx OUT.onnx float16|bfloat16

The output is written under a temporary name and renamed into place, so OUT.onnx is always complete."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

# (op_type, input index) that the operator requires in float32 whatever the data type.
KEEP_FLOAT32 = {("Resize", 2), ("Upsample", 1)}


def to_bfloat16_bits(a):
    """float32 array -> uint16 bfloat16 bits, round to nearest even, NaN kept quiet."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    r = np.where(nan, ((u >> 16) | 0x40) & 0xFFFF, r)
    return r.astype(np.uint16)


def convert_tensor(t, target):
    if t.data_type != TensorProto.FLOAT:
        return t
    a = numpy_helper.to_array(t)
    if target == TensorProto.FLOAT16:
        out = numpy_helper.from_array(a.astype(np.float16), t.name)
    else:
        out = TensorProto()
        out.name = t.name
        out.data_type = TensorProto.BFLOAT16
        out.dims.extend(a.shape)
        out.raw_data = to_bfloat16_bits(a).tobytes()
    return out


def convert_type(type_proto, target):
    if type_proto.HasField("tensor_type") and type_proto.tensor_type.elem_type == TensorProto.FLOAT:
        type_proto.tensor_type.elem_type = target


def convert_graph(graph, target):
    keep = set()
    for node in graph.node:
        for op, k in KEEP_FLOAT32:
            if node.op_type == op and k < len(node.input) and node.input[k]:
                keep.add(node.input[k])
    inits = []
    for t in graph.initializer:
        inits.append(t if t.name in keep else convert_tensor(t, target))
    del graph.initializer[:]
    graph.initializer.extend(inits)
    for v in list(graph.input) + list(graph.output) + list(graph.value_info):
        if v.name not in keep:
            convert_type(v.type, target)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and not any(o in keep for o in node.output):
                attr.t.CopyFrom(convert_tensor(attr.t, target))
            elif attr.type == onnx.AttributeProto.GRAPH:
                convert_graph(attr.g, target)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    convert_graph(g, target)
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT and \
                    not any(o in keep for o in node.output):
                attr.i = target


def main(argv):
    if len(argv) != 4 or argv[3] not in ("float16", "bfloat16"):
        print(__doc__, file=sys.stderr)
        return 2
    target = TensorProto.FLOAT16 if argv[3] == "float16" else TensorProto.BFLOAT16
    model = onnx.load(argv[1])
    convert_graph(model.graph, target)
    out = argv[2]
    tmp = os.path.join(os.path.dirname(os.path.abspath(out)), f".{os.path.basename(out)}.{os.getpid()}.tmp")
    try:
        onnx.save(model, tmp)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
