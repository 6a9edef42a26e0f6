/* Reading ONNX: what comes in is what the file says, weights are not copied, unknown ops load opaque. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "fw-test-pb.h"
#include "exec/fw-array.h"
#include "ops/fw-op-registry.h"

static char *
write_temp (GBytes *bytes, char **dir_out)
{
  g_autofree char *dir = g_dir_make_tmp ("fw-reader-XXXXXX", NULL);
  char *path = g_build_filename (dir, "model.onnx", NULL);

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
  *dir_out = g_steal_pointer (&dir);
  return path;
}

static void
assert_same_graph (FwGraph *a, FwGraph *b)
{
  g_assert_cmpuint (a->nodes->len, ==, b->nodes->len);
  g_assert_cmpuint (a->inputs->len, ==, b->inputs->len);
  g_assert_cmpuint (a->outputs->len, ==, b->outputs->len);
  g_assert_cmpuint (a->initializers->len, ==, b->initializers->len);
  for (guint i = 0; i < a->nodes->len; i++)
    {
      FwNode *x = g_ptr_array_index (a->nodes, i), *y = g_ptr_array_index (b->nodes, i);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpstr (x->op_type, ==, y->op_type);
      g_assert_cmpuint (x->n_inputs, ==, y->n_inputs);
      g_assert_cmpuint (x->n_attrs, ==, y->n_attrs);
      for (guint k = 0; k < x->n_inputs; k++)
        g_assert_cmpstr (x->inputs[k]->name, ==, y->inputs[k]->name);
      for (guint k = 0; k < x->n_attrs; k++)
        {
          g_assert_cmpstr (x->attrs[k].name, ==, y->attrs[k].name);
          g_assert_cmpint (x->attrs[k].type, ==, y->attrs[k].type);
          g_assert_cmpint (x->attrs[k].i, ==, y->attrs[k].i);
          g_assert_cmpfloat (x->attrs[k].f, ==, y->attrs[k].f);
          g_assert_cmpuint (x->attrs[k].n, ==, y->attrs[k].n);
          if (x->attrs[k].ints)
            g_assert_cmpmem (x->attrs[k].ints, x->attrs[k].n * 8, y->attrs[k].ints, y->attrs[k].n * 8);
        }
    }
  for (guint i = 0; i < a->initializers->len; i++)
    {
      FwValue *x = g_ptr_array_index (a->initializers, i), *y = g_ptr_array_index (b->initializers, i);
      gsize xs, ys;
      gconstpointer xd = fw_tensor_get_data (x->constant, &xs), yd = fw_tensor_get_data (y->constant, &ys);
      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpmem (xd, xs, yd, ys);
    }
  for (guint i = 0; i < a->inputs->len; i++)
    {
      FwValue *x = g_ptr_array_index (a->inputs, i), *y = g_ptr_array_index (b->inputs, i);
      g_autofree char *xs = fw_value_format_shape (x);
      g_autofree char *ys = fw_value_format_shape (y);
      g_assert_cmpstr (xs, ==, ys);
      g_assert_cmpint (x->dtype, ==, y->dtype);
    }
}

static void
test_roundtrip_models (void)
{
  FwModel *models[3] = { fw_test_transformer_block (16, 32, 4, TRUE), fw_test_conv_block (),
                         fw_test_elementwise_chain (8, 64, TRUE) };

  for (guint i = 0; i < G_N_ELEMENTS (models); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) back = fw_test_roundtrip (models[i], &error);

      g_assert_no_error (error);
      assert_same_graph (fw_model_get_graph (models[i]), fw_model_get_graph (back));
      g_assert_cmpint (fw_model_get_opset_version (back, ""), ==, 13);
      g_assert_cmpint (fw_model_get_opset_version (back, "ai.onnx"), ==, 13);
      g_assert_cmpint (fw_model_get_ir_version (back), ==, 8);
      g_assert_cmpstr (fw_model_get_producer_name (back), ==, "fusion-workbench-tests");
      g_object_unref (models[i]);
    }
}

/* The initializer's bytes are a slice of the mapping, not a copy. */
static void
test_weights_not_copied (void)
{
  g_autoptr(FwModel) built = fw_test_conv_block ();
  g_autoptr(GBytes) bytes = fw_onnx_serialize (built, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_temp (bytes, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, &error);
  FwValue *w;
  const guint8 *start, *end, *data;
  gsize size;

  g_assert_no_error (error);
  start = (const guint8 *) g_mapped_file_get_contents (model->mapped);
  end = start + g_mapped_file_get_length (model->mapped);
  w = fw_graph_lookup_value (fw_model_get_graph (model), "conv1.weight");
  data = fw_tensor_get_data (w->constant, &size);
  g_assert_cmpuint (size, ==, 16 * 3 * 3 * 3 * 4);
  g_assert_true (data >= start && data + size <= end);
  g_assert_cmpuint (fw_model_get_initializer_bytes (model), >, size);
  g_clear_object (&model);
  fw_test_remove_dir (dir);
}

static void
unknown_ops (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  gsize mark;

  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "FancyNewOp", "/fancy", "x", NULL, "a");
  mark = fw_pb_begin (g, GRAPH_NODE);
  fw_pb_put_string (g, NODE_INPUT, "a");
  fw_pb_put_string (g, NODE_OUTPUT, "y");
  fw_pb_put_string (g, NODE_OP_TYPE, "FusedGemm");
  fw_pb_put_string (g, NODE_DOMAIN, "com.example.private");
  fw_pb_end (g, mark);
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
test_unknown_ops_load (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, unknown_ops, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "unknown.onnx", NULL, NULL, &error);
  FwGraph *g;

  g_assert_no_error (error);
  g = fw_model_get_graph (model);
  g_assert_cmpuint (fw_graph_get_n_nodes (g), ==, 2);
  g_assert_null (fw_graph_get_node (g, 0)->op);
  g_assert_null (fw_graph_get_node (g, 1)->op);
  g_assert_cmpstr (fw_graph_get_node (g, 1)->domain, ==, "com.example.private");
  g_assert_cmpint (fw_graph_get_node (g, 1)->opset, ==, 0);
  g_assert_cmpint (fw_graph_get_node (g, 0)->opset, ==, 13);
}

static void
typed_fields (GByteArray *g, gpointer data)
{
  gsize mark;
  guint32 one = 0x3f800000, two = 0x40000000;

  /* float_data, unpacked. */
  mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  fw_pb_put_int (g, TENSOR_DIMS, 2);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_FLOAT);
  fw_pb_put_string (g, TENSOR_NAME, "f");
  fw_pb_put_fixed32 (g, TENSOR_FLOAT_DATA, one);
  fw_pb_put_fixed32 (g, TENSOR_FLOAT_DATA, two);
  fw_pb_end (g, mark);
  /* int64_data, packed, with a negative value. */
  mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  fw_pb_put_int (g, TENSOR_DIMS, 3);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_INT64);
  fw_pb_put_string (g, TENSOR_NAME, "i");
  {
    g_autoptr(GByteArray) packed = g_byte_array_new ();
    fw_pb_put_varint (packed, 7);
    fw_pb_put_varint (packed, (guint64) (gint64) -1);
    fw_pb_put_varint (packed, 300);
    fw_pb_put_bytes (g, TENSOR_INT64_DATA, packed->data, packed->len);
  }
  fw_pb_end (g, mark);
  /* float16 through int32_data. */
  mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_FLOAT16);
  fw_pb_put_string (g, TENSOR_NAME, "h");
  fw_pb_put_int (g, TENSOR_INT32_DATA, 0x3c00);
  fw_pb_end (g, mark);
  /* A string tensor. */
  mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  fw_pb_put_int (g, TENSOR_DIMS, 2);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_STRING);
  fw_pb_put_string (g, TENSOR_NAME, "s");
  fw_pb_put_string (g, TENSOR_STRING_DATA, "cat");
  fw_pb_put_string (g, TENSOR_STRING_DATA, "dog");
  fw_pb_end (g, mark);
}

static void
test_typed_fields (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, typed_fields, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "typed.onnx", NULL, NULL, &error);
  g_autoptr(FwModel) back = NULL;
  FwGraph *g;
  double d;
  gint64 v;

  g_assert_no_error (error);
  g = fw_model_get_graph (model);
  g_assert_true (fw_tensor_get_double (fw_graph_lookup_value (g, "f")->constant, 1, &d) && d == 2.0);
  g_assert_true (fw_tensor_get_int64 (fw_graph_lookup_value (g, "i")->constant, 1, &v) && v == -1);
  g_assert_true (fw_tensor_get_int64 (fw_graph_lookup_value (g, "i")->constant, 2, &v) && v == 300);
  g_assert_true (fw_tensor_get_double (fw_graph_lookup_value (g, "h")->constant, 0, &d) && d == 1.0);
  g_assert_cmpuint (fw_graph_lookup_value (g, "s")->constant->strings->len, ==, 2);
  /* Written back as raw_data, read again: same values. */
  back = fw_test_roundtrip (model, &error);
  g_assert_no_error (error);
  g = fw_model_get_graph (back);
  g_assert_true (fw_tensor_get_int64 (fw_graph_lookup_value (g, "i")->constant, 2, &v) && v == 300);
  g_assert_true (fw_tensor_get_double (fw_graph_lookup_value (g, "h")->constant, 0, &d) && d == 1.0);
}

/* 4-bit initializers: int4 in raw_data, five elements (an odd count: the last byte's high nibble is
 * padding), and uint4 in int32_data, where onnx.proto packs them as well (one byte of two an entry). */
static const guint8 int4_packed[3] = { 0x78, 0x0f, 0x03 };   /* -8, 7, -1, 0, 3 */

static void
four_bit (GByteArray *g, gpointer data)
{
  gsize mark = fw_pb_begin (g, GRAPH_INITIALIZER);

  fw_pb_put_int (g, TENSOR_DIMS, 5);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_INT4);
  fw_pb_put_string (g, TENSOR_NAME, "w4");
  fw_pb_put_bytes (g, TENSOR_RAW_DATA, int4_packed, GPOINTER_TO_UINT (data) == 1 ? 2 : 3);
  fw_pb_end (g, mark);
  mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  fw_pb_put_int (g, TENSOR_DIMS, 3);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_UINT4);
  fw_pb_put_string (g, TENSOR_NAME, "u4");
  fw_pb_put_int (g, TENSOR_INT32_DATA, 0x0f);   /* 15, 0 */
  /* 9, then padding; 3: a third entry too many; 2: an entry that is no byte */
  fw_pb_put_int (g, TENSOR_INT32_DATA, GPOINTER_TO_UINT (data) == 2 ? 0x109 : 0x09);
  if (GPOINTER_TO_UINT (data) == 3)
    fw_pb_put_int (g, TENSOR_INT32_DATA, 0);
  fw_pb_end (g, mark);
}

static void
check_4bit_values (FwGraph *g)
{
  static const gint64 w4[5] = { -8, 7, -1, 0, 3 }, u4[3] = { 15, 0, 9 };
  FwTensor *t = fw_graph_lookup_value (g, "w4")->constant;
  g_autoptr(FwArray) a = NULL;
  g_autoptr(GError) error = NULL;
  gint64 v, bytes;

  /* The tensor keeps the file's packing: 3 bytes, as the cost model prices 4 bits an element. */
  g_assert_cmpuint (fw_tensor_get_byte_size (t), ==, 3);
  g_assert_true (fw_dtype_bytes_for (t->dtype, t->n_elements, &bytes) && bytes == 3);
  for (guint i = 0; i < 5; i++)
    g_assert_true (fw_tensor_get_int64 (t, i, &v) && v == w4[i]);
  g_assert_false (fw_tensor_get_int64 (t, 6, &v));
  /* The interpreter's array: one sign-extended element a byte. */
  a = fw_array_new_from_tensor (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->n_bytes, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (((const gint8 *) a->data)[i], ==, w4[i]);
  t = fw_graph_lookup_value (g, "u4")->constant;
  g_assert_cmpuint (fw_tensor_get_byte_size (t), ==, 2);
  for (guint i = 0; i < 3; i++)
    g_assert_true (fw_tensor_get_int64 (t, i, &v) && v == u4[i]);
}

static void
test_4bit (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (10, 21, four_bit, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "int4.onnx", NULL, NULL, &error);
  g_autoptr(FwModel) back = NULL;
  g_autoptr(FwArray) a = NULL;
  g_autoptr(FwTensor) t = NULL;
  gsize size;
  const guint8 *p;

  g_assert_no_error (error);
  check_4bit_values (fw_model_get_graph (model));
  /* Written back (as raw_data, packed) and read again: the same bytes and values. */
  back = fw_test_roundtrip (model, &error);
  g_assert_no_error (error);
  check_4bit_values (fw_model_get_graph (back));
  p = fw_tensor_get_data (fw_graph_lookup_value (fw_model_get_graph (back), "w4")->constant, &size);
  g_assert_cmpmem (p, size, int4_packed, 3);
  /* An array packs back into the same bytes, the padding nibble 0. */
  a = fw_array_new_from_tensor (fw_graph_lookup_value (fw_model_get_graph (model), "w4")->constant, &error);
  g_assert_no_error (error);
  t = fw_array_to_tensor (a);
  p = fw_tensor_get_data (t, &size);
  g_assert_cmpmem (p, size, int4_packed, 3);
}

static void
test_4bit_corrupt (void)
{
  static const char *const expect[] = {
    "raw_data holds 2 bytes but 5 elements of int4, packed two a byte, need 3",
    "int32_data entry 1 of a uint4 tensor is 265, not a byte of two packed elements",
    "int32_data holds 3 entries but 3 elements of uint4, packed two an entry, need 2",
  };

  for (guint k = 1; k <= 3; k++)
    {
      g_autoptr(GBytes) b = fw_test_pb_model (10, 21, four_bit, GUINT_TO_POINTER (k));
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "int4.onnx", NULL, NULL, &error);

      g_assert_null (model);
      g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
      g_test_message ("%s", error->message);
      /* The file, the tensor and what is wrong. */
      g_assert_true (g_str_has_prefix (error->message, "int4.onnx: byte "));
      g_assert_nonnull (strstr (error->message, k == 1 ? "“w4”" : "“u4”"));
      g_assert_nonnull (strstr (error->message, expect[k - 1]));
    }
}

/* IR 3 lists initializers among the graph inputs: they stay weights with their data's shape. */
static void
ir3_inputs (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  gint64 wrong[1] = { G_MININT64 };
  fw_test_pb_initializer (g, "w", 1, dims, 16);
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_value_info (g, GRAPH_INPUT, "w", 1, wrong);
  fw_test_pb_node (g, "Add", "/add", "x", "w", "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
test_ir3_initializer_inputs (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (3, 8, ir3_inputs, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "ir3.onnx", NULL, NULL, &error);
  FwValue *w;
  g_autofree char *shape = NULL;

  g_assert_no_error (error);
  w = fw_graph_lookup_value (fw_model_get_graph (model), "w");
  g_assert_true (w->is_initializer && w->is_input);
  shape = fw_value_format_shape (w);
  g_assert_cmpstr (shape, ==, "[4]");
}

static void
symbolic_input (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { G_MININT64, 8 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 2, dims);
  fw_test_pb_node (g, "Relu", "/relu", "x", NULL, "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 2, dims);
}

static void
test_symbolic_dims (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, symbolic_input, NULL);
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "sym.onnx", NULL, NULL, NULL);
  g_autofree char *shape = fw_value_format_shape (fw_graph_lookup_value (fw_model_get_graph (model), "x"));

  g_assert_cmpstr (shape, ==, "[n,8]");
}

static void
test_cancelled (void)
{
  g_autoptr(FwModel) built = fw_test_long_chain (5000);
  g_autoptr(GBytes) bytes = fw_onnx_serialize (built, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_temp (bytes, &dir);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;

  g_cancellable_cancel (cancellable);
  model = fw_onnx_load (path, NULL, cancellable, &error);
  g_assert_null (model);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  fw_test_remove_dir (dir);
}

static void
test_missing_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load ("/nonexistent/model.onnx", NULL, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent/model.onnx"));
}

static void
test_directory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load ("/tmp", NULL, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/onnx/load/roundtrip-models", test_roundtrip_models);
  g_test_add_func ("/core/onnx/load/weights-not-copied", test_weights_not_copied);
  g_test_add_func ("/core/onnx/load/unknown-ops-opaque", test_unknown_ops_load);
  g_test_add_func ("/core/onnx/load/typed-fields", test_typed_fields);
  g_test_add_func ("/core/onnx/load/4bit", test_4bit);
  g_test_add_func ("/core/onnx/load/4bit-corrupt", test_4bit_corrupt);
  g_test_add_func ("/core/onnx/load/ir3-initializer-inputs", test_ir3_initializer_inputs);
  g_test_add_func ("/core/onnx/load/symbolic-dims", test_symbolic_dims);
  g_test_add_func ("/core/onnx/load/cancelled", test_cancelled);
  g_test_add_func ("/core/onnx/load/missing-file", test_missing_file);
  g_test_add_func ("/core/onnx/load/directory", test_directory);
  return g_test_run ();
}
