#include "config.h"

#include <string.h>

#include "fw-test-pb.h"

GBytes *
fw_test_pb_model (gint64 ir_version, gint64 opset, FwTestGraphBody body, gpointer user_data)
{
  GByteArray *out = g_byte_array_new ();
  gsize mark;

  fw_pb_put_int (out, MODEL_IR_VERSION, ir_version);
  mark = fw_pb_begin (out, MODEL_OPSET_IMPORT);
  fw_pb_put_string (out, OPSET_DOMAIN, "");
  fw_pb_put_int (out, OPSET_VERSION, opset);
  fw_pb_end (out, mark);
  mark = fw_pb_begin (out, MODEL_GRAPH);
  fw_pb_put_string (out, GRAPH_NAME, "g");
  if (body)
    body (out, user_data);
  fw_pb_end (out, mark);
  return g_byte_array_free_to_bytes (out);
}

void
fw_test_pb_node (GByteArray *g, const char *op_type, const char *name, const char *in0, const char *in1,
                 const char *out0)
{
  gsize mark = fw_pb_begin (g, GRAPH_NODE);

  if (in0)
    fw_pb_put_string (g, NODE_INPUT, in0);
  if (in1)
    fw_pb_put_string (g, NODE_INPUT, in1);
  if (out0)
    fw_pb_put_string (g, NODE_OUTPUT, out0);
  if (name)
    fw_pb_put_string (g, NODE_NAME, name);
  fw_pb_put_string (g, NODE_OP_TYPE, op_type);
  fw_pb_end (g, mark);
}

void
fw_test_pb_value_info (GByteArray *g, guint32 field, const char *name, guint rank, const gint64 *dims)
{
  gsize vi = fw_pb_begin (g, field);
  gsize type, tensor, shape;

  fw_pb_put_string (g, VI_NAME, name);
  type = fw_pb_begin (g, VI_TYPE);
  tensor = fw_pb_begin (g, TYPE_TENSOR);
  fw_pb_put_int (g, TENSOR_TYPE_ELEM_TYPE, 1);
  shape = fw_pb_begin (g, TENSOR_TYPE_SHAPE);
  for (guint i = 0; i < rank; i++)
    {
      gsize dim = fw_pb_begin (g, SHAPE_DIM);
      if (dims[i] == G_MININT64)
        fw_pb_put_string (g, DIM_PARAM, "n");
      else
        fw_pb_put_int (g, DIM_VALUE, dims[i]);
      fw_pb_end (g, dim);
    }
  fw_pb_end (g, shape);
  fw_pb_end (g, tensor);
  fw_pb_end (g, type);
  fw_pb_end (g, vi);
}

void
fw_test_pb_initializer (GByteArray *g, const char *name, guint rank, const gint64 *dims, gsize raw_len)
{
  gsize mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  g_autofree guint8 *zeros = g_malloc0 (MAX (raw_len, 1));

  for (guint i = 0; i < rank; i++)
    fw_pb_put_int (g, TENSOR_DIMS, dims[i]);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, 1);
  fw_pb_put_string (g, TENSOR_NAME, name);
  fw_pb_put_bytes (g, TENSOR_RAW_DATA, zeros, raw_len);
  fw_pb_end (g, mark);
}

static void
put_entry (GByteArray *g, const char *key, const char *value)
{
  gsize mark = fw_pb_begin (g, TENSOR_EXTERNAL_DATA);
  fw_pb_put_string (g, ENTRY_KEY, key);
  fw_pb_put_string (g, ENTRY_VALUE, value);
  fw_pb_end (g, mark);
}

void
fw_test_pb_external (GByteArray *g, const char *name, gint64 n_floats, const char *location, gint64 offset,
                     gint64 length)
{
  gsize mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  g_autofree char *off = g_strdup_printf ("%" G_GINT64_FORMAT, offset);
  g_autofree char *len = g_strdup_printf ("%" G_GINT64_FORMAT, length);

  fw_pb_put_int (g, TENSOR_DIMS, n_floats);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, 1);
  fw_pb_put_string (g, TENSOR_NAME, name);
  put_entry (g, "location", location);
  put_entry (g, "offset", off);
  if (length >= 0)
    put_entry (g, "length", len);
  fw_pb_put_int (g, TENSOR_DATA_LOCATION, 1);
  fw_pb_end (g, mark);
}
