/* libFuzzer target: one TensorProto. The input is the payload of the only GraphProto.initializer of an
 * otherwise valid model, so every mutation lands in the tensor decoder (dims, data types, typed and raw
 * data, segments, external data references) instead of being spent on the model around it. What loads is
 * read element by element, inferred and serialised again. */
#include "config.h"

#include "graph/fw-model-private.h"
#include "onnx/fw-onnx.h"
#include "onnx/fw-onnx-fields.h"
#include "onnx/fw-pb.h"
#include "shape/fw-shape-infer.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* ModelProto { ir_version 8, opset_import { "" 13 }, graph { name "g", initializer <data>, input x: float[2],
 * node Identity x → y, output y } } */
static GBytes *
wrap (const guint8 *data, size_t size)
{
  GByteArray *out = g_byte_array_new ();
  gsize graph, m, type, tensor_type, shape, dim;

  fw_pb_put_int (out, MODEL_IR_VERSION, 8);
  m = fw_pb_begin (out, MODEL_OPSET_IMPORT);
  fw_pb_put_string (out, OPSET_DOMAIN, "");
  fw_pb_put_int (out, OPSET_VERSION, 13);
  fw_pb_end (out, m);
  graph = fw_pb_begin (out, MODEL_GRAPH);
  fw_pb_put_string (out, GRAPH_NAME, "g");
  fw_pb_put_bytes (out, GRAPH_INITIALIZER, data, size);
  m = fw_pb_begin (out, GRAPH_INPUT);
  fw_pb_put_string (out, VI_NAME, "x");
  type = fw_pb_begin (out, VI_TYPE);
  tensor_type = fw_pb_begin (out, TYPE_TENSOR);
  fw_pb_put_int (out, TENSOR_TYPE_ELEM_TYPE, 1);
  shape = fw_pb_begin (out, TENSOR_TYPE_SHAPE);
  dim = fw_pb_begin (out, SHAPE_DIM);
  fw_pb_put_int (out, DIM_VALUE, 2);
  fw_pb_end (out, dim);
  fw_pb_end (out, shape);
  fw_pb_end (out, tensor_type);
  fw_pb_end (out, type);
  fw_pb_end (out, m);
  m = fw_pb_begin (out, GRAPH_NODE);
  fw_pb_put_string (out, NODE_INPUT, "x");
  fw_pb_put_string (out, NODE_OUTPUT, "y");
  fw_pb_put_string (out, NODE_OP_TYPE, "Identity");
  fw_pb_end (out, m);
  m = fw_pb_begin (out, GRAPH_OUTPUT);
  fw_pb_put_string (out, VI_NAME, "y");
  fw_pb_end (out, m);
  fw_pb_end (out, graph);
  return g_byte_array_free_to_bytes (out);
}

static void
read_elements (const FwTensor *tensor)
{
  volatile double sink = 0;

  /* A few elements from each end: enough to touch every conversion without walking a huge tensor. */
  for (gint64 i = 0; i < tensor->n_elements && i < 64; i++)
    {
      gint64 v;
      double d;
      gint64 k = i < 32 ? i : tensor->n_elements - 1 - (i - 32);

      if (fw_tensor_get_int64 (tensor, k, &v))
        sink += (double) v;
      if (fw_tensor_get_double (tensor, k, &d))
        sink += d;
    }
  (void) sink;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GBytes) bytes = wrap (data, size);
  g_autoptr(GError) error = NULL;
  /* No base folder: external data is refused cleanly, never opened. */
  g_autoptr(FwModel) model = fw_onnx_load_bytes (bytes, "fuzz-tensor.onnx", NULL, NULL, &error);

  if (model != NULL)
    {
      FwGraph *graph = fw_model_get_graph (model);
      FwInferOptions options = { 0 };
      FwInferReport report;
      g_autoptr(GError) infer_error = NULL;
      g_autoptr(GBytes) again = NULL;

      for (guint i = 0; i < fw_graph_get_n_values (graph); i++)
        {
          FwValue *value = fw_graph_get_value (graph, i);

          g_free (fw_value_format_shape (value));
          if (value->constant != NULL)
            read_elements (value->constant);
        }
      fw_infer_report_init (&report);
      fw_shape_infer_graph (graph, &options, &report, &infer_error);
      fw_infer_report_clear (&report);
      again = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
    }
  return 0;
}
