"""Exports the real networks of the real-model suite to ONNX through Debian's python3-torch: torchvision
architectures and a BERT-style encoder, with random weights (nothing is downloaded).

Usage: export-models.py OUTDIR [NAME...]   (default: every model)

  resnet18 resnet50 mobilenet_v3_small vit_b_16   torchvision, static [1, 3, 224, 224] input, opset 13
  bert_like                                       4 encoder layers (d_model 256, 4 heads, GELU), [2, 128, 256], opset 14
  swin_t                                          window attention with shape arithmetic, rolls and pads, opset 14
  vit_b_16_dynamic bert_like_dynamic              dynamic-axes variants whose shape subgraphs stay symbolic
                                                  until --bind, opset 14
  bert_like_torch_bfloat16                        bert_like in bfloat16, weights and input, exported so by torch
                                                  (float16 cannot be: see MODELS), opset 14
  llama_decoder                                   Llama-style decoder (tests/real/llama_like.py: 2 blocks of
                                                  RMSNorm, rotary GQA attention 8/2 heads with a causal mask,
                                                  SwiGLU; d_model 256, vocab 1000), int64 token ids
                                                  [batch, seq], dynamic batch and seq, opset 17

One run seeds torch once (torch.manual_seed(0)) and builds the models in the order named, so a model's
random weights depend on the models before it in the same run: the suite (tests/real/check-real-model.sh)
exports one model per run, so each of its models is the one built right after the seed, and a run naming
resnet18 resnet50 mobilenet_v3_small vit_b_16 bert_like in that order gives the same files as exporting
them together always has. The checks expect exactly these networks (tests/real/check-plan.js names their
candidates). Each NAME.onnx is written under a temporary name and renamed into place, so a NAME.onnx in
OUTDIR is always complete. Prints the path of each model written."""
import os
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torchvision  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_like  # noqa: E402

IMAGE = (1, 3, 224, 224)


def bert_like():
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, activation="gelu")
    return torch.nn.TransformerEncoder(layer, 4)


def vision(make, opset, axes=None):
    return lambda: (make(), torch.randn(*IMAGE), opset, axes)


# name: () -> (module, example input, opset, dynamic axes or None)
MODELS = {
    "resnet18": vision(torchvision.models.resnet18, 13),
    "resnet50": vision(torchvision.models.resnet50, 13),
    "mobilenet_v3_small": vision(torchvision.models.mobilenet_v3_small, 13),
    "vit_b_16": vision(torchvision.models.vit_b_16, 13),
    "bert_like": lambda: (bert_like(), torch.randn(2, 128, 256), 14, None),
    "swin_t": vision(torchvision.models.swin_t, 14),
    "vit_b_16_dynamic": vision(torchvision.models.vit_b_16, 14,
                               {"input": {0: "batch"}, "output": {0: "batch"}}),
    "bert_like_dynamic": lambda: (bert_like(), torch.randn(2, 128, 256), 14,
                                  {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}),
    "llama_decoder": lambda: (llama_like.LlamaLike(), torch.randint(0, 10, (2, 32)), 17,
                              {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}),
    # Exported in half precision by torch itself: Debian's CPU torch (1.13) has no float16 kernels for
    # addmm, GELU, Softmax, LayerNorm, Erf or convolutions, and the exporter traces by running the model, so
    # float16 cannot be exported on the CPU; bfloat16 has them all.
    "bert_like_torch_bfloat16": lambda: (bert_like().to(torch.bfloat16),
                                         torch.randn(2, 128, 256).to(torch.bfloat16), 14, None),
}


def export(out, name):
    model, example, opset, axes = MODELS[name]()
    path = os.path.join(out, f"{name}.onnx")
    # A hidden temporary name, renamed when complete: readers of OUTDIR never see half a model.
    tmp = os.path.join(out, f".{name}.{os.getpid()}.tmp.onnx")
    try:
        torch.onnx.export(model.eval(), example, tmp, opset_version=opset, input_names=["input"],
                          output_names=["output"], dynamic_axes=axes)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out, names = argv[1], argv[2:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"export-models.py: unknown model {', '.join(unknown)} (known: {' '.join(MODELS)})")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name in names:
        print(export(out, name), flush=True)


if __name__ == "__main__":
    main(sys.argv)
