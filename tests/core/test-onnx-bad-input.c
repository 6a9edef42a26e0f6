/* Every kind of broken or hostile ONNX file gives an FW_ERROR naming the file and what is wrong: never a
 * crash, a hang, or an allocation sized by what the file claims. */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "fw-test-pb.h"

static void
assert_load_fails (GBytes *bytes, gint code, const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (bytes, "bad.onnx", NULL, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, FW_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "bad.onnx"));
  if (needle && strstr (error->message, needle) == NULL)
    g_error ("error “%s” does not mention “%s”", error->message, needle);
}

static GBytes *
bytes_of (const char *data, gsize len)
{
  return g_bytes_new (data, len);
}

static void
test_empty (void)
{
  g_autoptr(GBytes) b = bytes_of ("", 0);
  assert_load_fails (b, FW_ERROR_PARSE, "empty");
}

static void
test_garbage (void)
{
  static const char text[] = "this is not a protobuf file at all\n";
  g_autoptr(GBytes) b = bytes_of (text, sizeof text - 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load_bytes (b, "bad.onnx", NULL, NULL, &error);

  g_assert_null (model);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "bad.onnx"));
}

/* Cutting a valid model anywhere must fail cleanly: the graph is written last, so every prefix lacks part
 * of it. */
static void
test_truncated_everywhere (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (6, 16, TRUE);
  g_autoptr(GBytes) whole = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  gsize size;
  const char *data = g_bytes_get_data (whole, &size);

  for (gsize cut = 0; cut < size; cut++)
    {
      g_autoptr(GBytes) b = bytes_of (data, cut);
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) m = fw_onnx_load_bytes (b, "bad.onnx", NULL, NULL, &error);

      if (m != NULL)
        g_error ("a model cut at byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " loaded", cut, size);
      g_assert_error (error, FW_ERROR, error->code);
      g_assert_true (g_str_has_prefix (error->message, "bad.onnx"));
    }
}

static void
test_truncated_weights (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(GBytes) whole = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  gsize size;
  const char *data = g_bytes_get_data (whole, &size);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);

  for (guint i = 0; i < 300; i++)
    {
      gsize cut = g_rand_int_range (rand, 0, (gint32) size);
      g_autoptr(GBytes) b = bytes_of (data, cut);
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) m = fw_onnx_load_bytes (b, "bad.onnx", NULL, NULL, &error);
      g_assert_null (m);
      g_assert_nonnull (error);
    }
}

/* Flipped bits must never crash; they may load (a changed weight is still a model) or fail cleanly. */
static void
test_bit_flips (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, TRUE);
  g_autoptr(GBytes) whole = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  gsize size;
  const guint8 *data = g_bytes_get_data (whole, &size);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree guint8 *copy = g_memdup2 (data, size);
      g_autoptr(GBytes) b = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) m = NULL;

      for (guint k = 0; k < 1 + i % 4; k++)
        copy[g_rand_int_range (rand, 0, (gint32) size)] ^= (guint8) (1u << g_rand_int_range (rand, 0, 8));
      b = g_bytes_new (copy, size);
      m = fw_onnx_load_bytes (b, "bad.onnx", NULL, NULL, &error);
      if (m == NULL)
        g_assert_true (error != NULL && g_str_has_prefix (error->message, "bad.onnx"));
      else
        {
          /* Whatever loads must also infer or fail cleanly. */
          g_autoptr(GError) infer_error = NULL;
          if (!fw_test_infer (m, NULL, NULL, &infer_error))
            g_assert_nonnull (infer_error);
        }
    }
}

static void
test_wrong_wire_type (void)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GBytes) b = NULL;

  /* ir_version as a length-delimited field. */
  fw_pb_put_string (out, MODEL_IR_VERSION, "8");
  b = g_bytes_new (out->data, out->len);
  assert_load_fails (b, FW_ERROR_PARSE, "wire type");
}

static void
node_name_as_varint (GByteArray *g, gpointer data)
{
  gsize mark = fw_pb_begin (g, GRAPH_NODE);
  fw_pb_put_string (g, NODE_OP_TYPE, "Relu");
  fw_pb_put_int (g, NODE_NAME, 5);
  fw_pb_end (g, mark);
}

static void
test_wrong_wire_type_nested (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, node_name_as_varint, NULL);
  assert_load_fails (b, FW_ERROR_PARSE, "node[0]");
}

static void
test_length_past_end (void)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GBytes) b = NULL;
  static const guint8 junk[4] = { 1, 2, 3, 4 };

  fw_pb_put_int (out, MODEL_IR_VERSION, 8);
  fw_pb_put_tag (out, MODEL_GRAPH, FW_PB_LEN);
  fw_pb_put_varint (out, G_GUINT64_CONSTANT (1) << 40);  /* claims a terabyte */
  g_byte_array_append (out, junk, 4);
  b = g_bytes_new (out->data, out->len);
  assert_load_fails (b, FW_ERROR_PARSE, "past the end");
}

static void
test_long_varint (void)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GBytes) b = NULL;
  static const guint8 eleven[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };

  fw_pb_put_tag (out, MODEL_IR_VERSION, FW_PB_VARINT);
  g_byte_array_append (out, eleven, 11);
  b = g_bytes_new (out->data, out->len);
  assert_load_fails (b, FW_ERROR_PARSE, "varint");
}

static void
test_unknown_wire_type (void)
{
  static const guint8 data[3] = { (1 << 3) | 7, 0, 0 };
  g_autoptr(GBytes) b = g_bytes_new (data, 3);
  assert_load_fails (b, FW_ERROR_PARSE, "wire type");
}

static void
test_no_graph (void)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  g_autoptr(GBytes) b = NULL;

  fw_pb_put_int (out, MODEL_IR_VERSION, 8);
  b = g_bytes_new (out->data, out->len);
  assert_load_fails (b, FW_ERROR_INVALID, "no graph");
}

static void
one_relu (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Relu", "r", "x", NULL, "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
test_ir_version (void)
{
  g_autoptr(GBytes) high = fw_test_pb_model (99, 13, one_relu, NULL);
  g_autoptr(GBytes) low = fw_test_pb_model (2, 13, one_relu, NULL);
  g_autoptr(GBytes) opset = fw_test_pb_model (8, 99, one_relu, NULL);

  assert_load_fails (high, FW_ERROR_UNSUPPORTED, "IR version 99");
  assert_load_fails (low, FW_ERROR_UNSUPPORTED, "IR version 2");
  assert_load_fails (opset, FW_ERROR_UNSUPPORTED, "opset 99");
}

static void
negative_tensor_dim (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { -3, 4 };
  fw_test_pb_initializer (g, "w", 2, dims, 0);
}

static void
negative_value_dim (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { 4, -1 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 2, dims);
}

static void
test_negative_dims (void)
{
  g_autoptr(GBytes) a = fw_test_pb_model (8, 13, negative_tensor_dim, NULL);
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, negative_value_dim, NULL);

  assert_load_fails (a, FW_ERROR_INVALID, "negative");
  assert_load_fails (b, FW_ERROR_INVALID, "negative");
}

static void
huge_tensor (GByteArray *g, gpointer data)
{
  /* 2^62 elements claimed, 16 bytes present. */
  gint64 dims[3] = { G_GINT64_CONSTANT (1) << 31, G_GINT64_CONSTANT (1) << 31, 1 };
  fw_test_pb_initializer (g, "w", 3, dims, 16);
}

static void
just_past_cap (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { G_GINT64_CONSTANT (1) << 21, (G_GINT64_CONSTANT (1) << 19) + 1 };
  fw_test_pb_initializer (g, "w", 2, dims, 16);
}

static void
huge_value_info (GByteArray *g, gpointer data)
{
  /* 10^12 elements in a declared input. */
  gint64 dims[2] = { 1000000, 1000000 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 2, dims);
}

static void
test_absurd_dims (void)
{
  g_autoptr(GBytes) a = fw_test_pb_model (8, 13, huge_tensor, NULL);
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, just_past_cap, NULL);
  g_autoptr(GBytes) c = fw_test_pb_model (8, 13, huge_value_info, NULL);

  assert_load_fails (a, FW_ERROR_LIMIT, "2^39");
  assert_load_fails (b, FW_ERROR_LIMIT, "2^39");
  assert_load_fails (c, FW_ERROR_LIMIT, "2^39");
}

static void
short_raw_data (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { 4, 4 };
  fw_test_pb_initializer (g, "w", 2, dims, 60);
}

static void
test_raw_data_size (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, short_raw_data, NULL);
  assert_load_fails (b, FW_ERROR_INVALID, "raw_data holds 60 bytes");
}

static void
cycle (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Add", "a", "x", "b_out", "a_out");
  fw_test_pb_node (g, "Relu", "b", "a_out", NULL, "b_out");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "a_out", 1, dims);
}

static void
test_cycle (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, cycle, NULL);
  assert_load_fails (b, FW_ERROR_INVALID, "cycle");
}

static void
self_loop (GByteArray *g, gpointer data)
{
  fw_test_pb_node (g, "Relu", "self", "y", NULL, "y");
}

static void
test_self_loop (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, self_loop, NULL);
  assert_load_fails (b, FW_ERROR_INVALID, "cycle");
}

static void
dangling (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Add", "adder", "x", "nowhere", "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
dangling_output (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "ghost", 1, dims);
}

static void
test_dangling (void)
{
  g_autoptr(GBytes) a = fw_test_pb_model (8, 13, dangling, NULL);
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, dangling_output, NULL);

  assert_load_fails (a, FW_ERROR_INVALID, "“nowhere”");
  assert_load_fails (b, FW_ERROR_INVALID, "“ghost”");
}

static void
duplicate_producer (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Relu", "first", "x", NULL, "y");
  fw_test_pb_node (g, "Sigmoid", "second", "x", NULL, "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
output_shadows_input (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Relu", "overwrite", "x", NULL, "x");
}

static void
duplicate_initializer (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 1 };
  fw_test_pb_initializer (g, "w", 1, dims, 4);
  fw_test_pb_initializer (g, "w", 1, dims, 4);
}

static void
test_duplicates (void)
{
  g_autoptr(GBytes) a = fw_test_pb_model (8, 13, duplicate_producer, NULL);
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, output_shadows_input, NULL);
  g_autoptr(GBytes) c = fw_test_pb_model (8, 13, duplicate_initializer, NULL);

  assert_load_fails (a, FW_ERROR_INVALID, "“second”");
  assert_load_fails (b, FW_ERROR_INVALID, "graph input");
  assert_load_fails (c, FW_ERROR_INVALID, "“w”");
}

static void
non_utf8 (GByteArray *g, gpointer data)
{
  gsize mark = fw_pb_begin (g, GRAPH_NODE);
  static const char bad[] = "conv\xff\xfe";
  fw_pb_put_bytes (g, NODE_NAME, bad, sizeof bad - 1);
  fw_pb_put_string (g, NODE_OP_TYPE, "Relu");
  fw_pb_end (g, mark);
}

static void
non_utf8_value (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x\xc3", 1, dims);
}

static void
test_non_utf8 (void)
{
  g_autoptr(GBytes) a = fw_test_pb_model (8, 13, non_utf8, NULL);
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, non_utf8_value, NULL);

  assert_load_fails (a, FW_ERROR_INVALID, "UTF-8");
  assert_load_fails (b, FW_ERROR_INVALID, "UTF-8");
}

static void
no_op_type (GByteArray *g, gpointer data)
{
  fw_test_pb_node (g, "", "anon", NULL, NULL, "y");
}

static void
test_missing_op_type (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, no_op_type, NULL);
  assert_load_fails (b, FW_ERROR_INVALID, "op_type");
}

/* Graphs nested 200 deep through If branches hit the depth cap, not the stack. */
static void
put_nested_if (GByteArray *g, guint depth)
{
  gsize node = fw_pb_begin (g, GRAPH_NODE);
  gsize attr;

  fw_pb_put_string (g, NODE_INPUT, "cond");
  fw_pb_put_string (g, NODE_OUTPUT, "y");
  fw_pb_put_string (g, NODE_OP_TYPE, "If");
  attr = fw_pb_begin (g, NODE_ATTRIBUTE);
  fw_pb_put_string (g, ATTR_NAME, "then_branch");
  fw_pb_put_int (g, ATTR_TYPE, 5);
  {
    gsize sub = fw_pb_begin (g, ATTR_G);
    if (depth > 0)
      put_nested_if (g, depth - 1);
    fw_pb_end (g, sub);
  }
  fw_pb_end (g, attr);
  fw_pb_end (g, node);
}

static void
deep_nesting (GByteArray *g, gpointer data)
{
  put_nested_if (g, GPOINTER_TO_UINT (data));
}

static void
test_deep_nesting (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, deep_nesting, GUINT_TO_POINTER (200));
  assert_load_fails (b, FW_ERROR_LIMIT, "nested");
}

/* A packed list of one-byte varints grows eightfold when decoded: counted against the allocation cap. */
static void
packed_int64s (GByteArray *g, gpointer data)
{
  gsize n = GPOINTER_TO_SIZE (data);
  gsize mark = fw_pb_begin (g, GRAPH_INITIALIZER);
  g_autofree guint8 *ones = g_malloc (n);

  memset (ones, 1, n);
  fw_pb_put_int (g, TENSOR_DIMS, (gint64) n);
  fw_pb_put_int (g, TENSOR_DATA_TYPE, FW_DTYPE_INT64);
  fw_pb_put_string (g, TENSOR_NAME, "big");
  fw_pb_put_bytes (g, TENSOR_INT64_DATA, ones, n);
  fw_pb_end (g, mark);
}

static void
test_alloc_cap (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, packed_int64s, GSIZE_TO_POINTER (1 << 20));
  FwOnnxLoadOptions options = { .max_alloc_bytes = 4 << 20 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) m = fw_onnx_load_bytes (b, "bad.onnx", NULL, &options, &error);
  g_autoptr(FwModel) ok = NULL;

  g_assert_null (m);
  g_assert_error (error, FW_ERROR, FW_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "--max-alloc-mb"));
  g_clear_error (&error);
  /* The default cap takes it. */
  ok = fw_onnx_load_bytes (b, "ok.onnx", NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
small_tensor (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { 100, 100 };
  fw_test_pb_initializer (g, "w", 2, dims, 40000);
}

static void
test_tensor_cap_option (void)
{
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, small_tensor, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) m = NULL;

  fw_tensor_set_max_elements (1000);
  m = fw_onnx_load_bytes (b, "bad.onnx", NULL, NULL, &error);
  fw_tensor_set_max_elements (FW_TENSOR_DEFAULT_MAX_ELEMENTS);
  g_assert_null (m);
  g_assert_error (error, FW_ERROR, FW_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "more than 1000 elements"));
  g_assert_nonnull (strstr (error->message, "--max-tensor-elements"));
}

static void
test_node_cap (void)
{
  g_autoptr(FwModel) model = fw_test_long_chain (100);
  g_autoptr(GBytes) bytes = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  FwOnnxLoadOptions options = { .max_nodes = 50 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) m = fw_onnx_load_bytes (bytes, "bad.onnx", NULL, &options, &error);

  g_assert_null (m);
  g_assert_error (error, FW_ERROR, FW_ERROR_LIMIT);
  g_assert_nonnull (strstr (error->message, "--max-nodes"));
}

/* ---- external data ---- */

typedef struct
{
  const char *location;
  gint64 offset;
  gint64 length;
} External;

static void
external_body (GByteArray *g, gpointer data)
{
  External *e = data;
  fw_test_pb_external (g, "w", 4, e->location, e->offset, e->length);
}

static char *
write_model_dir (const char *location, gint64 offset, gint64 length, char **dir_out)
{
  g_autofree char *dir = g_dir_make_tmp ("fw-bad-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *data_path = g_build_filename (dir, "weights.bin", NULL);
  External e = { location, offset, length };
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, external_body, &e);
  static const char data[32] = { 0 };

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (b, NULL), g_bytes_get_size (b), NULL));
  g_assert_true (g_file_set_contents (data_path, data, sizeof data, NULL));
  *dir_out = g_steal_pointer (&dir);
  return g_steal_pointer (&path);
}

static void
assert_external_fails (const char *location, gint64 offset, gint64 length, const char *needle,
                       void (*prepare) (const char *dir))
{
  g_autofree char *dir = NULL;
  g_autofree char *path = write_model_dir (location, offset, length, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;

  if (prepare)
    prepare (dir);
  model = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_null (model);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, path));
  if (strstr (error->message, needle) == NULL)
    g_error ("error “%s” does not mention “%s”", error->message, needle);
  fw_test_remove_dir (dir);
}

static void
link_outside (const char *dir)
{
  g_autofree char *link = g_build_filename (dir, "escape.bin", NULL);
  g_assert_cmpint (symlink ("/etc/hostname", link), ==, 0);
}

static void
link_dev_zero (const char *dir)
{
  g_autofree char *link = g_build_filename (dir, "zero.bin", NULL);
  g_assert_cmpint (symlink ("/dev/zero", link), ==, 0);
}

static void
make_fifo (const char *dir)
{
  g_autofree char *fifo = g_build_filename (dir, "fifo.bin", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
}

static void
test_external_ok (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = write_model_dir ("weights.bin", 16, 16, &dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, &error);
  FwValue *w;

  g_assert_no_error (error);
  w = fw_graph_lookup_value (fw_model_get_graph (model), "w");
  g_assert_nonnull (w->constant);
  g_assert_cmpuint (fw_tensor_get_byte_size (w->constant), ==, 16);
  g_clear_object (&model);
  fw_test_remove_dir (dir);
}

static void
test_external_escapes (void)
{
  assert_external_fails ("../weights.bin", 0, 16, "leaves the model's folder", NULL);
  assert_external_fails ("/etc/hostname", 0, 16, "leaves the model's folder", NULL);
  assert_external_fails ("/dev/zero", 0, 16, "leaves the model's folder", NULL);
  assert_external_fails ("sub/../../weights.bin", 0, 16, "leaves the model's folder", NULL);
  assert_external_fails ("escape.bin", 0, 16, "outside the model's folder", link_outside);
}

static void
test_external_not_regular (void)
{
  assert_external_fails ("zero.bin", 0, 16, "outside the model's folder", link_dev_zero);
  assert_external_fails ("fifo.bin", 0, 16, "not a regular file", make_fifo);
}

static void
test_external_past_end (void)
{
  assert_external_fails ("weights.bin", 24, 16, "past the end", NULL);
  assert_external_fails ("weights.bin", 0, 8, "gives length 8", NULL);
  assert_external_fails ("missing.bin", 0, 16, "cannot open", NULL);
}

static void
test_external_from_memory (void)
{
  External e = { "weights.bin", 0, 16 };
  g_autoptr(GBytes) b = fw_test_pb_model (8, 13, external_body, &e);
  assert_load_fails (b, FW_ERROR_INVALID, "not read from a folder");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/onnx/load/empty", test_empty);
  g_test_add_func ("/core/onnx/load/garbage", test_garbage);
  g_test_add_func ("/core/onnx/load/truncated", test_truncated_everywhere);
  g_test_add_func ("/core/onnx/load/truncated-weights", test_truncated_weights);
  g_test_add_func ("/core/onnx/load/bit-flips", test_bit_flips);
  g_test_add_func ("/core/onnx/load/wrong-wire-type", test_wrong_wire_type);
  g_test_add_func ("/core/onnx/load/wrong-wire-type-nested", test_wrong_wire_type_nested);
  g_test_add_func ("/core/onnx/load/length-past-end", test_length_past_end);
  g_test_add_func ("/core/onnx/load/varint-too-long", test_long_varint);
  g_test_add_func ("/core/onnx/load/unknown-wire-type", test_unknown_wire_type);
  g_test_add_func ("/core/onnx/load/no-graph", test_no_graph);
  g_test_add_func ("/core/onnx/load/unsupported-versions", test_ir_version);
  g_test_add_func ("/core/onnx/load/negative-dims", test_negative_dims);
  g_test_add_func ("/core/onnx/load/absurd-dims", test_absurd_dims);
  g_test_add_func ("/core/onnx/load/raw-data-size", test_raw_data_size);
  g_test_add_func ("/core/onnx/load/cycle", test_cycle);
  g_test_add_func ("/core/onnx/load/self-loop", test_self_loop);
  g_test_add_func ("/core/onnx/load/dangling-names", test_dangling);
  g_test_add_func ("/core/onnx/load/duplicate-producers", test_duplicates);
  g_test_add_func ("/core/onnx/load/non-utf8-names", test_non_utf8);
  g_test_add_func ("/core/onnx/load/missing-op-type", test_missing_op_type);
  g_test_add_func ("/core/onnx/load/deep-nesting", test_deep_nesting);
  g_test_add_func ("/core/onnx/load/node-cap", test_node_cap);
  g_test_add_func ("/core/onnx/load/alloc-cap", test_alloc_cap);
  g_test_add_func ("/core/onnx/load/tensor-cap-option", test_tensor_cap_option);
  g_test_add_func ("/core/onnx/external/ok", test_external_ok);
  g_test_add_func ("/core/onnx/external/escapes-folder", test_external_escapes);
  g_test_add_func ("/core/onnx/external/not-regular", test_external_not_regular);
  g_test_add_func ("/core/onnx/external/past-end", test_external_past_end);
  g_test_add_func ("/core/onnx/external/from-memory", test_external_from_memory);
  return g_test_run ();
}
