#!/usr/bin/env python3
"""Writes the hostile-input corpus into tests/data/bad/ (and the valid base model into tests/data/good/).

Run by hand from anywhere (python3 tests/data/make-bad-corpus.py); the outputs are committed. Standard
library only: the ONNX files are built with the tiny protobuf encoder below from onnx.proto's field numbers,
starting from one small valid model and breaking it in one way per file. The output is deterministic (no
clocks, no randomness), so running it again changes nothing.

The 10 MB YAML scalars are not written here (too big to commit): check-bad-corpus.sh generates them at
run time. tests/data/bad/README.md is written from the descriptions below, one line per file.
"""

import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "bad")
GOOD = os.path.join(HERE, "good")

# ---------------------------------------------------------------------------------------------------------
# Protobuf encoder

VARINT, FIXED64, LEN, SGROUP, EGROUP, FIXED32 = 0, 1, 2, 3, 4, 5


def varint(n):
    n &= (1 << 64) - 1          # negative int64 values are written as 10-byte two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def f_varint(field, value):
    return key(field, VARINT) + varint(value)


def f_len(field, payload):
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return key(field, LEN) + varint(len(payload)) + payload


def f_float(field, value):
    return key(field, FIXED32) + struct.pack("<f", value)


# onnx.proto field numbers
M_IR, M_GRAPH, M_OPSET = 1, 7, 8
OPSET_DOMAIN, OPSET_VERSION = 1, 2
G_NODE, G_NAME, G_INIT, G_INPUT, G_OUTPUT, G_VALUE_INFO = 1, 2, 5, 11, 12, 13
N_INPUT, N_OUTPUT, N_NAME, N_OP, N_ATTR, N_DOMAIN = 1, 2, 3, 4, 5, 7
A_NAME, A_F, A_I, A_S, A_T, A_G, A_INTS, A_TYPE = 1, 2, 3, 4, 5, 6, 8, 20
VI_NAME, VI_TYPE = 1, 2
TP_TENSOR, TT_ELEM, TT_SHAPE, SH_DIM, DIM_VALUE, DIM_PARAM = 1, 1, 2, 1, 1, 2
T_DIMS, T_DTYPE, T_NAME, T_RAW, T_EXT, T_LOC = 1, 2, 8, 9, 13, 14
E_KEY, E_VALUE = 1, 2

FLOAT = 1               # TensorProto.FLOAT
ATTR_FLOAT, ATTR_INT, ATTR_GRAPH = 1, 2, 5


def opset(domain="", version=17):
    return (f_len(OPSET_DOMAIN, domain) if domain else b"") + f_varint(OPSET_VERSION, version)


def model(graph_payload, ir=8, opsets=None, extra=b""):
    out = f_varint(M_IR, ir)
    for o in (opsets if opsets is not None else [opset()]):
        out += f_len(M_OPSET, o)
    return out + f_len(M_GRAPH, graph_payload) + extra


def dims_payload(dims):
    shape = b""
    for d in dims:
        shape += f_len(SH_DIM, f_len(DIM_PARAM, d) if isinstance(d, str) else f_varint(DIM_VALUE, d))
    return shape


def value_info(name, dims, elem=FLOAT):
    tensor_type = f_varint(TT_ELEM, elem) + f_len(TT_SHAPE, dims_payload(dims))
    return f_len(VI_NAME, name) + f_len(VI_TYPE, f_len(TP_TENSOR, tensor_type))


def tensor(name, dims, raw=None, dtype=FLOAT, external=None):
    out = b"".join(f_varint(T_DIMS, d) for d in dims)
    out += f_varint(T_DTYPE, dtype) + f_len(T_NAME, name)
    if raw is not None:
        out += f_len(T_RAW, raw)
    if external is not None:
        for k, v in external:
            out += f_len(T_EXT, f_len(E_KEY, k) + f_len(E_VALUE, v))
        out += f_varint(T_LOC, 1)   # EXTERNAL
    return out


def attr_float(name, value):
    return f_len(A_NAME, name) + f_float(A_F, value) + f_varint(A_TYPE, ATTR_FLOAT)


def attr_graph(name, graph_payload):
    return f_len(A_NAME, name) + f_len(A_G, graph_payload) + f_varint(A_TYPE, ATTR_GRAPH)


def node(inputs, outputs, name, op, attrs=(), domain=None):
    out = b"".join(f_len(N_INPUT, i) for i in inputs)
    out += b"".join(f_len(N_OUTPUT, o) for o in outputs)
    out += f_len(N_NAME, name) + f_len(N_OP, op)
    out += b"".join(f_len(N_ATTR, a) for a in attrs)
    if domain is not None:
        out += f_len(N_DOMAIN, domain)
    return out


def graph(nodes, inputs, outputs, initializers=(), value_infos=(), name="base"):
    out = b"".join(f_len(G_NODE, n) for n in nodes)
    out += f_len(G_NAME, name)
    out += b"".join(f_len(G_INIT, t) for t in initializers)
    out += b"".join(f_len(G_INPUT, v) for v in inputs)
    out += b"".join(f_len(G_OUTPUT, v) for v in outputs)
    out += b"".join(f_len(G_VALUE_INFO, v) for v in value_infos)
    return out


# ---------------------------------------------------------------------------------------------------------
# The valid base model: x float[1,4] → LeakyRelu(alpha=0.1) → r → Add(r, bias) → y float[1,4];
# bias is a float[4] initializer with raw_data. LeakyRelu rather than Relu so that a node has an attribute
# to cut into.

BIAS_RAW = struct.pack("<4f", 0.5, -1.0, 2.0, 0.25)
ATTR_ALPHA = attr_float("alpha", 0.1)
NODE_ACT = node(["x"], ["r"], "act", "LeakyRelu", [ATTR_ALPHA])
NODE_ADD = node(["r", "bias"], ["y"], "add", "Add")
INIT_BIAS = tensor("bias", [4], BIAS_RAW)
VI_X = value_info("x", [1, 4])
VI_Y = value_info("y", [1, 4])
VI_R = value_info("r", [1, 4])


def base_graph(nodes=None, inputs=None, outputs=None, initializers=None, value_infos=None):
    return graph(nodes if nodes is not None else [NODE_ACT, NODE_ADD],
                 inputs if inputs is not None else [VI_X],
                 outputs if outputs is not None else [VI_Y],
                 initializers if initializers is not None else [INIT_BIAS],
                 value_infos if value_infos is not None else [VI_R])


BASE = model(base_graph())


def offset_of(sub, whole=BASE):
    assert whole.count(sub) == 1, "sub-message not unique in the base model"
    return whole.index(sub)


def cut_inside(sub, fraction=0.5):
    """The base model cut at a byte inside the encoding of sub (a message payload of the base)."""
    start = offset_of(sub)
    return BASE[:start + max(1, int(len(sub) * fraction))]


def flip(data, offset, bit):
    b = bytearray(data)
    b[offset] ^= 1 << bit
    return bytes(b)


# ---------------------------------------------------------------------------------------------------------
# Cases: (relative path, bytes, description). Folder cases hold a model.onnx and its data files.

CASES = []
NOTES = []


def case(path, data, what):
    CASES.append((path, data, what))


# Not ONNX at all
case("onnx-empty.onnx", b"", "an empty file")
case("onnx-text-file.onnx", b"this is not a protobuf file\n", "plain text: an invalid wire type in the first tag")
case("onnx-all-ff.onnx", b"\xff" * 64, "64 bytes of 0xff: a tag varint that never ends")
case("onnx-zero-field-number.onnx", b"\x00\x01" + BASE, "a tag with field number 0 before a valid model")

# Truncations, cutting the file at a byte inside each structural depth
case("onnx-truncated-in-model-header.onnx", BASE[:1], "cut after the first tag byte (ir_version has no value)")
case("onnx-truncated-in-opset-import.onnx", cut_inside(opset()),
     "cut inside the opset_import entry")
case("onnx-truncated-in-graph.onnx", cut_inside(f_len(G_NAME, "base"), 0.6),
     "cut inside the graph (in its name), its length runs past the end")
case("onnx-truncated-in-node.onnx", cut_inside(NODE_ADD, 0.7), "cut inside a node (in its op_type)")
case("onnx-truncated-in-node-attribute.onnx", cut_inside(ATTR_ALPHA, 0.6),
     "cut inside a node's attribute (in the float value)")
case("onnx-truncated-in-initializer-header.onnx", cut_inside(f_len(T_NAME, "bias"), 0.5),
     "cut inside an initializer's header (its name)")
case("onnx-truncated-in-initializer-raw-data.onnx", cut_inside(BIAS_RAW, 0.5),
     "cut inside an initializer's raw_data")
case("onnx-truncated-in-value-info-shape.onnx", BASE[:offset_of(VI_R) + VI_R.index(dims_payload([1, 4])) + 3],
     "cut inside a value_info's shape (between its dims)")
case("onnx-truncated-mid-varint.onnx", BASE[:offset_of(f_len(M_GRAPH, base_graph())) + 2],
     "cut inside the graph field's length varint")

# Truncations inside one message whose enclosing lengths are all consistent (the inner parser must notice)
case("onnx-inner-truncated-graph.onnx", model(base_graph()[:-3]),
     "the graph payload ends inside its last value_info; the model's length for it is consistent")
case("onnx-inner-truncated-node.onnx",
     model(base_graph(nodes=[NODE_ACT, NODE_ADD[:-2]])), "a node's payload ends inside its op_type string")
case("onnx-inner-truncated-attribute.onnx",
     model(base_graph(nodes=[node(["x"], ["r"], "act", "LeakyRelu", [ATTR_ALPHA[:len(f_len(A_NAME, 'alpha')) + 3]]),
                             NODE_ADD])), "an attribute's payload ends inside its 4-byte float")
case("onnx-inner-truncated-initializer.onnx",
     model(base_graph(initializers=[INIT_BIAS[:-5]])), "an initializer's payload ends inside raw_data")
case("onnx-inner-truncated-shape.onnx",
     model(base_graph(value_infos=[f_len(VI_NAME, "r") + f_len(VI_TYPE, f_len(TP_TENSOR, f_varint(TT_ELEM, FLOAT) + f_len(TT_SHAPE, dims_payload([1, 4])[:-1])))])),
     "a shape's payload ends inside a dim")
case("onnx-raw-data-short.onnx", model(base_graph(initializers=[tensor("bias", [4], BIAS_RAW[:15])])),
     "float[4] initializer with 15 bytes of raw_data")
case("onnx-raw-data-long.onnx", model(base_graph(initializers=[tensor("bias", [4], BIAS_RAW + b"\0")])),
     "float[4] initializer with 17 bytes of raw_data")

# Bit flips (each chosen to break the file, not to make another valid model)
g_off = offset_of(f_len(M_GRAPH, base_graph()))
case("onnx-bitflip-graph-tag.onnx", flip(BASE, g_off, 1),
     "one bit flipped in the graph field's tag: wire type 2 becomes 0 (varint)")
case("onnx-bitflip-graph-length.onnx", flip(BASE, g_off + 2, 6),
     "one bit flipped in the graph's length: it runs past the end")
case("onnx-bitflip-node-tag.onnx", flip(BASE, offset_of(NODE_ACT) - 2, 2),
     "one bit flipped in the first node's tag: wire type 2 becomes 6 (invalid)")
case("onnx-bitflip-ir-version.onnx", flip(BASE, 1, 6), "one bit flipped in ir_version (8 becomes 72)")
case("onnx-bitflip-raw-data-length.onnx", flip(BASE, offset_of(BIAS_RAW) - 1, 4),
     "one bit flipped in raw_data's length (16 becomes 0)")

# Wrong wire types for known fields
case("onnx-wire-graph-as-varint.onnx", f_varint(M_IR, 8) + f_len(M_OPSET, opset()) + f_varint(M_GRAPH, 5),
     "ModelProto.graph written as a varint")
case("onnx-wire-ir-version-as-bytes.onnx", f_len(M_IR, b"\x08") + f_len(M_OPSET, opset()) + f_len(M_GRAPH, base_graph()),
     "ModelProto.ir_version written as a length-delimited field")
case("onnx-wire-op-type-as-varint.onnx",
     model(base_graph(nodes=[NODE_ACT, f_len(N_INPUT, "r") + f_len(N_INPUT, "bias") + f_len(N_OUTPUT, "y") + f_varint(N_OP, 3)])),
     "NodeProto.op_type written as a varint")
case("onnx-wire-dims-as-fixed64.onnx",
     model(base_graph(initializers=[key(T_DIMS, FIXED64) + struct.pack("<q", 4) + f_varint(T_DTYPE, FLOAT) + f_len(T_NAME, "bias") + f_len(T_RAW, BIAS_RAW)])),
     "TensorProto.dims written as fixed64")
case("onnx-wire-attribute-f-as-varint.onnx",
     model(base_graph(nodes=[node(["x"], ["r"], "act", "LeakyRelu", [f_len(A_NAME, "alpha") + f_varint(A_F, 1) + f_varint(A_TYPE, ATTR_FLOAT)]), NODE_ADD])),
     "AttributeProto.f written as a varint instead of fixed32")
case("onnx-wire-group.onnx", BASE + key(20, SGROUP) + f_varint(1, 1) + key(20, EGROUP),
     "a deprecated group (wire types 3 and 4) after the model")
case("onnx-wire-type-7.onnx", BASE + key(15, 7) + b"\0", "a field with wire type 7, which does not exist")

# Varints
case("onnx-varint-11-bytes.onnx", key(M_IR, VARINT) + b"\x88" + b"\x80" * 9 + b"\x00" + BASE[2:],
     "ir_version as an 11-byte varint")
case("onnx-varint-length-11-bytes.onnx",
     f_varint(M_IR, 8) + f_len(M_OPSET, opset()) + key(M_GRAPH, LEN) + b"\xff" * 10 + b"\x01" + base_graph(),
     "the graph's length as an 11-byte varint")
case("onnx-varint-10-bytes-overflow.onnx", key(M_IR, VARINT) + b"\xff" * 9 + b"\x7f" + BASE[2:],
     "ir_version as a 10-byte varint whose last byte overflows 64 bits")
case("onnx-varint-tag-unterminated.onnx", BASE + b"\x80\x80\x80",
     "a tag varint at the end of the file that never ends")

# Lengths past the end
case("onnx-length-past-end-by-one.onnx",
     f_varint(M_IR, 8) + f_len(M_OPSET, opset()) + key(M_GRAPH, LEN) + varint(len(base_graph()) + 1) + base_graph(),
     "the graph's length is one byte more than the file holds")
case("onnx-length-2p31.onnx",
     f_varint(M_IR, 8) + f_len(M_OPSET, opset()) + key(M_GRAPH, LEN) + varint(1 << 31) + base_graph(),
     "the graph's length is 2^31")
case("onnx-length-2p64-minus-1.onnx",
     f_varint(M_IR, 8) + f_len(M_OPSET, opset()) + key(M_GRAPH, LEN) + varint((1 << 64) - 1) + base_graph(),
     "the graph's length is 2^64-1 (offset + length wraps around)")
case("onnx-length-past-end-in-node.onnx",
     model(base_graph(nodes=[NODE_ACT, f_len(N_INPUT, "r") + key(N_OP, LEN) + varint(1 << 40) + b"Add"])),
     "a node's op_type length runs past the node's end (2^40)")

# Deep nesting: 1,000 graphs nested through If.then_branch attributes
deep = graph([node([], ["c"], "leaf", "Constant")], [], [value_info("c", [1])], name="g1000")
for i in range(999, 0, -1):
    deep = graph([node(["cond"], ["o%d" % i], "if%d" % i, "If", [attr_graph("then_branch", deep)])],
                 [value_info("cond", [1])], [value_info("o%d" % i, [1])], name="g%d" % i)
case("onnx-nested-1000-deep.onnx", model(deep), "subgraphs nested 1,000 deep (If.then_branch)")

# Tensors with absurd sizes and negative dims
case("onnx-initializer-2p62-elements.onnx",
     model(base_graph(initializers=[tensor("bias", [1 << 31, 1 << 31], BIAS_RAW)])),
     "a float initializer claiming 2^62 elements with 16 bytes of data")
case("onnx-initializer-dims-overflow.onnx",
     model(base_graph(initializers=[tensor("bias", [1 << 32, 1 << 32, 1 << 32], BIAS_RAW)])),
     "an initializer whose element count (2^96) overflows 64 bits")
case("onnx-initializer-negative-dim.onnx",
     model(base_graph(initializers=[tensor("bias", [-4], BIAS_RAW)])), "an initializer with dims [-4]")
case("onnx-input-negative-dim.onnx", model(base_graph(inputs=[value_info("x", [1, -4])])),
     "graph input x with shape [1, -4]")
case("onnx-input-2p62-elements.onnx",
     model(base_graph(inputs=[value_info("x", [1 << 60, 4])], outputs=[value_info("y", [1 << 60, 4])],
                      value_infos=[value_info("r", [1 << 60, 4])])),
     "graph input, output and value_info declared [2^60, 4] (2^62 elements)")
case("onnx-input-2p31-by-2p31.onnx",
     model(base_graph(inputs=[value_info("x", [1 << 31, 1 << 31, 4])], outputs=[value_info("y", [1 << 31, 1 << 31, 4])],
                      value_infos=[])),
     "graph input [2^31, 2^31, 4]: every dim small, the product 2^64")
case("onnx-input-dim-int64-max.onnx", model(base_graph(inputs=[value_info("x", [(1 << 63) - 1, 4])], value_infos=[])),
     "graph input with a dim of 2^63-1")
case("onnx-input-unknown-elem-type.onnx", model(base_graph(inputs=[value_info("x", [1, 4], elem=99)])),
     "graph input with elem_type 99")
case("onnx-broadcast-mismatch.onnx", model(base_graph(inputs=[value_info("x", [1, 5])], value_infos=[])),
     "x is [1, 5], Add's bias [4]: shapes cannot be broadcast")
case("onnx-node-name-not-utf8.onnx",
     model(base_graph(nodes=[f_len(N_INPUT, "x") + f_len(N_OUTPUT, "r") + f_len(N_NAME, b"\xff\xfe") + f_len(N_OP, "LeakyRelu"),
                             NODE_ADD])),
     "a node name of bytes ff fe (not UTF-8)")
case("onnx-initializer-too-many-dims.onnx",
     model(base_graph(initializers=[tensor("bias", [1] * 200 + [4], BIAS_RAW)])),
     "an initializer with 201 dims")
case("onnx-initializer-unknown-dtype.onnx",
     model(base_graph(initializers=[tensor("bias", [4], BIAS_RAW, dtype=99)])), "an initializer with data_type 99")

# Graph structure
case("onnx-graph-cycle.onnx",
     model(graph([node(["y", "x"], ["r"], "act", "Add"), node(["r", "bias"], ["y"], "add", "Add")],
                 [VI_X], [VI_Y], [INIT_BIAS])), "two nodes that feed each other (r → y → r)")
case("onnx-graph-self-loop.onnx",
     model(graph([node(["x", "r"], ["r"], "act", "Add"), NODE_ADD], [VI_X], [VI_Y], [INIT_BIAS])),
     "a node that reads its own output")
case("onnx-dangling-input.onnx",
     model(base_graph(nodes=[NODE_ACT, node(["r", "nowhere"], ["y"], "add", "Add")])),
     "a node input that nothing produces")
case("onnx-dangling-output.onnx", model(base_graph(outputs=[VI_Y, value_info("missing", [1, 4])])),
     "a graph output that nothing produces")
case("onnx-duplicate-output-name.onnx",
     model(base_graph(nodes=[NODE_ACT, node(["x"], ["r"], "act2", "Relu"), NODE_ADD])),
     "two nodes produce the same value name r")
case("onnx-duplicate-input.onnx", model(base_graph(inputs=[VI_X, VI_X])), "graph input x declared twice")
case("onnx-duplicate-initializer.onnx", model(base_graph(initializers=[INIT_BIAS, INIT_BIAS])),
     "initializer bias given twice")
case("onnx-node-output-twice.onnx",
     model(base_graph(nodes=[node(["x"], ["r", "r"], "act", "LeakyRelu", [ATTR_ALPHA]), NODE_ADD])),
     "a node that lists the same output twice")
case("onnx-node-no-op-type.onnx",
     model(base_graph(nodes=[NODE_ACT, f_len(N_INPUT, "r") + f_len(N_INPUT, "bias") + f_len(N_OUTPUT, "y")])),
     "a node without op_type")
case("onnx-attribute-unknown-type.onnx",
     model(base_graph(nodes=[node(["x"], ["r"], "act", "LeakyRelu", [f_len(A_NAME, "alpha") + f_float(A_F, 0.1) + f_varint(A_TYPE, 99)]), NODE_ADD])),
     "an attribute of type 99")
case("onnx-attribute-no-name.onnx",
     model(base_graph(nodes=[node(["x"], ["r"], "act", "LeakyRelu", [f_float(A_F, 0.1) + f_varint(A_TYPE, ATTR_FLOAT)]), NODE_ADD])),
     "an attribute without a name")

# Model header
case("onnx-no-graph.onnx", f_varint(M_IR, 8) + f_len(M_OPSET, opset()), "a model without a graph")
case("onnx-no-ir-version.onnx", f_len(M_OPSET, opset()) + f_len(M_GRAPH, base_graph()), "a model without ir_version")
case("onnx-ir-version-huge.onnx", model(base_graph(), ir=1 << 62), "ir_version 2^62")
case("onnx-opset-999.onnx", model(base_graph(), opsets=[opset(version=999)]), "ai.onnx opset 999")
case("onnx-no-opset.onnx", model(base_graph(), opsets=[]), "ai.onnx operators but no opset_import")

# External data: one folder per case, the model in model.onnx next to its data
def ext_model(entries):
    return model(base_graph(initializers=[tensor("bias", [4], None, external=entries)]))


case("external-outside/model.onnx", ext_model([("location", "../../outside.bin")]),
     "external data location ../../outside.bin (leaves the folder)")
case("external-dotdot-existing/model.onnx", ext_model([("location", "../outside.bin")]),
     "external data location ../outside.bin, a file that exists (bad/outside.bin)")
case("external-absolute/model.onnx", ext_model([("location", "/etc/passwd")]),
     "external data location /etc/passwd (absolute)")
case("external-dev-zero/model.onnx", ext_model([("location", "/dev/zero")]),
     "external data location /dev/zero")
case("external-symlink-dev-zero/model.onnx", ext_model([("location", "zero.bin")]),
     "external data zero.bin, a relative symlink to /dev/zero")
case("external-symlink-outside/model.onnx", ext_model([("location", "weights.bin")]),
     "external data weights.bin, a symlink to ../outside.bin (outside the folder)")
case("external-past-end/model.onnx", ext_model([("location", "weights.bin")]),
     "external data weights.bin holds 8 bytes, the tensor needs 16")
case("external-offset-past-end/model.onnx", ext_model([("location", "weights.bin"), ("offset", "4096")]),
     "external data offset 4096 in a 16-byte file")
case("external-offset-huge/model.onnx",
     ext_model([("location", "weights.bin"), ("offset", "18446744073709551600")]),
     "external data offset near 2^64 (overflow)")
case("external-offset-negative/model.onnx", ext_model([("location", "weights.bin"), ("offset", "-16")]),
     "external data offset -16")
case("external-length-mismatch/model.onnx", ext_model([("location", "weights.bin"), ("length", "8")]),
     "external data length 8 for a float[4] tensor")
case("external-offset-not-a-number/model.onnx", ext_model([("location", "weights.bin"), ("offset", "12abc")]),
     "external data offset \"12abc\"")
case("external-missing-file/model.onnx", ext_model([("location", "nothere.bin")]),
     "external data file that does not exist")
case("external-directory/model.onnx", ext_model([("location", "sub")]),
     "external data location is a folder")
case("external-no-location/model.onnx", ext_model([("offset", "0")]),
     "data_location EXTERNAL without a location entry")
case("external-2p62-elements/model.onnx",
     model(base_graph(initializers=[tensor("bias", [1 << 31, 1 << 31], None, external=[("location", "weights.bin")])])),
     "external float initializer claiming 2^62 elements, 16-byte file")

# Extra files of the external cases (written after the models)
EXTRA_FILES = [
    ("outside.bin", BIAS_RAW),                          # the target of the escaping cases; not a case itself
    ("external-past-end/weights.bin", BIAS_RAW[:8]),
    ("external-offset-past-end/weights.bin", BIAS_RAW),
    ("external-offset-huge/weights.bin", BIAS_RAW),
    ("external-offset-negative/weights.bin", BIAS_RAW),
    ("external-length-mismatch/weights.bin", BIAS_RAW),
    ("external-offset-not-a-number/weights.bin", BIAS_RAW),
    ("external-2p62-elements/weights.bin", BIAS_RAW),
    ("external-directory/sub/.keep", b""),
]
SYMLINKS = [
    ("external-symlink-dev-zero/zero.bin", "/dev/zero"),
    ("external-symlink-outside/weights.bin", "../outside.bin"),
]

# ---------------------------------------------------------------------------------------------------------
# YAML: rules (--rules), profiles (--profile), whitelists (--whitelist). File names start with
# yaml-rules-, yaml-profile- or yaml-whitelist-; check-bad-corpus.sh picks the option from that.

RULES_OK = "version: 1\nrules:\n  - name: leaky_add\n    pattern: [LeakyRelu, Add]\n    priority: 10\n"
PROFILE_OK = """version: 1
name: bad-chip
kind: npu
cores: {cube: 24, vector: 48}
memory:
  ub: 192 KiB
  ub_reserve: 256 B
bandwidth: {hbm: 1.6 TB/s}
throughput: {cube_fp16: 354 TFLOP/s, vector_fp16: 11.4 TFLOP/s}
"""
WHITELIST_OK = "version: 1\nentries:\n  - pattern: elementwise_chain\n    decision: accept\n    who: corpus\n"
BOM = "\ufeff"


def laughs(prefix):
    lines = ['lol0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join("*a%d" % (i - 1) for _ in range(10))
        lines.append("lol%d: &a%d [%s]" % (i, i, refs))
    return prefix + "\n".join(lines) + "\n"


def deep_flow(n):
    return "[" * n + "]" * n


def deep_block(prefix, n):
    # "- - - … x": block sequences nested n deep on one line (indented mappings would take ~n^2 bytes)
    return prefix + "\nnested:\n  " + "- " * n + "x\n"


for kind, ok, list_key in (("rules", RULES_OK, "rules"), ("profile", PROFILE_OK, None),
                           ("whitelist", WHITELIST_OK, "entries")):
    p = "yaml-%s-" % kind
    case(p + "billion-laughs.yaml", laughs("version: 1\n").encode(),
         "billion laughs: ten anchors, each a list of ten aliases of the one before")
    case(p + "tab-indented.yaml", ok.replace("  ", "\t").encode(), "indented with tabs")
    case(p + "duplicate-key.yaml", (ok + "version: 1\n").encode(), "the top-level key version given twice")
    case(p + "non-utf8.yaml", ok.encode() + b"# caf\xe9 \xff\xfe\n", "Latin-1 and 0xff bytes in a comment (not UTF-8)")
    case(p + "deep-flow-1000.yaml", ("version: 1\nnested: " + deep_flow(1000) + "\n").encode(),
         "a flow list nested 1,000 deep")
    case(p + "deep-block-1000.yaml", deep_block("version: 1", 1000).encode(), "block sequences nested 1,000 deep (- - - … x)")
    case(p + "empty.yaml", b"", "an empty file")
    case(p + "scalar-document.yaml", b"just a string\n", "a document that is a scalar, not a mapping")
    case(p + "unterminated-quote.yaml", (ok + 'description: "never closed\n').encode(), "an unterminated double-quoted string")
    case(p + "nul-byte.yaml", ok.encode() + b"# \x00\n", "a NUL byte in a comment")
    case(p + "two-documents.yaml", (ok + "---\n" + ok).encode(), "two YAML documents in one file")
    case(p + "version-2.yaml", ok.replace("version: 1", "version: 2").encode(), "version 2")
    case(p + "no-version.yaml", ok.replace("version: 1\n", "").encode(), "no version key")

case("yaml-rules-bom-unknown-key.yaml", (BOM + RULES_OK + "    priorty: 3\n").encode(),
     "UTF-8 BOM, then a rule with the unknown key priorty")
case("yaml-rules-unknown-key.yaml", (RULES_OK + "    patern: [Relu]\n").encode(), "a rule with the unknown key patern")
case("yaml-rules-unknown-top-key.yaml", (RULES_OK + "rulez: []\n").encode(), "the unknown top-level key rulez")
case("yaml-rules-wrong-type-priority.yaml", RULES_OK.replace("priority: 10", "priority: high").encode(),
     "priority: high (not a number)")
case("yaml-rules-wrong-type-pattern.yaml", RULES_OK.replace("[LeakyRelu, Add]", "{op: LeakyRelu}").encode(),
     "pattern is a mapping, not a list")
case("yaml-rules-wrong-type-rules.yaml", b"version: 1\nrules: 42\n", "rules: 42 (not a list)")
case("yaml-rules-priority-overflow.yaml", RULES_OK.replace("priority: 10", "priority: 99999999999999999999999").encode(),
     "priority larger than 64 bits")
case("yaml-rules-enabled-not-bool.yaml", (RULES_OK + "    enabled: maybe\n").encode(), "enabled: maybe")
case("yaml-rules-unknown-op.yaml", RULES_OK.replace("LeakyRelu", "LeakyRelux").encode(), "an unknown op type in a pattern")
case("yaml-rules-subpattern-cycle.yaml",
     b"version: 1\npatterns:\n  a: [b]\n  b: [a]\nrules:\n  - name: r\n    pattern: [a]\n",
     "sub-patterns a and b refer to each other")
case("yaml-rules-pattern-too-long.yaml",
     ("version: 1\nrules:\n  - name: long\n    pattern: [" + ", ".join(["Relu"] * 65) + "]\n").encode(),
     "a pattern of 65 nodes (the limit is 64)")
case("yaml-rules-repeat-huge.yaml",
     b"version: 1\nrules:\n  - name: r\n    pattern: [{op: Relu, repeat: [0, 1000000000]}]\n",
     "repeat: [0, 1000000000]")
case("yaml-rules-duplicate-rule-name.yaml",
     (RULES_OK + "  - name: leaky_add\n    pattern: [Relu]\n").encode(), "two rules named leaky_add in one file")
case("yaml-rules-empty-pattern.yaml", RULES_OK.replace("[LeakyRelu, Add]", "[]").encode(), "an empty pattern")

case("yaml-profile-bom-unknown-key.yaml", (BOM + PROFILE_OK + "colour: blue\n").encode(),
     "UTF-8 BOM, then the unknown top-level key colour")
case("yaml-profile-unknown-key.yaml", PROFILE_OK.replace("ub_reserve", "ub_reserv").encode(),
     "memory.ub_reserv (unknown key)")
case("yaml-profile-wrong-type-cores.yaml", PROFILE_OK.replace("cube: 24", "cube: many").encode(),
     "cores.cube: many (not a number)")
case("yaml-profile-wrong-type-memory.yaml", PROFILE_OK.replace("memory:\n  ub: 192 KiB\n  ub_reserve: 256 B\n",
                                                               "memory: [192 KiB]\n").encode(),
     "memory is a list, not a mapping")
case("yaml-profile-unknown-unit.yaml", PROFILE_OK.replace("192 KiB", "192 KB/s").encode(), "memory.ub in KB/s")
case("yaml-profile-ub-too-big.yaml", PROFILE_OK.replace("192 KiB", "2 TB").encode(), "memory.ub of 2 TB (over 1 TiB)")
case("yaml-profile-size-overflow.yaml", PROFILE_OK.replace("192 KiB", "99999999999999999999999 GiB").encode(),
     "memory.ub overflowing 64 bits")
case("yaml-profile-negative-cores.yaml", PROFILE_OK.replace("cube: 24", "cube: -24").encode(), "cores.cube: -24")
case("yaml-profile-nan-bandwidth.yaml", PROFILE_OK.replace("1.6 TB/s", ".nan TB/s").encode(), "bandwidth.hbm: .nan TB/s")
case("yaml-profile-name-too-long.yaml", PROFILE_OK.replace("bad-chip", "x" * 65).encode(), "a name of 65 characters")
case("yaml-profile-kind-gpu.yaml", PROFILE_OK.replace("kind: npu", "kind: gpu").encode(), "kind: gpu")
case("yaml-profile-missing-throughput.yaml",
     PROFILE_OK.replace("throughput: {cube_fp16: 354 TFLOP/s, vector_fp16: 11.4 TFLOP/s}\n", "").encode(),
     "no throughput mapping")
case("yaml-profile-ub-align-not-pow2.yaml", (PROFILE_OK + "limits: {ub_align: 24 B}\n").encode(),
     "limits.ub_align: 24 B (not a power of two)")

case("yaml-whitelist-bom-unknown-key.yaml", (BOM + WHITELIST_OK + "    whom: bob\n").encode(),
     "UTF-8 BOM, then an entry with the unknown key whom")
case("yaml-whitelist-unknown-key.yaml", WHITELIST_OK.replace("decision", "decison").encode(),
     "an entry with decison (unknown key), no decision")
case("yaml-whitelist-wrong-type-entries.yaml", b"version: 1\nentries: {pattern: x}\n", "entries is a mapping, not a list")
case("yaml-whitelist-wrong-type-decision.yaml", WHITELIST_OK.replace("decision: accept", "decision: [accept]").encode(),
     "decision is a list")
case("yaml-whitelist-bad-decision.yaml", WHITELIST_OK.replace("accept", "maybe").encode(), "decision: maybe")
case("yaml-whitelist-bad-fingerprint.yaml",
     b"version: 1\nentries:\n  - nodes: [act, add]\n    fingerprint: nothex\n    decision: veto\n",
     "a node-level entry with a malformed fingerprint")
case("yaml-whitelist-nodes-no-fingerprint.yaml",
     b"version: 1\nentries:\n  - nodes: [act, add]\n    decision: veto\n", "a node-level entry without a fingerprint")
case("yaml-whitelist-empty-nodes.yaml",
     ("version: 1\nentries:\n  - nodes: []\n    fingerprint: " + "0" * 64 + "\n    decision: veto\n").encode(),
     "a node-level entry with an empty nodes list")
case("yaml-whitelist-pattern-and-nodes.yaml",
     ("version: 1\nentries:\n  - pattern: x\n    nodes: [act]\n    fingerprint: " + "0" * 64 + "\n    decision: veto\n").encode(),
     "an entry with both pattern and nodes")

def many_keys(n):
    return ("version: 1\nnested:\n" + "".join("  k%d: 0\n" % i for i in range(n))).encode()


for kind in ("rules", "profile", "whitelist"):
    case("yaml-%s-40k-keys.yaml" % kind, many_keys(40000),
         "one mapping of 40,000 keys (470 KB; the 16 MiB cap allows ~500,000)")

# Cases the current code accepts or does not refuse in time: not written, listed in README.md until fixed
QUADRATIC = ("core/yaml/fw-yaml.c read_children() compares every key of a mapping with every earlier one "
             "(O(n^2) strcmp): 10k keys 0.2 s, 20k 1 s, 40k 6 s, 400k keys (5 MB) still running after 20 s")
SECOND_DOC = ("fw_yaml_load_data() stops at the first document's end, so the second document (and any "
              "garbage after `---`) is silently ignored and the file is accepted (exit 0)")
# Cases the code once accepted or refused too slowly; all fixed (hash-checked duplicate keys, one document
# per file, empty rule files refused). Add a case here, with the reason, only while a fix is pending.
LEFT_OUT = {}

# ---------------------------------------------------------------------------------------------------------
# Good files: the base model and BOM-prefixed valid YAML files that must be accepted.

GOOD_FILES = [
    ("base.onnx", BASE, "the valid base model every bad ONNX file is derived from; the YAML cases run with it"),
    ("yaml-rules-bom.yaml", (BOM + RULES_OK).encode(), "a valid rules file starting with a UTF-8 BOM"),
    ("yaml-profile-bom.yaml", (BOM + PROFILE_OK).encode(), "a valid profile starting with a UTF-8 BOM"),
    ("yaml-whitelist-bom.yaml", (BOM + WHITELIST_OK).encode(), "a valid whitelist starting with a UTF-8 BOM"),
]

README_HEAD = """# Hostile-input corpus

Written by `tests/data/make-bad-corpus.py` (do not edit by hand; run the script and commit its output).
`tests/data/check-bad-corpus.sh` runs `fusion-workbench --batch` on each file below and expects exit code 2,
an error naming the file, no sanitizer report, and a run of under 5 s. ONNX files are the model;
`yaml-rules-*`, `yaml-profile-*` and `yaml-whitelist-*` files are given with `--rules`, `--profile` or
`--whitelist` next to `../good/base.onnx`; each `external-*/` folder's `model.onnx` is the model.
`outside.bin` is not a case: it is what the escaping external-data locations point at.

Generated at run time by the check, not committed (too big): `yaml-rules-10mb-scalar.yaml`,
`yaml-profile-10mb-scalar.yaml`, `yaml-whitelist-10mb-scalar.yaml`, each with one 10 MB scalar.

"""


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    if os.path.isdir(BAD):
        shutil.rmtree(BAD)
    os.makedirs(BAD)
    os.makedirs(GOOD, exist_ok=True)
    names = set()
    for path, data, _ in CASES:
        assert path not in names, path
        names.add(path)
        if path in LEFT_OUT:
            continue
        write(os.path.join(BAD, path), data)
    for path, data in EXTRA_FILES:
        write(os.path.join(BAD, path), data)
    for path, target in SYMLINKS:
        os.makedirs(os.path.dirname(os.path.join(BAD, path)), exist_ok=True)
        os.symlink(target, os.path.join(BAD, path))
    for path, data, _ in GOOD_FILES:
        write(os.path.join(GOOD, path), data)

    lines = [README_HEAD, "## Files\n\n"]
    for path, _, what in CASES:
        if path not in LEFT_OUT:
            lines.append("- `%s`: %s\n" % (path, what))
    if LEFT_OUT:
        lines.append("\n## Left out (accepted, or refused too slowly, by the current code; add back when fixed)\n\n")
        for path, _, what in CASES:
            if path in LEFT_OUT:
                lines.append("- `%s`: %s. Left out: %s\n" % (path, what, LEFT_OUT[path]))
    lines.append("\n## Good files (`../good/`, must exit 0)\n\n")
    for path, _, what in GOOD_FILES:
        lines.append("- `%s`: %s\n" % (path, what))
    write(os.path.join(BAD, "README.md"), "".join(lines).encode())
    n = sum(1 for p, _, _ in CASES if p not in LEFT_OUT)
    print("wrote %d bad files (+3 generated at run time), %d left out, %d good files"
          % (n, len(LEFT_OUT), len(GOOD_FILES)), file=sys.stderr)


if __name__ == "__main__":
    main()
