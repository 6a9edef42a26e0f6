"""Exports the real models that ../shared/tools/make-real-models.sh does not: a Swin transformer (window
attention with shape arithmetic, rolls and pads) and dynamic-axes variants of ViT-B/16 and the BERT-style
encoder, whose shape subgraphs stay symbolic until --bind. Random weights, no download.
Usage: export-extra-models.py OUTDIR NAME...   NAME: swin_t vit_b_16_dynamic bert_like_dynamic"""
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
import torchvision  # noqa: E402


def bert_like():
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, activation="gelu")
    return torch.nn.TransformerEncoder(layer, 4)


MODELS = {
    "swin_t": lambda: (torchvision.models.swin_t(), torch.randn(1, 3, 224, 224), None),
    "vit_b_16_dynamic": lambda: (torchvision.models.vit_b_16(), torch.randn(1, 3, 224, 224),
                                 {"input": {0: "batch"}, "output": {0: "batch"}}),
    "bert_like_dynamic": lambda: (bert_like(), torch.randn(2, 128, 256),
                                  {"input": {0: "batch", 1: "seq"}, "output": {0: "batch", 1: "seq"}}),
}

out, names = sys.argv[1], sys.argv[2:]
torch.manual_seed(0)
for name in names:
    model, example, axes = MODELS[name]()
    path = f"{out}/{name}.onnx"
    torch.onnx.export(model.eval(), example, path, opset_version=14, input_names=["input"],
                      output_names=["output"], dynamic_axes=axes)
    print(path)
