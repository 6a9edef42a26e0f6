"""Converts a float32 ONNX model to float16 or bfloat16 throughout: initializers, Constant and
ConstantOfShape values, graph inputs, outputs and value_info, and the targets of Cast nodes. Every float32
tensor becomes the half type (round to nearest even), except the inputs the ONNX operators require in
float32 (Resize's scales), which stay float32. Uses only the onnx package and numpy (Debian's
python3-onnx).

Usage: convert-half.py IN.onnx OUT.onnx float16|bfloat16 [--keep-float32 OP[,OP...]]

--keep-float32 leaves float32 islands around the named operators, as torch autocast's and
onnxconverter-common's keep-in-float32 lists do for Softmax, LayerNormalization and ReduceMean: each such
node computes in float32, its half inputs cast up by a Cast(to float32) in front of it, its outputs cast back
by a Cast(to the half type) after it; a value between two kept nodes stays float32 (no Cast pair), and a
constant read only by kept nodes stays float32.

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


def float_values(model):
    """Names of the float32 values of the (float32) model, from ONNX shape inference."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    names = {t.name for t in g.initializer if t.data_type == TensorProto.FLOAT}
    for v in list(g.input) + list(g.output) + list(g.value_info):
        if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type == TensorProto.FLOAT:
            names.add(v.name)
    for node in g.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                    names.update(node.output)
    return names


def add_islands(graph, target, ops, floats):
    """Wraps every node whose op_type is in ops in Casts (see --keep-float32); returns the names that stay
    float32."""
    keep = set()
    consumers = {}
    for node in graph.node:
        for x in node.input:
            consumers.setdefault(x, []).append(node)
    producer = {o: node for node in graph.node for o in node.output}
    constants = {t.name for t in graph.initializer}
    constants.update(o for n in graph.node if n.op_type == "Constant" for o in n.output)
    outputs = {o.name for o in graph.output}
    kept = lambda n: n.op_type in ops  # noqa: E731
    nodes = []
    for node in graph.node:
        if not kept(node):
            nodes.append(node)
            continue
        for k, x in enumerate(node.input):
            if not x or x not in floats:
                continue
            if x in constants and all(kept(c) for c in consumers[x]):
                keep.add(x)
            elif not (x in producer and kept(producer[x])):
                up = f"{x}__to_float32_{node.name or node.output[0]}"
                nodes.append(onnx.helper.make_node("Cast", [x], [up], name=up, to=TensorProto.FLOAT))
                keep.add(up)
                node.input[k] = up
        nodes.append(node)
        for k, y in enumerate(node.output):
            if not y or y not in floats:
                continue
            if y not in outputs and all(kept(c) for c in consumers.get(y, [])):
                keep.add(y)
                continue
            wide = f"{y}__float32"
            node.output[k] = wide
            keep.add(wide)
            nodes.append(onnx.helper.make_node("Cast", [wide], [y], name=f"{y}__to_half", to=target))
            # Kept consumers read the float32 value directly.
            for c in consumers.get(y, []):
                if kept(c):
                    for i, x in enumerate(c.input):
                        if x == y:
                            c.input[i] = wide
    del graph.node[:]
    graph.node.extend(nodes)
    return keep


def convert_graph(graph, target, keep=None):
    keep = set(keep or ())
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
    ops = set()
    if len(argv) == 6 and argv[4] == "--keep-float32":
        ops = set(argv[5].split(","))
        argv = argv[:4]
    if len(argv) != 4 or argv[3] not in ("float16", "bfloat16"):
        print(__doc__, file=sys.stderr)
        return 2
    target = TensorProto.FLOAT16 if argv[3] == "float16" else TensorProto.BFLOAT16
    model = onnx.load(argv[1])
    keep = add_islands(model.graph, target, ops, float_values(model)) if ops else set()
    convert_graph(model.graph, target, keep)
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
