/* test-shape.c: shape and dtype inference and constant folding on graphs built in memory. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "fw-error.h"
#include "graph/fw-graph-private.h"
#include "shape/fw-shape-infer.h"

/* ---- building helpers ---- */

/* "batch,128,?" → dims; "" → rank 0. Symbols are interned in g. */
static gint
parse_dims (FwGraph *g, const char *spec, FwDim *dims)
{
  g_auto(GStrv) parts = NULL;
  gint rank = 0;

  if (spec[0] == '\0')
    return 0;
  parts = g_strsplit (spec, ",", -1);
  for (gint i = 0; parts[i]; i++, rank++)
    {
      if (strcmp (parts[i], "?") == 0)
        dims[i] = FW_DIM_UNKNOWN;
      else if (g_ascii_isdigit (parts[i][0]))
        dims[i] = FW_DIM_STATIC (g_ascii_strtoll (parts[i], NULL, 10));
      else
        dims[i] = (FwDim) { -1, fw_graph_intern (g, parts[i]) };
    }
  return rank;
}

static FwValue *
add_input (FwGraph *g, const char *name, FwDType dtype, const char *spec)
{
  FwDim dims[FW_MAX_RANK];
  gint rank = parse_dims (g, spec, dims);
  g_autoptr(GError) error = NULL;
  FwValue *v = fw_graph_add_input (g, name, dtype, rank, dims, &error);

  g_assert_no_error (error);
  return v;
}

static void
add_ints (FwGraph *g, const char *name, gint rank, guint n, const gint64 *values)
{
  gint64 dims[1] = { n };
  g_autoptr(FwTensor) t = fw_tensor_new_int64 ((guint) rank, dims, values);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_initializer (g, name, t, &error));
  g_assert_no_error (error);
}

static void
add_scalar (FwGraph *g, const char *name, gint64 value)
{
  add_ints (g, name, 0, 1, &value);
}

static void
add_floats (FwGraph *g, const char *name, const char *spec)
{
  FwDim dims[FW_MAX_RANK];
  gint rank = parse_dims (g, spec, dims);
  gint64 d64[FW_MAX_RANK];
  gint64 n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) t = NULL;
  g_autoptr(GError) error = NULL;

  for (gint i = 0; i < rank; i++)
    {
      d64[i] = dims[i].value;
      n *= d64[i];
    }
  values = g_new0 (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = 1.0f + (float) i;
  t = fw_tensor_new_float ((guint) rank, d64, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, &error));
  g_assert_no_error (error);
}

static void
add_float_scalar (FwGraph *g, const char *name, float value)
{
  g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &value);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_initializer (g, name, t, &error));
  g_assert_no_error (error);
}

/* Inputs and outputs as comma-separated names; "" entries are omitted optional inputs. */
static FwNode *
add_node (FwGraph *g, const char *op, const char *name, const char *inputs, const char *outputs)
{
  g_auto(GStrv) in = g_strsplit (inputs, ",", -1);
  g_auto(GStrv) out = g_strsplit (outputs, ",", -1);
  g_autoptr(GError) error = NULL;
  FwNode *node;

  node = fw_graph_add_node (g, op, "", name, g_strv_length (in), (const char * const *) in,
                            g_strv_length (out), (const char * const *) out, &error);
  g_assert_no_error (error);
  return node;
}

static void
add_output (FwGraph *g, const char *name)
{
  g_assert_true (fw_graph_add_output (g, name, NULL));
}

static gboolean
infer (FwGraph *g, GHashTable *bindings, FwInferReport *report, GError **error)
{
  FwInferOptions options = { bindings, 0 };

  if (!g->linked && !fw_graph_link (g, error))
    return FALSE;
  return fw_shape_infer_graph (g, &options, report, error);
}

static void
infer_ok (FwGraph *g)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (infer (g, NULL, NULL, &error));
  g_assert_no_error (error);
}

#define assert_shape(g, name, expected) \
  G_STMT_START { \
    FwValue *v_ = fw_graph_lookup_value ((g), (name)); \
    g_autofree char *s_ = NULL; \
    g_assert_nonnull (v_); \
    s_ = fw_value_format_shape (v_); \
    g_assert_cmpstr (s_, ==, (expected)); \
  } G_STMT_END

#define assert_dtype(g, name, dtype) \
  g_assert_cmpint (fw_value_get_dtype (fw_graph_lookup_value ((g), (name))), ==, (dtype))

static void
assert_const_ints (FwGraph *g, const char *name, guint n, const gint64 *expected)
{
  FwValue *v = fw_graph_lookup_value (g, name);

  g_assert_nonnull (v);
  g_assert_nonnull (v->constant);
  g_assert_cmpint (v->constant->n_elements, ==, n);
  for (guint i = 0; i < n; i++)
    {
      gint64 x = 0;
      g_assert_true (fw_tensor_get_int64 (v->constant, i, &x));
      g_assert_cmpint (x, ==, expected[i]);
    }
}

/* ---- tests ---- */

static void
test_elementwise_broadcast (void)
{
  FwGraph *g = fw_graph_new (NULL);

  add_input (g, "x", FW_DTYPE_FLOAT, "2,3,4");
  add_input (g, "y", FW_DTYPE_FLOAT, "4");
  add_input (g, "z", FW_DTYPE_FLOAT, "3,1");
  add_node (g, "Add", "add", "x,y", "a");
  add_node (g, "Relu", "relu", "a", "b");
  add_node (g, "Mul", "mul", "b,z", "c");
  add_node (g, "Sigmoid", "sig", "c", "d");
  add_node (g, "Equal", "eq", "d,z", "e");
  add_node (g, "Where", "where", "e,x,y", "f");
  add_node (g, "Cast", "cast", "f", "h");
  fw_node_set_attr_int (fw_graph_get_node (g, 6), "to", FW_DTYPE_FLOAT16);
  add_node (g, "Shape", "shape", "h", "s");
  add_output (g, "s");
  infer_ok (g);
  assert_shape (g, "a", "[2,3,4]");
  assert_shape (g, "c", "[2,3,4]");
  assert_shape (g, "e", "[2,3,4]");
  assert_dtype (g, "e", FW_DTYPE_BOOL);
  assert_dtype (g, "f", FW_DTYPE_FLOAT);
  assert_dtype (g, "h", FW_DTYPE_FLOAT16);
  assert_dtype (g, "s", FW_DTYPE_INT64);
  assert_const_ints (g, "s", 3, (gint64[]) { 2, 3, 4 });
  fw_graph_free (g);
}

static void
test_elementwise_symbolic (void)
{
  FwGraph *g = fw_graph_new (NULL);

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,seq,768");
  add_input (g, "m", FW_DTYPE_FLOAT, "1,seq,1");
  add_input (g, "o", FW_DTYPE_FLOAT, "other,1,768");
  add_input (g, "u", FW_DTYPE_FLOAT, "?,1,1");
  add_floats (g, "bias", "768");
  add_node (g, "Add", "a1", "x,bias", "a");
  add_node (g, "Mul", "m1", "a,m", "b");
  add_node (g, "Sub", "s1", "b,o", "c");
  add_node (g, "Tanh", "t1", "x", "d");
  add_node (g, "Add", "a2", "m,u", "e");
  add_output (g, "c");
  infer_ok (g);
  assert_shape (g, "a", "[batch,seq,768]");
  assert_shape (g, "b", "[batch,seq,768]");
  assert_shape (g, "c", "[?,seq,768]");
  assert_shape (g, "d", "[batch,seq,768]");
  assert_shape (g, "e", "[?,seq,1]");
  fw_graph_free (g);
}

static void
test_bindings (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr(GError) error = NULL;
  FwInferReport report;

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,seq,768");
  add_floats (g, "bias", "768");
  add_node (g, "Add", "a1", "x,bias", "a");
  add_node (g, "Shape", "shape", "a", "s");
  add_output (g, "s");
  g_hash_table_insert (bindings, (gpointer) "batch", g_memdup2 ((gint64[]) { 8 }, sizeof (gint64)));
  fw_infer_report_init (&report);
  g_assert_true (infer (g, bindings, &report, &error));
  g_assert_no_error (error);
  assert_shape (g, "x", "[8,seq,768]");
  assert_shape (g, "a", "[8,seq,768]");
  g_assert_null (fw_graph_lookup_value (g, "s")->constant);
  g_assert_cmpint (report.n_nodes, ==, 2);
  g_assert_cmpint (report.n_values, ==, 3);
  g_assert_cmpint (report.n_static_values, ==, 1);  /* s: [3] */
  fw_infer_report_clear (&report);

  g_hash_table_insert (bindings, (gpointer) "seq", g_memdup2 ((gint64[]) { 128 }, sizeof (gint64)));
  fw_infer_report_init (&report);
  g_assert_true (infer (g, bindings, &report, &error));
  assert_shape (g, "a", "[8,128,768]");
  assert_const_ints (g, "s", 3, (gint64[]) { 8, 128, 768 });
  g_assert_cmpint (report.n_static_values, ==, 3);
  g_assert_cmpint (report.n_folded, ==, 1);
  fw_infer_report_clear (&report);
  fw_graph_free (g);
}

static void
test_matmul_batched (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(GError) error = NULL;

  add_input (g, "q", FW_DTYPE_FLOAT, "batch,12,128,64");
  add_input (g, "k", FW_DTYPE_FLOAT, "batch,12,64,128");
  add_input (g, "a", FW_DTYPE_FLOAT, "2,1,4,5");
  add_input (g, "b", FW_DTYPE_FLOAT, "3,5,6");
  add_input (g, "v", FW_DTYPE_FLOAT, "5");
  add_input (g, "w", FW_DTYPE_FLOAT, "4,5");
  add_node (g, "MatMul", "mm1", "q,k", "s");
  add_node (g, "MatMul", "mm2", "a,b", "ab");
  add_node (g, "MatMul", "mm3", "v,b", "vb");
  add_node (g, "MatMul", "mm4", "w,v", "wv");
  add_node (g, "MatMul", "mm5", "v,v", "vv");
  infer_ok (g);
  assert_shape (g, "s", "[batch,12,128,128]");
  assert_shape (g, "ab", "[2,3,4,6]");
  assert_shape (g, "vb", "[3,6]");
  assert_shape (g, "wv", "[4]");
  assert_shape (g, "vv", "[]");
  fw_graph_free (g);

  g = fw_graph_new (NULL);
  add_input (g, "a", FW_DTYPE_FLOAT, "2,4,5");
  add_input (g, "b", FW_DTYPE_FLOAT, "6,7");
  add_node (g, "MatMul", "/blocks.0/bad_mm", "a,b", "c");
  g_assert_false (infer (g, NULL, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "/blocks.0/bad_mm"));
  g_assert_nonnull (strstr (error->message, "[2,4,5]"));
  fw_graph_free (g);
}

/* A BERT-style attention block with the exporter's shape arithmetic. */
static void
test_transformer_block (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;
  FwValue *cat;

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,128,768");
  add_floats (g, "wq", "768,768");
  add_floats (g, "bq", "768");
  add_scalar (g, "zero", 0);
  add_scalar (g, "one", 1);
  add_ints (g, "axes0", 1, 1, (gint64[]) { 0 });
  add_ints (g, "heads", 1, 1, (gint64[]) { 12 });
  add_ints (g, "hdim", 1, 1, (gint64[]) { 64 });
  add_ints (g, "hidden", 1, 1, (gint64[]) { 768 });
  add_ints (g, "keep_minus", 1, 3, (gint64[]) { 0, 0, -1 });
  add_float_scalar (g, "scale", 8.0f);
  add_float_scalar (g, "sqrt2", 1.41421f);
  add_float_scalar (g, "fone", 1.0f);
  add_float_scalar (g, "half", 0.5f);
  add_floats (g, "gamma", "768");
  add_floats (g, "beta", "768");

  add_node (g, "MatMul", "/attn/q/MatMul", "x,wq", "q0");
  add_node (g, "Add", "/attn/q/Add", "q0,bq", "q");
  add_node (g, "Shape", "/attn/Shape", "x", "xs");
  add_node (g, "Gather", "/attn/Gather", "xs,zero", "b");
  add_node (g, "Gather", "/attn/Gather_1", "xs,one", "sq");
  add_node (g, "Unsqueeze", "/attn/Unsqueeze", "b,axes0", "ub");
  add_node (g, "Unsqueeze", "/attn/Unsqueeze_1", "sq,axes0", "us");
  n = add_node (g, "Concat", "/attn/Concat", "ub,us,heads,hdim", "cat");
  fw_node_set_attr_int (n, "axis", 0);
  add_node (g, "Reshape", "/attn/Reshape", "q,cat", "q4");
  n = add_node (g, "Transpose", "/attn/Transpose", "q4", "qt");
  fw_node_set_attr_ints (n, "perm", 4, (gint64[]) { 0, 2, 1, 3 });
  n = add_node (g, "Transpose", "/attn/Transpose_k", "q4", "kt");
  fw_node_set_attr_ints (n, "perm", 4, (gint64[]) { 0, 2, 3, 1 });
  add_node (g, "MatMul", "/attn/MatMul", "qt,kt", "scores");
  add_node (g, "Div", "/attn/Div", "scores,scale", "scaled");
  n = add_node (g, "Softmax", "/attn/Softmax", "scaled", "probs");
  fw_node_set_attr_int (n, "axis", -1);
  add_node (g, "MatMul", "/attn/MatMul_1", "probs,qt", "ctx");
  n = add_node (g, "Transpose", "/attn/Transpose_2", "ctx", "ctxt");
  fw_node_set_attr_ints (n, "perm", 4, (gint64[]) { 0, 2, 1, 3 });
  n = add_node (g, "Concat", "/attn/Concat_1", "ub,us,hidden", "cat2");
  fw_node_set_attr_int (n, "axis", 0);
  add_node (g, "Reshape", "/attn/Reshape_1", "ctxt,cat2", "merged");
  add_node (g, "Reshape", "/attn/Reshape_2", "ctxt,keep_minus", "merged2");
  n = add_node (g, "LayerNormalization", "/ln", "merged,gamma,beta", "ln,ln_mean,ln_inv");
  fw_node_set_attr_int (n, "axis", -1);
  add_node (g, "Div", "/mlp/Div", "ln,sqrt2", "g1");
  add_node (g, "Erf", "/mlp/Erf", "g1", "g2");
  add_node (g, "Add", "/mlp/Add", "g2,fone", "g3");
  add_node (g, "Mul", "/mlp/Mul", "ln,g3", "g4");
  add_node (g, "Mul", "/mlp/Mul_1", "g4,half", "gelu");
  add_output (g, "gelu");
  infer_ok (g);

  assert_shape (g, "q", "[batch,128,768]");
  assert_shape (g, "xs", "[3]");
  g_assert_null (fw_graph_lookup_value (g, "xs")->constant);
  assert_shape (g, "b", "[]");
  assert_const_ints (g, "sq", 1, (gint64[]) { 128 });
  assert_shape (g, "cat", "[4]");
  cat = fw_graph_lookup_value (g, "cat");
  g_assert_cmpint (cat->shape_value_len, ==, 4);
  g_assert_cmpstr (cat->shape_value[0].symbol, ==, "batch");
  g_assert_cmpint (cat->shape_value[1].value, ==, 128);
  g_assert_cmpint (cat->shape_value[3].value, ==, 64);
  assert_shape (g, "q4", "[batch,128,12,64]");
  assert_shape (g, "qt", "[batch,12,128,64]");
  assert_shape (g, "kt", "[batch,12,64,128]");
  assert_shape (g, "scores", "[batch,12,128,128]");
  assert_shape (g, "probs", "[batch,12,128,128]");
  assert_shape (g, "ctx", "[batch,12,128,64]");
  assert_shape (g, "merged", "[batch,128,768]");
  assert_shape (g, "merged2", "[batch,128,768]");
  assert_shape (g, "ln", "[batch,128,768]");
  assert_shape (g, "ln_mean", "[batch,128,1]");
  assert_shape (g, "gelu", "[batch,128,768]");
  assert_dtype (g, "gelu", FW_DTYPE_FLOAT);
  fw_graph_free (g);
}

static void
test_reshape_minus_one (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,197,768");
  add_ints (g, "t1", 1, 3, (gint64[]) { 0, -1, 64 });
  add_ints (g, "t2", 1, 2, (gint64[]) { -1, 768 });
  add_ints (g, "t3", 1, 4, (gint64[]) { 0, 197, 12, 64 });
  add_ints (g, "bad", 1, 3, (gint64[]) { 0, 7, 5 });
  add_node (g, "Reshape", "r1", "x,t1", "y1");
  add_node (g, "Reshape", "r2", "x,t2", "y2");
  add_node (g, "Reshape", "r3", "x,t3", "y3");
  add_node (g, "Shape", "s", "x", "xs");
  add_ints (g, "idx", 1, 1, (gint64[]) { 0 });
  add_ints (g, "rest", 1, 2, (gint64[]) { -1, 768 });
  add_node (g, "Gather", "g", "xs,idx", "b");
  add_node (g, "Concat", "c", "b,rest", "t4");
  fw_node_set_attr_int (fw_graph_get_node (g, 5), "axis", 0);
  add_node (g, "Reshape", "r4", "y3,t4", "y4");
  n = add_node (g, "Flatten", "f", "x", "flat");
  fw_node_set_attr_int (n, "axis", 1);
  infer_ok (g);
  assert_shape (g, "y1", "[batch,2364,64]");
  assert_shape (g, "y2", "[?,768]");
  assert_shape (g, "y3", "[batch,197,12,64]");
  assert_shape (g, "y4", "[batch,197,768]");
  assert_shape (g, "flat", "[batch,151296]");
  fw_graph_free (g);

  {
    g_autoptr(GError) error = NULL;
    g = fw_graph_new (NULL);
    add_input (g, "x", FW_DTYPE_FLOAT, "2,197,768");
    add_ints (g, "bad", 1, 3, (gint64[]) { 0, 7, 5 });
    add_node (g, "Reshape", "bad_reshape", "x,bad", "y");
    g_assert_false (infer (g, NULL, NULL, &error));
    g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "bad_reshape"));
    fw_graph_free (g);
  }
}

static void
test_conv_block (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "1,3,224,224");
  add_input (g, "xb", FW_DTYPE_FLOAT, "N,3,224,224");
  add_floats (g, "w1", "64,3,7,7");
  add_floats (g, "b1", "64");
  add_floats (g, "scale", "64");
  add_floats (g, "bias", "64");
  add_floats (g, "mean", "64");
  add_floats (g, "var", "64");
  add_floats (g, "wdw", "64,1,3,3");
  add_floats (g, "w3", "32,64,3,3");
  add_floats (g, "wfc", "1000,32");
  add_floats (g, "bfc", "1000");

  n = add_node (g, "Conv", "conv1", "x,w1,b1", "c1");
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 3, 3, 3, 3 });
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 7, 7 });
  n = add_node (g, "Conv", "conv1b", "xb,w1,b1", "c1b");
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 3, 3, 3, 3 });
  add_node (g, "BatchNormalization", "bn", "c1,scale,bias,mean,var", "bn1");
  add_node (g, "Relu", "relu", "bn1", "r1");
  n = add_node (g, "MaxPool", "pool", "r1", "p1");
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 3, 3 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 1, 1, 1, 1 });
  n = add_node (g, "MaxPool", "pool_ceil", "r1", "p_ceil");
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 3, 3 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_int (n, "ceil_mode", 1);
  n = add_node (g, "MaxPool", "pool_floor", "r1", "p_floor");
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 3, 3 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  n = add_node (g, "Conv", "dw", "p1,wdw", "dw1");
  fw_node_set_attr_int (n, "group", 64);
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 2, 2, 2, 2 });
  fw_node_set_attr_ints (n, "dilations", 2, (gint64[]) { 2, 2 });
  n = add_node (g, "Conv", "same", "dw1,w3", "c3");
  fw_node_set_attr_string (n, "auto_pad", "SAME_UPPER");
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  n = add_node (g, "AveragePool", "avg", "c3", "a3");
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  add_node (g, "GlobalAveragePool", "gap", "a3", "gp");
  add_node (g, "Flatten", "flatten", "gp", "fl");
  n = add_node (g, "Gemm", "fc", "fl,wfc,bfc", "logits");
  fw_node_set_attr_int (n, "transB", 1);
  add_output (g, "logits");
  infer_ok (g);

  assert_shape (g, "c1", "[1,64,112,112]");
  assert_shape (g, "c1b", "[N,64,112,112]");
  assert_shape (g, "bn1", "[1,64,112,112]");
  assert_shape (g, "p1", "[1,64,56,56]");
  assert_shape (g, "p_ceil", "[1,64,56,56]");
  assert_shape (g, "p_floor", "[1,64,55,55]");
  assert_shape (g, "dw1", "[1,64,56,56]");
  assert_shape (g, "c3", "[1,32,28,28]");
  assert_shape (g, "a3", "[1,32,14,14]");
  assert_shape (g, "gp", "[1,32,1,1]");
  assert_shape (g, "fl", "[1,32]");
  assert_shape (g, "logits", "[1,1000]");
  fw_graph_free (g);
}

static void
test_conv_channel_mismatch (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(GError) error = NULL;

  add_input (g, "x", FW_DTYPE_FLOAT, "1,4,8,8");
  add_floats (g, "w", "8,3,3,3");
  add_node (g, "Conv", "bad_conv", "x,w", "y");
  g_assert_false (infer (g, NULL, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "bad_conv"));
  fw_graph_free (g);
}

static void
test_split (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "2,10");
  add_ints (g, "sizes", 1, 2, (gint64[]) { 3, 7 });
  n = add_node (g, "Split", "s1", "x,sizes", "a,b");
  fw_node_set_attr_int (n, "axis", 1);
  n = add_node (g, "Split", "s2", "x", "c,d,e");
  fw_node_set_attr_int (n, "axis", -1);
  fw_node_set_attr_int (n, "num_outputs", 3);
  n = add_node (g, "Split", "s3", "x", "f,h");
  fw_node_set_attr_int (n, "axis", 1);
  n = add_node (g, "Split", "s4", "x", "i,j");
  n->opset = 11;
  fw_node_set_attr_int (n, "axis", 1);
  fw_node_set_attr_ints (n, "split", 2, (gint64[]) { 4, 6 });
  infer_ok (g);
  assert_shape (g, "a", "[2,3]");
  assert_shape (g, "b", "[2,7]");
  assert_shape (g, "c", "[2,4]");
  assert_shape (g, "d", "[2,4]");
  assert_shape (g, "e", "[2,2]");
  assert_shape (g, "f", "[2,5]");
  assert_shape (g, "h", "[2,5]");
  assert_shape (g, "i", "[2,4]");
  assert_shape (g, "j", "[2,6]");
  fw_graph_free (g);
}

static void
test_slice (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;
  gint64 max = G_MAXINT64, min = G_MININT64;

  add_input (g, "x", FW_DTYPE_FLOAT, "10,20,30");
  add_input (g, "y", FW_DTYPE_FLOAT, "batch,seq,30");
  add_ints (g, "st", 1, 2, (gint64[]) { 0, -5 });
  add_ints (g, "en", 1, 2, (gint64[]) { max, -1 });
  add_ints (g, "ax", 1, 2, (gint64[]) { 1, 2 });
  add_ints (g, "sp", 1, 2, (gint64[]) { 2, 1 });
  add_ints (g, "rst", 1, 1, (gint64[]) { -1 });
  add_ints (g, "ren", 1, 1, (gint64[]) { min });
  add_ints (g, "rax", 1, 1, (gint64[]) { 0 });
  add_ints (g, "rsp", 1, 1, (gint64[]) { -3 });
  add_ints (g, "z", 1, 1, (gint64[]) { 0 });
  add_ints (g, "big", 1, 1, (gint64[]) { max });
  add_ints (g, "m1", 1, 1, (gint64[]) { -1 });
  add_node (g, "Slice", "sl1", "x,st,en,ax,sp", "a");
  add_node (g, "Slice", "sl2", "x,rst,ren,rax,rsp", "b");
  n = add_node (g, "Slice", "sl3", "x", "c");
  n->opset = 9;
  fw_node_set_attr_ints (n, "starts", 1, (gint64[]) { 2 });
  fw_node_set_attr_ints (n, "ends", 1, (gint64[]) { 100 });
  fw_node_set_attr_ints (n, "axes", 1, (gint64[]) { -1 });
  add_node (g, "Slice", "sl4", "y,z,big,rax", "d");
  add_node (g, "Shape", "shape", "y", "ys");
  add_node (g, "Slice", "sl5", "ys,z,m1", "ys2");
  infer_ok (g);
  assert_shape (g, "a", "[10,10,4]");
  assert_shape (g, "b", "[4,20,30]");
  assert_shape (g, "c", "[10,20,28]");
  assert_shape (g, "d", "[batch,seq,30]");
  assert_shape (g, "ys2", "[2]");
  g_assert_cmpstr (fw_graph_lookup_value (g, "ys2")->shape_value[1].symbol, ==, "seq");
  fw_graph_free (g);
}

static void
test_squeeze_unsqueeze (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "1,3,1,5");
  add_ints (g, "axes", 1, 2, (gint64[]) { 0, -2 });
  add_ints (g, "uaxes", 1, 2, (gint64[]) { 0, 3 });
  n = add_node (g, "Squeeze", "sq11", "x", "a");
  n->opset = 11;
  fw_node_set_attr_ints (n, "axes", 1, (gint64[]) { 2 });
  n = add_node (g, "Squeeze", "sq13", "x,axes", "b");
  n->opset = 13;
  add_node (g, "Squeeze", "sqall", "x", "c");
  n = add_node (g, "Unsqueeze", "us11", "a", "d");
  n->opset = 11;
  fw_node_set_attr_ints (n, "axes", 2, (gint64[]) { 0, -1 });
  n = add_node (g, "Unsqueeze", "us13", "b,uaxes", "e");
  n->opset = 13;
  infer_ok (g);
  assert_shape (g, "a", "[1,3,5]");
  assert_shape (g, "b", "[3,5]");
  assert_shape (g, "c", "[3,5]");
  assert_shape (g, "d", "[1,1,3,5,1]");
  assert_shape (g, "e", "[1,3,5,1]");
  fw_graph_free (g);
}

static void
test_resize (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(FwTensor) scales = fw_tensor_new_float (1, (gint64[]) { 4 }, (float[]) { 1, 1, 2, 2 });
  g_autoptr(FwTensor) empty = fw_tensor_new_float (1, (gint64[]) { 0 }, (float[]) { 0 });
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,3,32,32");
  g_assert_nonnull (fw_graph_add_initializer (g, "scales", scales, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "empty", empty, NULL));
  add_ints (g, "sizes", 1, 4, (gint64[]) { 1, 3, 50, 60 });
  add_ints (g, "sizes2", 1, 2, (gint64[]) { 50, 60 });
  add_node (g, "Resize", "r1", "x,,scales", "a");
  add_node (g, "Resize", "r2", "x,empty,empty,sizes", "b");
  n = add_node (g, "Resize", "r3", "x,,,sizes2", "c");
  fw_node_set_attr_ints (n, "axes", 2, (gint64[]) { 2, 3 });
  n = add_node (g, "Upsample", "up", "x,scales", "d");
  n->opset = 9;
  infer_ok (g);
  assert_shape (g, "a", "[batch,3,64,64]");
  assert_shape (g, "b", "[1,3,50,60]");
  assert_shape (g, "c", "[batch,3,50,60]");
  assert_shape (g, "d", "[batch,3,64,64]");
  fw_graph_free (g);
}

static void
test_pad_tile_expand (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "1,3,32,32");
  add_input (g, "y", FW_DTYPE_FLOAT, "3,1");
  add_input (g, "s", FW_DTYPE_FLOAT, "batch,seq");
  add_ints (g, "pads", 1, 8, (gint64[]) { 0, 0, 1, 2, 0, 0, 1, 2 });
  add_ints (g, "reps", 1, 2, (gint64[]) { 2, 4 });
  add_ints (g, "shape", 1, 3, (gint64[]) { 2, 1, 4 });
  add_ints (g, "one", 1, 1, (gint64[]) { 1 });
  add_node (g, "Pad", "pad", "x,pads", "a");
  n = add_node (g, "Pad", "pad2", "x", "a2");
  n->opset = 2;
  fw_node_set_attr_ints (n, "pads", 8, (gint64[]) { 0, 0, 2, 2, 0, 0, 2, 2 });
  add_node (g, "Tile", "tile", "y,reps", "b");
  add_node (g, "Expand", "expand", "y,shape", "c");
  add_node (g, "Shape", "sshape", "s", "ss");
  add_node (g, "Concat", "cat", "ss,one", "ss1");
  fw_node_set_attr_int (fw_graph_get_node (g, 5), "axis", 0);
  add_node (g, "Expand", "expand2", "y,ss1", "e");
  infer_ok (g);
  assert_shape (g, "a", "[1,3,34,36]");
  assert_shape (g, "a2", "[1,3,36,36]");
  assert_shape (g, "b", "[6,4]");
  assert_shape (g, "c", "[2,3,4]");
  assert_shape (g, "e", "[batch,3,1]");
  fw_graph_free (g);
}

static void
test_fold (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(FwTensor) seven = fw_tensor_new_int64 (1, (gint64[]) { 1 }, (gint64[]) { 7 });
  g_autoptr(GError) error = NULL;
  FwInferReport report;
  FwNode *n;

  add_ints (g, "shape", 1, 2, (gint64[]) { 2, 3 });
  add_scalar (g, "start", 0);
  add_scalar (g, "limit", 10);
  add_scalar (g, "delta", 2);
  add_scalar (g, "m7", -7);
  add_scalar (g, "two", 2);
  n = add_node (g, "ConstantOfShape", "cos", "shape", "filled");
  fw_node_set_attr_tensor (n, "value", seven);
  add_node (g, "Range", "range", "start,limit,delta", "r");
  add_node (g, "Div", "div", "m7,two", "q");
  add_node (g, "Mod", "mod", "m7,two", "md");
  add_node (g, "Mul", "mul", "r,two", "r2");
  add_node (g, "ReduceProd", "prod", "shape", "p");
  fw_node_set_attr_int (fw_graph_get_node (g, 5), "keepdims", 0);
  n = add_node (g, "Constant", "c", "", "cval");
  fw_node_set_attr_ints (n, "value_ints", 3, (gint64[]) { 4, 5, 6 });
  add_node (g, "Add", "add", "cval,two", "cadd");
  add_node (g, "Less", "less", "r,two", "lt");
  add_node (g, "Where", "where", "lt,r,r2", "w");
  add_output (g, "w");

  fw_infer_report_init (&report);
  g_assert_true (infer (g, NULL, &report, &error));
  g_assert_no_error (error);
  assert_shape (g, "filled", "[2,3]");
  assert_const_ints (g, "filled", 6, (gint64[]) { 7, 7, 7, 7, 7, 7 });
  assert_shape (g, "r", "[5]");
  assert_const_ints (g, "r", 5, (gint64[]) { 0, 2, 4, 6, 8 });
  assert_const_ints (g, "q", 1, (gint64[]) { -3 });
  assert_const_ints (g, "md", 1, (gint64[]) { 1 });
  assert_const_ints (g, "r2", 5, (gint64[]) { 0, 4, 8, 12, 16 });
  assert_const_ints (g, "p", 1, (gint64[]) { 6 });
  assert_shape (g, "p", "[]");
  assert_const_ints (g, "cadd", 3, (gint64[]) { 6, 7, 8 });
  assert_const_ints (g, "w", 5, (gint64[]) { 0, 4, 8, 12, 16 });
  g_assert_cmpint (report.n_folded, ==, 10);
  fw_infer_report_clear (&report);
  fw_graph_free (g);
}

/* Folding stops at the element cap, so large tensors are never read. */
static void
test_fold_cap (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwInferOptions options = { NULL, 16 };
  g_autoptr(GError) error = NULL;

  add_floats (g, "big", "4,8");
  add_floats (g, "small", "2,4");
  add_node (g, "Neg", "neg_big", "big", "a");
  add_node (g, "Neg", "neg_small", "small", "b");
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_shape_infer_graph (g, &options, NULL, &error));
  assert_shape (g, "a", "[4,8]");
  g_assert_null (fw_graph_lookup_value (g, "a")->constant);
  g_assert_nonnull (fw_graph_lookup_value (g, "b")->constant);
  fw_graph_free (g);
}

/* An Identity of a constant is that constant whatever its size (shared, nothing computed): past the cap,
 * the Identity's output is the same tensor, and a Neg of it still is not folded. */
static void
test_fold_identity_past_cap (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwInferOptions options = { NULL, 16 };
  g_autoptr(GError) error = NULL;

  add_floats (g, "big", "4,8");
  add_node (g, "Identity", "id", "big", "a");
  add_node (g, "Neg", "neg", "a", "b");
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_shape_infer_graph (g, &options, NULL, &error));
  assert_shape (g, "a", "[4,8]");
  g_assert_true (fw_graph_lookup_value (g, "a")->constant == fw_graph_lookup_value (g, "big")->constant);
  g_assert_null (fw_graph_lookup_value (g, "b")->constant);
  fw_graph_free (g);
}

static void
test_unknown_op (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(GError) error = NULL;
  const char *in[] = { "x" };
  const char *out[] = { "y" };
  FwInferReport report;

  add_input (g, "x", FW_DTYPE_FLOAT, "2,3");
  g_assert_nonnull (fw_graph_add_node (g, "MyOp", "my.domain", "custom", 1, in, 1, out, &error));
  add_node (g, "Relu", "relu", "y", "z");
  add_node (g, "FooBar", "foo1", "z", "w");
  add_node (g, "FooBar", "foo2", "w", "v");
  add_output (g, "v");
  fw_infer_report_init (&report);
  g_assert_true (infer (g, NULL, &report, &error));
  g_assert_no_error (error);
  assert_shape (g, "y", "?");
  assert_shape (g, "z", "?");
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (report.ops_without_inference, "my.domain:MyOp")), ==, 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (report.ops_without_inference, "FooBar")), ==, 2);
  g_assert_null (g_hash_table_lookup (report.ops_without_inference, "Relu"));
  fw_infer_report_clear (&report);
  fw_graph_free (g);
}

static void
test_broadcast_error (void)
{
  FwGraph *g = fw_graph_new (NULL);
  g_autoptr(GError) error = NULL;

  add_input (g, "x", FW_DTYPE_FLOAT, "2,3");
  add_input (g, "y", FW_DTYPE_FLOAT, "4");
  add_node (g, "Add", "/encoder/add_7", "x,y", "z");
  g_assert_false (infer (g, NULL, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "/encoder/add_7"));
  g_assert_nonnull (strstr (error->message, "Add"));
  g_assert_nonnull (strstr (error->message, "[2,3]"));
  g_assert_nonnull (strstr (error->message, "[4]"));
  fw_graph_free (g);
}

static void
test_bad_attributes (void)
{
  struct { const char *op; const char *attr; gint64 bad; } cases[] = {
    { "Transpose", "perm", 0 },
    { "Cast", "to", 999 },
    { "Concat", "axis", 5 },
    { "Softmax", "axis", -4 },
    { "Gather", "axis", 9 },
    { "Flatten", "axis", 4 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      FwGraph *g = fw_graph_new (NULL);
      g_autoptr(GError) error = NULL;
      FwNode *n;

      add_input (g, "x", FW_DTYPE_FLOAT, "2,3,4");
      add_ints (g, "i", 1, 1, (gint64[]) { 0 });
      n = add_node (g, cases[k].op, "bad_node", strcmp (cases[k].op, "Gather") == 0 ? "x,i" : "x", "y");
      if (strcmp (cases[k].attr, "perm") == 0)
        fw_node_set_attr_ints (n, "perm", 3, (gint64[]) { 0, 0, 1 });
      else
        fw_node_set_attr_int (n, cases[k].attr, cases[k].bad);
      g_assert_false (infer (g, NULL, NULL, &error));
      g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "bad_node"));
      fw_graph_free (g);
    }
  /* Wrong attribute type. */
  {
    FwGraph *g = fw_graph_new (NULL);
    g_autoptr(GError) error = NULL;
    FwNode *n;

    add_input (g, "x", FW_DTYPE_FLOAT, "1,3,8,8");
    n = add_node (g, "MaxPool", "bad_pool", "x", "y");
    fw_node_set_attr_string (n, "kernel_shape", "3x3");
    g_assert_false (infer (g, NULL, NULL, &error));
    g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
    fw_graph_free (g);
  }
}

static void
test_if (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwGraph *then_g, *else_g;
  FwNode *n;

  add_input (g, "cond", FW_DTYPE_BOOL, "");
  add_input (g, "x", FW_DTYPE_FLOAT, "batch,4");
  n = add_node (g, "If", "if", "cond", "y");
  then_g = fw_graph_new (g);
  else_g = fw_graph_new (g);
  add_node (then_g, "Relu", "t_relu", "x", "ty");
  add_output (then_g, "ty");
  add_node (else_g, "Neg", "e_neg", "x", "ey");
  add_output (else_g, "ey");
  fw_node_set_attr_graph (n, "then_branch", then_g);
  fw_node_set_attr_graph (n, "else_branch", else_g);
  add_output (g, "y");
  infer_ok (g);
  assert_shape (g, "y", "[batch,4]");
  assert_dtype (g, "y", FW_DTYPE_FLOAT);
  fw_graph_free (g);
}

static void
test_topk_reduce_gather (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwNode *n;

  add_input (g, "x", FW_DTYPE_FLOAT, "batch,10,20");
  add_ints (g, "k", 1, 1, (gint64[]) { 5 });
  add_ints (g, "axes", 1, 1, (gint64[]) { 1 });
  add_ints (g, "idx", 1, 2, (gint64[]) { 0, 1 });
  add_node (g, "TopK", "topk", "x,k", "vals,inds");
  add_node (g, "ReduceSum", "rs", "x,axes", "rsum");
  n = add_node (g, "ReduceMean", "rm", "x", "rmean");
  n->opset = 13;
  fw_node_set_attr_ints (n, "axes", 1, (gint64[]) { -1 });
  fw_node_set_attr_int (n, "keepdims", 0);
  n = add_node (g, "ArgMax", "am", "x", "amax");
  fw_node_set_attr_int (n, "axis", 2);
  n = add_node (g, "Gather", "gather", "x,idx", "gat");
  fw_node_set_attr_int (n, "axis", 1);
  add_node (g, "NonZero", "nz", "x", "nzo");
  n = add_node (g, "Einsum", "ein", "x,x", "eo");
  fw_node_set_attr_string (n, "equation", "bij,bkj->bik");
  infer_ok (g);
  assert_shape (g, "vals", "[batch,10,5]");
  assert_dtype (g, "inds", FW_DTYPE_INT64);
  assert_shape (g, "rsum", "[batch,1,20]");
  assert_shape (g, "rmean", "[batch,10]");
  assert_shape (g, "amax", "[batch,10,1]");
  assert_shape (g, "gat", "[batch,2,20]");
  assert_shape (g, "nzo", "[3,?]");
  assert_shape (g, "eo", "[batch,10,10]");
  fw_graph_free (g);
}

static void
test_value_info_refined (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwValue *y;

  add_input (g, "x", FW_DTYPE_FLOAT, "?,3");
  add_node (g, "Relu", "relu", "x", "y");
  y = fw_graph_lookup_value (g, "y");
  fw_value_set_type (y, FW_DTYPE_FLOAT, 2, (FwDim[]) { FW_DIM_STATIC (5), FW_DIM_STATIC (7) });
  y->has_value_info = TRUE;
  infer_ok (g);
  /* The declared 5 fills what inference could not know; the inferred 3 wins over the declared 7. */
  assert_shape (g, "y", "[5,3]");
  fw_graph_free (g);
}

static void
test_chain_100k (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwInferReport report;
  g_autoptr(GError) error = NULL;
  char in[32], out[32];
  guint n_nodes = 100000;

  add_input (g, "v0", FW_DTYPE_FLOAT, "64");
  add_floats (g, "bias", "64");
  for (guint i = 0; i < n_nodes; i++)
    {
      const char *ins[2] = { in, "bias" };
      const char *outs[1] = { out };

      g_snprintf (in, sizeof in, "v%u", i);
      g_snprintf (out, sizeof out, "v%u", i + 1);
      g_assert_nonnull (fw_graph_add_node (g, i % 2 ? "Relu" : "Add", "", NULL, i % 2 ? 1 : 2, ins, 1, outs,
                                           &error));
    }
  g_snprintf (out, sizeof out, "v%u", n_nodes);
  add_output (g, out);
  fw_infer_report_init (&report);
  g_assert_true (infer (g, NULL, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (report.n_nodes, ==, n_nodes);
  g_assert_cmpuint (report.n_static_values, ==, n_nodes + 1);
  assert_shape (g, out, "[64]");
  fw_infer_report_clear (&report);
  fw_graph_free (g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/shape/elementwise/broadcast", test_elementwise_broadcast);
  g_test_add_func ("/core/shape/elementwise/symbolic", test_elementwise_symbolic);
  g_test_add_func ("/core/shape/bindings", test_bindings);
  g_test_add_func ("/core/shape/matmul/batched", test_matmul_batched);
  g_test_add_func ("/core/shape/transformer/block", test_transformer_block);
  g_test_add_func ("/core/shape/reshape/minus-one", test_reshape_minus_one);
  g_test_add_func ("/core/shape/conv/block", test_conv_block);
  g_test_add_func ("/core/shape/conv/channel-mismatch", test_conv_channel_mismatch);
  g_test_add_func ("/core/shape/split", test_split);
  g_test_add_func ("/core/shape/slice", test_slice);
  g_test_add_func ("/core/shape/squeeze-unsqueeze", test_squeeze_unsqueeze);
  g_test_add_func ("/core/shape/resize", test_resize);
  g_test_add_func ("/core/shape/pad-tile-expand", test_pad_tile_expand);
  g_test_add_func ("/core/shape/fold/basic", test_fold);
  g_test_add_func ("/core/shape/fold/cap", test_fold_cap);
  g_test_add_func ("/core/shape/fold/identity-past-cap", test_fold_identity_past_cap);
  g_test_add_func ("/core/shape/unknown-op", test_unknown_op);
  g_test_add_func ("/core/shape/error/broadcast", test_broadcast_error);
  g_test_add_func ("/core/shape/error/attributes", test_bad_attributes);
  g_test_add_func ("/core/shape/control/if", test_if);
  g_test_add_func ("/core/shape/misc/topk-reduce-gather", test_topk_reduce_gather);
  g_test_add_func ("/core/shape/value-info", test_value_info_refined);
  g_test_add_func ("/core/shape/chain-100k", test_chain_100k);
  return g_test_run ();
}
