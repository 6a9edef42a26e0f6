"""Writes a small model shaped like Silero VAD, whose work sits inside control-flow bodies (issue 14 item 4):
a Loop over the frames of its input carries a state through a MatMul + Add chain, a LayerNormalization, an
erf-form GELU and a second MatMul + Add + Tanh, and stacks that state, gated by a nested If (even frames:
a sigmoid gate, odd ones: a leaky sum), as its scan output; then an If on the sign of the input's sum runs
one of two heads on the final state, each a MatMul + Add followed by an elementwise chain. Random weights, opset 17. The carried state's body input is given
without a shape (as exporters write it), so its shape comes from the Loop's initial value.

Second model, cflow_scan: a recurrent encoder written with Scan (as a streaming keyword spotter's GRU-like
cell is exported): the Scan reads the frames of x along axis 1 last frame first, carries a state through
MatMul + Add + Tanh, and stacks a gated copy of each state along axis 1 in reverse order, so every
attribute of Scan that is not a default is exercised; the body's inputs are given without shapes.

Usage: make-control-flow-model.py OUTDIR [SEED]   (prints the paths of the models written)

  cflow_vad   x [1, 6, 16] float → prob [1, 8] (the If), states [6, 1, 32] (the Loop's scan output),
              h [1, 32] (the last state)
  cflow_scan  x [1, 5, 16] float → h [1, 32] (the final state), ys [1, 5, 32] (the Scan's output)"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FRAMES, FEATURES, HIDDEN, HEAD = 6, 16, 32, 8
SCAN_FRAMES = 5


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def value(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def weight(rng, name, *shape):
    scale = 1.0 / math.sqrt(shape[0]) if len(shape) > 1 else 0.1
    return const(name, (rng.standard_normal(shape) * scale).astype(np.float32))


def gelu(x, out, prefix):
    """x * 0.5 * (1 + erf(x / sqrt(2))), as torch exports nn.GELU() before opset 20."""
    return [
        helper.make_node("Div", [x, "sqrt2"], [prefix + "_d"], name=prefix + "/Div"),
        helper.make_node("Erf", [prefix + "_d"], [prefix + "_e"], name=prefix + "/Erf"),
        helper.make_node("Add", [prefix + "_e", "one"], [prefix + "_a"], name=prefix + "/Add"),
        helper.make_node("Mul", [x, prefix + "_a"], [prefix + "_m"], name=prefix + "/Mul"),
        helper.make_node("Mul", [prefix + "_m", "half"], [out], name=prefix + "/Mul_1"),
    ]


def loop_body(rng):
    nodes = [
        # The frame of this iteration: x is the outer graph's, read by capture.
        helper.make_node("Gather", ["x", "iter"], ["frame"], name="/frame/Gather", axis=1),
        helper.make_node("MatMul", ["frame", "w_in"], ["p"], name="/cell/in/MatMul"),
        helper.make_node("Add", ["p", "b_in"], ["pb"], name="/cell/in/Add"),
        helper.make_node("Add", ["pb", "h_in"], ["ph"], name="/cell/Add"),
        helper.make_node("LayerNormalization", ["ph", "ln_scale", "ln_bias"], ["n"], name="/cell/norm/LayerNorm",
                         axis=-1, epsilon=1e-5),
    ] + gelu("n", "g", "/cell/act") + [
        helper.make_node("MatMul", ["g", "w_out"], ["q"], name="/cell/out/MatMul"),
        helper.make_node("Add", ["q", "b_out"], ["qb"], name="/cell/out/Add"),
        helper.make_node("Tanh", ["qb"], ["h_out"], name="/cell/Tanh"),
        # A nested If: even frames gate the state with a sigmoid, odd ones with a leaky sum.
        helper.make_node("Gather", ["even_frames", "iter"], ["even"], name="/gate/Gather", axis=0),
        helper.make_node("If", ["even"], ["state"], name="/If_1", then_branch=helper.make_graph([
            helper.make_node("Sigmoid", ["h_out"], ["even_s"], name="/even/Sigmoid"),
            helper.make_node("Mul", ["even_s", "h_out"], ["even_y"], name="/even/Mul"),
        ], "even", [], [value("even_y", TensorProto.FLOAT, None)]), else_branch=helper.make_graph([
            helper.make_node("Relu", ["h_out"], ["odd_r"], name="/odd/Relu"),
            helper.make_node("Mul", ["odd_r", "half"], ["odd_m"], name="/odd/Mul"),
            helper.make_node("Add", ["odd_m", "h_out"], ["odd_y"], name="/odd/Add"),
        ], "odd", [], [value("odd_y", TensorProto.FLOAT, None)])),
        helper.make_node("Identity", ["cond_in"], ["cond_out"], name="/cond/Identity"),
    ]
    # b_out lives in the body, the other weights in the main graph: both kinds of capture.
    inits = [weight(rng, "b_out", HIDDEN), const("even_frames", np.arange(FRAMES) % 2 == 0)]
    return helper.make_graph(
        nodes, "cell",
        [value("iter", TensorProto.INT64, []), value("cond_in", TensorProto.BOOL, []),
         value("h_in", TensorProto.FLOAT, None)],
        [value("cond_out", TensorProto.BOOL, []), value("h_out", TensorProto.FLOAT, None),
         value("state", TensorProto.FLOAT, None)],
        inits)


def head(name, act_nodes):
    nodes = [
        helper.make_node("MatMul", ["h", "w_" + name], [name + "_p"], name="/" + name + "/MatMul"),
        helper.make_node("Add", [name + "_p", "b_" + name], [name + "_b"], name="/" + name + "/Add"),
    ] + act_nodes
    return helper.make_graph(nodes, name, [], [value(name + "_y", TensorProto.FLOAT, [1, HEAD])])


def build(rng):
    then_branch = head("speech", [
        helper.make_node("Relu", ["speech_b"], ["speech_r"], name="/speech/Relu"),
        helper.make_node("Mul", ["speech_r", "half"], ["speech_m"], name="/speech/Mul"),
        helper.make_node("Sigmoid", ["speech_m"], ["speech_y"], name="/speech/Sigmoid"),
    ])
    else_branch = head("silence", [
        helper.make_node("Sigmoid", ["silence_b"], ["silence_s"], name="/silence/Sigmoid"),
        helper.make_node("Mul", ["silence_s", "silence_b"], ["silence_m"], name="/silence/Mul_1"),
        helper.make_node("Add", ["silence_m", "one"], ["silence_a"], name="/silence/Add_1"),
        helper.make_node("Mul", ["silence_a", "half"], ["silence_y"], name="/silence/Mul_2"),
    ])
    nodes = [
        helper.make_node("Loop", ["trip", "keep_going", "h0"], ["h", "states"], name="/Loop_0",
                         body=loop_body(rng)),
        helper.make_node("ReduceSum", ["x"], ["total"], name="/vote/ReduceSum", keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["speech"], name="/vote/Greater"),
        helper.make_node("If", ["speech"], ["prob"], name="/If_0", then_branch=then_branch,
                         else_branch=else_branch),
    ]
    inits = [
        const("trip", np.int64(FRAMES)), const("keep_going", np.bool_(True)),
        const("h0", np.zeros((1, HIDDEN), np.float32)),
        weight(rng, "w_in", FEATURES, HIDDEN), weight(rng, "b_in", HIDDEN),
        const("ln_scale", (1 + 0.1 * rng.standard_normal(HIDDEN)).astype(np.float32)),
        weight(rng, "ln_bias", HIDDEN),
        weight(rng, "w_out", HIDDEN, HIDDEN),
        weight(rng, "w_speech", HIDDEN, HEAD), weight(rng, "b_speech", HEAD),
        weight(rng, "w_silence", HIDDEN, HEAD), weight(rng, "b_silence", HEAD),
        const("sqrt2", np.float32(math.sqrt(2))), const("one", np.float32(1)), const("half", np.float32(0.5)),
        const("zero", np.float32(0)),
    ]
    graph = helper.make_graph(nodes, "cflow_vad", [value("x", TensorProto.FLOAT, [1, FRAMES, FEATURES])],
                              [value("prob", TensorProto.FLOAT, [1, HEAD]),
                               value("states", TensorProto.FLOAT, [FRAMES, 1, HIDDEN]),
                               value("h", TensorProto.FLOAT, [1, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="make-control-flow-model.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def build_scan(rng):
    body = helper.make_graph([
        helper.make_node("MatMul", ["x_t", "w_x"], ["px"], name="/gru/x/MatMul"),
        helper.make_node("Add", ["px", "b_x"], ["pxb"], name="/gru/x/Add"),
        helper.make_node("MatMul", ["h_in", "w_h"], ["ph"], name="/gru/h/MatMul"),
        helper.make_node("Add", ["pxb", "ph"], ["pre"], name="/gru/Add"),
        helper.make_node("Tanh", ["pre"], ["h_out"], name="/gru/Tanh"),
        helper.make_node("Sigmoid", ["h_out"], ["g"], name="/gate/Sigmoid"),
        helper.make_node("Mul", ["g", "h_out"], ["gm"], name="/gate/Mul"),
        helper.make_node("Add", ["gm", "h_in"], ["y_t"], name="/gate/Add"),
    ], "gru_cell", [value("h_in", TensorProto.FLOAT, None), value("x_t", TensorProto.FLOAT, None)],
        [value("h_out", TensorProto.FLOAT, None), value("y_t", TensorProto.FLOAT, None)],
        [weight(rng, "b_x", HIDDEN)])
    scan = helper.make_node("Scan", ["h0", "x"], ["h", "ys"], name="/Scan_0", body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1],
                            scan_output_directions=[1])
    inits = [const("h0", np.zeros((1, HIDDEN), np.float32)), weight(rng, "w_x", FEATURES, HIDDEN),
             weight(rng, "w_h", HIDDEN, HIDDEN)]
    graph = helper.make_graph([scan], "cflow_scan", [value("x", TensorProto.FLOAT, [1, SCAN_FRAMES, FEATURES])],
                              [value("h", TensorProto.FLOAT, [1, HIDDEN]),
                               value("ys", TensorProto.FLOAT, [1, SCAN_FRAMES, HIDDEN])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="make-control-flow-model.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) == 3 else 14
    os.makedirs(out, exist_ok=True)
    for name, make, rng in (("cflow_vad", build, np.random.default_rng(seed)),
                            ("cflow_scan", build_scan, np.random.default_rng(seed + 1))):
        path = os.path.join(out, name + ".onnx")
        onnx.save(make(rng), path)
        print(path)


if __name__ == "__main__":
    main()
