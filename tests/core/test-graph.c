/* The graph IR: building, linking, topological order, scopes, subgraph captures, dims and tensors. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"

static void
test_scope (void)
{
  static const struct { const char *name, *scope; } cases[] = {
    { "/blocks.3/mlp/fc1/MatMul", "blocks.3/mlp/fc1" },
    { "/encoder/layers.0/self_attn/MatMul_1", "encoder/layers.0/self_attn" },
    { "/Relu", "" },
    { "Relu_12", "" },
    { "", "" },
    { "a/b", "a" },
    { "//x//y/Op", "x//y" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *scope = fw_scope_from_node_name (cases[i].name);
      g_assert_cmpstr (scope, ==, cases[i].scope);
    }
}

static FwGraph *
diamond (gboolean reversed)
{
  FwGraph *g = fw_graph_new (NULL);
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  const char *a_in[1] = { "x" }, *a_out[1] = { "a" };
  const char *b_in[1] = { "a" }, *b_out[1] = { "b" };
  const char *c_in[1] = { "a" }, *c_out[1] = { "c" };
  const char *d_in[2] = { "b", "c" }, *d_out[1] = { "d" };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  if (!reversed)
    {
      fw_graph_add_node (g, "Relu", "", "/A", 1, a_in, 1, a_out, NULL);
      fw_graph_add_node (g, "Exp", "", "/B", 1, b_in, 1, b_out, NULL);
      fw_graph_add_node (g, "Neg", "", "/C", 1, c_in, 1, c_out, NULL);
      fw_graph_add_node (g, "Add", "", "/D", 2, d_in, 1, d_out, NULL);
    }
  else
    {
      fw_graph_add_node (g, "Add", "", "/D", 2, d_in, 1, d_out, NULL);
      fw_graph_add_node (g, "Neg", "", "/C", 1, c_in, 1, c_out, NULL);
      fw_graph_add_node (g, "Exp", "", "/B", 1, b_in, 1, b_out, NULL);
      fw_graph_add_node (g, "Relu", "", "/A", 1, a_in, 1, a_out, NULL);
    }
  fw_graph_add_output (g, "d", NULL);
  return g;
}

static void
test_topo_stable (void)
{
  FwGraph *g = diamond (FALSE);
  g_autoptr(GError) error = NULL;
  guint n;
  FwNode **order;

  g_assert_true (fw_graph_link (g, &error));
  order = fw_graph_get_order (g, &n);
  g_assert_cmpuint (n, ==, 4);
  /* Already topological: the file order is kept exactly. */
  for (guint i = 0; i < n; i++)
    g_assert_true (order[i] == fw_graph_get_node (g, i));
  fw_graph_free (g);
}

static void
test_topo_sorts (void)
{
  FwGraph *g = diamond (TRUE);
  g_autoptr(GError) error = NULL;
  guint n;
  FwNode **order;

  g_assert_true (fw_graph_link (g, &error));
  order = fw_graph_get_order (g, &n);
  g_assert_cmpstr (fw_node_get_name (order[0]), ==, "/A");
  g_assert_cmpstr (fw_node_get_name (order[3]), ==, "/D");
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < order[i]->n_inputs; k++)
      if (order[i]->inputs[k]->producer)
        g_assert_cmpuint (order[i]->inputs[k]->producer->topo_index, <, order[i]->topo_index);
  fw_graph_free (g);
}

static void
test_links (void)
{
  FwGraph *g = diamond (FALSE);
  FwValue *a;

  g_assert_true (fw_graph_link (g, NULL));
  a = fw_graph_lookup_value (g, "a");
  g_assert_cmpstr (fw_node_get_name (a->producer), ==, "/A");
  g_assert_cmpuint (a->n_uses, ==, 2);
  g_assert_cmpstr (fw_node_get_name (a->uses[0].node), ==, "/B");
  g_assert_cmpstr (fw_node_get_name (a->uses[1].node), ==, "/C");
  g_assert_cmpuint (fw_graph_lookup_value (g, "d")->n_uses, ==, 0);
  g_assert_true (fw_graph_lookup_value (g, "d")->is_output);
  g_assert_cmpstr (fw_node_get_scope (fw_graph_get_node (g, 0)), ==, "");
  fw_graph_free (g);
}

/* Relu chains long enough to overflow a recursive sort. */
static void
test_long_chain_links (void)
{
  g_autoptr(FwModel) model = fw_test_long_chain (200000);
  FwGraph *g = fw_model_get_graph (model);
  guint n;
  FwNode **order = fw_graph_get_order (g, &n);

  g_assert_cmpuint (n, ==, 200000);
  g_assert_cmpstr (fw_node_get_scope (order[n - 1]), ==, "blocks.1999");
}

static void
test_subgraph_capture (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwGraph *then_g, *else_g;
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  FwDim none[1];
  const char *w_in[1] = { "x" }, *w_out[1] = { "outer" };
  const char *if_in[1] = { "cond" }, *if_out[1] = { "y" };
  const char *t_in[2] = { "outer", "x" }, *t_out[1] = { "t" };
  const char *e_in[1] = { "outer" }, *e_out[1] = { "e" };
  FwNode *relu, *iff;
  FwValue *outer;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL);
  fw_graph_add_input (g, "cond", FW_DTYPE_BOOL, 0, none, NULL);
  /* The If comes first in the file, the value it captures is produced after it. */
  iff = fw_graph_add_node (g, "If", "", "/If", 1, if_in, 1, if_out, NULL);
  relu = fw_graph_add_node (g, "Relu", "", "/Relu", 1, w_in, 1, w_out, NULL);
  then_g = fw_graph_new (g);
  fw_graph_add_node (then_g, "Add", "", "/then/Add", 2, t_in, 1, t_out, NULL);
  fw_graph_add_output (then_g, "t", NULL);
  else_g = fw_graph_new (g);
  fw_graph_add_node (else_g, "Neg", "", "/else/Neg", 1, e_in, 1, e_out, NULL);
  fw_graph_add_output (else_g, "e", NULL);
  fw_node_set_attr_graph (iff, "then_branch", then_g);
  fw_node_set_attr_graph (iff, "else_branch", else_g);
  fw_graph_add_output (g, "y", NULL);

  g_assert_true (fw_graph_link (g, NULL));
  outer = fw_graph_lookup_value (g, "outer");
  g_assert_nonnull (iff->implicit_inputs);
  g_assert_true (g_ptr_array_find (iff->implicit_inputs, outer, NULL));
  /* The capture orders the If after the Relu. */
  g_assert_cmpuint (relu->topo_index, <, iff->topo_index);
  g_assert_true (fw_graph_get_node (then_g, 0)->inputs[0] == outer);
  g_assert_cmpuint (fw_graph_count_nodes_deep (g), ==, 4);
  fw_graph_free (g);
}

static void
test_dims_and_format (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwDim dims[3] = { { -1, "batch" }, FW_DIM_STATIC (128), FW_DIM_UNKNOWN };
  FwValue *v = fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 3, dims, NULL);
  g_autofree char *s1 = fw_value_format_shape (v);
  g_autofree char *s2 = NULL;
  g_autofree char *s3 = NULL;

  g_assert_cmpstr (s1, ==, "[batch,128,?]");
  g_assert_false (fw_value_is_static (v));
  g_assert_cmpint (fw_value_get_n_elements (v), ==, -1);
  dims[0] = FW_DIM_STATIC (2);
  dims[2] = FW_DIM_STATIC (3);
  fw_value_set_type (v, FW_DTYPE_FLOAT16, 3, dims);
  s2 = fw_value_format_shape (v);
  g_assert_cmpstr (s2, ==, "[2,128,3]");
  g_assert_cmpint (fw_value_get_n_elements (v), ==, 768);
  fw_value_set_type (v, FW_DTYPE_FLOAT, FW_RANK_UNKNOWN, NULL);
  s3 = fw_value_format_shape (v);
  g_assert_cmpstr (s3, ==, "?");
  fw_graph_free (g);
}

static void
test_dtype (void)
{
  FwDType dt;
  gint64 bytes;

  g_assert_cmpuint (fw_dtype_bits (FW_DTYPE_FLOAT16), ==, 16);
  g_assert_cmpstr (fw_dtype_name (FW_DTYPE_FLOAT), ==, "float32");
  g_assert_true (fw_dtype_from_name ("int64", &dt) && dt == FW_DTYPE_INT64);
  g_assert_false (fw_dtype_from_name ("int128", &dt));
  g_assert_true (fw_dtype_bytes_for (FW_DTYPE_INT4, 3, &bytes) && bytes == 2);
  g_assert_false (fw_dtype_bytes_for (FW_DTYPE_STRING, 3, &bytes));
  g_assert_false (fw_dtype_is_valid (0));
  g_assert_false (fw_dtype_is_valid (99));
}

static void
test_tensor (void)
{
  gint64 dims[2] = { 2, 3 };
  gint64 values[6] = { 1, -2, 3, 4, 5, 6 };
  g_autoptr(FwTensor) t = fw_tensor_new_int64 (2, dims, values);
  gint64 v, n;
  double d;
  gint64 huge[3] = { G_GINT64_CONSTANT (1) << 30, G_GINT64_CONSTANT (1) << 30, 0 };
  gint64 over[2] = { G_GINT64_CONSTANT (1) << 30, G_GINT64_CONSTANT (1) << 30 };

  g_assert_cmpint (t->n_elements, ==, 6);
  g_assert_true (fw_tensor_get_int64 (t, 1, &v) && v == -2);
  g_assert_true (fw_tensor_get_double (t, 5, &d) && d == 6.0);
  g_assert_false (fw_tensor_get_int64 (t, 6, &v));
  /* A zero anywhere makes an otherwise overflowing product legal. */
  g_assert_true (fw_dims_product (3, huge, &n) && n == 0);
  g_assert_false (fw_dims_product (2, over, &n));
}

static void
test_half (void)
{
  static const float values[] = { 0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    g_assert_cmpfloat (fw_half_to_float (fw_float_to_half (values[i])), ==, values[i]);
  g_assert_cmpuint (fw_float_to_half (1e6f), ==, 0x7c00);
  g_assert_cmpuint (fw_float_to_half (1.0f), ==, 0x3c00);
}

static void
test_attrs (void)
{
  FwGraph *g = fw_graph_new (NULL);
  const char *in[1] = { "x" }, *out[1] = { "y" };
  FwNode *n = fw_graph_add_node (g, "Conv", "", "c", 1, in, 1, out, NULL);
  gint64 pads[4] = { 1, 1, 1, 1 };
  guint len;

  fw_node_set_attr_int (n, "group", 2);
  fw_node_set_attr_ints (n, "pads", 4, pads);
  fw_node_set_attr_string (n, "auto_pad", "NOTSET");
  fw_node_set_attr_float (n, "alpha", 0.5f);
  fw_node_set_attr_int (n, "group", 4);  /* replaces */
  g_assert_cmpuint (n->n_attrs, ==, 4);
  g_assert_cmpint (fw_node_get_attr_int (n, "group", 1), ==, 4);
  g_assert_cmpint (fw_node_get_attr_int (n, "missing", 7), ==, 7);
  g_assert_cmpint (fw_node_get_attr_int (n, "pads", 7), ==, 7);  /* wrong type gives the default */
  g_assert_cmpint (fw_node_get_attr_ints (n, "pads", &len)[3], ==, 1);
  g_assert_cmpuint (len, ==, 4);
  g_assert_cmpstr (fw_node_get_attr_string (n, "auto_pad"), ==, "NOTSET");
  g_assert_cmpfloat (fw_node_get_attr_float (n, "alpha", 0), ==, 0.5f);
  g_assert_null (fw_node_get_attr_ints (n, "strides", &len));
  fw_graph_free (g);
}

/* The public reading accessors (the views use them) see what the structs hold. */
static void
test_read_accessors (void)
{
  FwGraph *g = fw_graph_new (NULL);
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  const char *in[3] = { "x", "", "w" }, *out[2] = { "y", "" };
  float wdata[4] = { 1, 2, 3, 4 };
  gint64 wdims[1] = { 4 };
  FwTensor *w = fw_tensor_new_float (1, wdims, wdata);
  float scales[2] = { 0.5f, 2 };
  gint64 axes[3] = { 0, 1, 2 };
  FwNode *n;
  const FwAttr *a;
  gsize slen;
  guint len;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "w", w, NULL));
  fw_tensor_unref (w);
  n = fw_graph_add_node (g, "Custom", "", "n", 3, in, 2, out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  fw_node_set_attr_floats (n, "scales", 2, scales);
  fw_node_set_attr_ints (n, "axes", 3, axes);
  fw_node_set_attr_string (n, "mode", "linear");

  g_assert_cmpuint (fw_node_get_n_inputs (n), ==, 3);
  g_assert_true (fw_node_get_input (n, 0) == fw_graph_lookup_value (g, "x"));
  g_assert_null (fw_node_get_input (n, 1));
  g_assert_true (fw_value_is_initializer (fw_node_get_input (n, 2)));
  g_assert_false (fw_value_is_initializer (fw_node_get_input (n, 0)));
  g_assert_nonnull (fw_value_get_constant (fw_node_get_input (n, 2)));
  g_assert_cmpint (fw_value_get_constant (fw_node_get_input (n, 2))->n_elements, ==, 4);
  g_assert_null (fw_value_get_constant (fw_node_get_input (n, 0)));
  g_assert_cmpuint (fw_node_get_n_outputs (n), ==, 2);
  g_assert_cmpstr (fw_value_get_name (fw_node_get_output (n, 0)), ==, "y");
  g_assert_null (fw_node_get_output (n, 1));

  g_assert_cmpuint (fw_node_get_n_attrs (n), ==, 3);
  a = fw_node_get_attr_nth (n, 0);
  g_assert_cmpstr (fw_attr_get_name (a), ==, "scales");
  g_assert_cmpint (fw_attr_get_attr_type (a), ==, FW_ATTR_FLOATS);
  g_assert_cmpfloat (fw_attr_get_floats (a, &len)[1], ==, 2);
  g_assert_cmpuint (len, ==, 2);
  g_assert_cmpuint (fw_attr_get_n_values (a), ==, 2);
  a = fw_node_get_attr_nth (n, 1);
  g_assert_cmpint (fw_attr_get_ints (a, &len)[2], ==, 2);
  g_assert_cmpuint (len, ==, 3);
  a = fw_node_get_attr_nth (n, 2);
  g_assert_cmpint (fw_attr_get_attr_type (a), ==, FW_ATTR_STRING);
  g_assert_cmpstr (fw_attr_get_string (a, &slen), ==, "linear");
  g_assert_cmpuint (slen, ==, 6);
  a = fw_node_set_attr_int (n, "group", 3);
  g_assert_cmpint (fw_attr_get_int (a), ==, 3);
  a = fw_node_set_attr_float (n, "alpha", 0.25f);
  g_assert_cmpfloat (fw_attr_get_float (a), ==, 0.25f);
  fw_graph_free (g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/graph/scope", test_scope);
  g_test_add_func ("/core/graph/topo/stable", test_topo_stable);
  g_test_add_func ("/core/graph/topo/sorts", test_topo_sorts);
  g_test_add_func ("/core/graph/topo/long-chain", test_long_chain_links);
  g_test_add_func ("/core/graph/links", test_links);
  g_test_add_func ("/core/graph/subgraph-capture", test_subgraph_capture);
  g_test_add_func ("/core/graph/dims", test_dims_and_format);
  g_test_add_func ("/core/graph/dtype", test_dtype);
  g_test_add_func ("/core/graph/tensor", test_tensor);
  g_test_add_func ("/core/graph/half", test_half);
  g_test_add_func ("/core/graph/attrs", test_attrs);
  g_test_add_func ("/core/graph/read-accessors", test_read_accessors);
  return g_test_run ();
}
