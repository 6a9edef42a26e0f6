#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fw-test-models.h"
#include "report/fw-plan-report.h"

FwModel *
fw_test_model_new (gint64 opset)
{
  FwModel *model = fw_model_new ();

  fw_model_set_ir_version (model, 8);
  fw_model_set_opset_version (model, "", opset);
  model->producer_name = "fusion-workbench-tests";
  return model;
}

static FwNode *
add (FwGraph *g, const char *op, const char *name, const char *a, const char *b, const char *out)
{
  const char *ins[2] = { a, b };
  const char *outs[1] = { out };
  FwNode *node = fw_graph_add_node (g, op, "", name, b ? 2 : 1, ins, 1, outs, NULL);
  g_assert_nonnull (node);
  return node;
}

FwNode *
fw_test_add_node (FwGraph *g, const char *op, const char *name, const char *a, const char *b, const char *out)
{
  return add (g, op, name, a, b, out);
}

FwNode *
fw_test_add_node3 (FwGraph *g, const char *op, const char *name, const char *out, const char *a, const char *b,
                   const char *c)
{
  const char *ins[3] = { a, b, c };
  const char *outs[1] = { out };
  FwNode *node = fw_graph_add_node (g, op, "", name, c ? 3 : b ? 2 : 1, ins, 1, outs, NULL);

  g_assert_nonnull (node);
  return node;
}

void
fw_test_add_float_input (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  FwDim d[FW_MAX_RANK];

  g_assert_cmpuint (rank, <=, FW_MAX_RANK);
  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, FW_DTYPE_FLOAT, rank, d, NULL));
}

FwPlan *
fw_test_plan_with (FwModel *model, FwStrategy strategy)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  options.strategy = strategy;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

const FwRefusal *
fw_test_refusal_of (const FwPlan *plan, FwReasonCode code, const char *refused)
{
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      if (r->code == code && r->refused != NULL && strcmp (fw_node_get_name (r->refused), refused) == 0)
        return r;
    }
  return NULL;
}

static void
add_weight (FwGraph *g, GRand *rand, const char *name, guint rank, const gint64 *dims, float scale)
{
  gint64 n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  values = g_new (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = (float) (g_rand_double_range (rand, -1.0, 1.0) * scale);
  t = fw_tensor_new_float (rank, dims, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

void
fw_test_add_random_weight (FwGraph *g, GRand *rand, const char *name, guint rank, const gint64 *dims, float scale)
{
  add_weight (g, rand, name, rank, dims, scale);
}

static void
add_scalar (FwGraph *g, const char *name, float v)
{
  g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &v);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
add_ints (FwGraph *g, const char *name, guint n, const gint64 *v)
{
  gint64 dims[1] = { n };
  g_autoptr(FwTensor) t = fw_tensor_new_int64 (1, dims, v);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
finish (FwModel *model)
{
  g_autoptr(GError) error = NULL;

  if (!fw_graph_link (fw_model_get_graph (model), &error))
    g_error ("test model does not link: %s", error->message);
}

FwModel *
fw_test_elementwise_chain (guint n_ops, gint64 n_elems, gboolean symbolic_batch)
{
  static const char *unary[] = { "Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Sqrt", "Erf" };
  static const char *binary[] = { "Add", "Mul", "Sub", "Div" };
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { symbolic_batch ? (FwDim) { -1, "batch" } : FW_DIM_STATIC (2), FW_DIM_STATIC (n_elems) };
  g_autofree char *prev = g_strdup ("x");

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL));
  add_scalar (g, "c", 0.5f);
  for (guint i = 0; i < n_ops; i++)
    {
      g_autofree char *out = i + 1 == n_ops ? g_strdup ("y") : g_strdup_printf ("t%u", i);
      g_autofree char *name = g_strdup_printf ("/chain/op%u", i);
      if (i % 2 == 0)
        add (g, binary[(i / 2) % G_N_ELEMENTS (binary)], name, prev, "c", out);
      else
        add (g, unary[(i / 2) % G_N_ELEMENTS (unary)], name, prev, NULL, out);
      g_free (prev);
      prev = g_strdup (out);
    }
  fw_graph_add_output (g, "y", NULL);
  finish (model);
  return model;
}

static const char *
keep (GPtrArray *names, char *name)
{
  g_ptr_array_add (names, name);
  return name;
}

/* One encoder layer reading x and writing y; with a prefix, every name it makes starts with it, so layers
 * can be stacked on shared weights. */
static void
add_encoder_layer (FwGraph *g, const char *prefix, const char *x, const char *y)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  gint64 axes_last[1] = { -1 };
  FwNode *n;
#define V(s) (prefix[0] ? keep (names, g_strconcat (prefix, "/", (s), NULL)) : (s))
#define N(s) (prefix[0] ? keep (names, g_strconcat (prefix, (s), NULL)) : (s))

  /* LayerNorm, decomposed as exporters emit it. */
  n = add (g, "ReduceMean", N ("/ln/ReduceMean"), x, NULL, V ("ln_mean"));
  fw_node_set_attr_ints (n, "axes", 1, axes_last);
  add (g, "Sub", N ("/ln/Sub"), x, V ("ln_mean"), V ("ln_centered"));
  add (g, "Pow", N ("/ln/Pow"), V ("ln_centered"), "two", V ("ln_sq"));
  n = add (g, "ReduceMean", N ("/ln/ReduceMean_1"), V ("ln_sq"), NULL, V ("ln_var"));
  fw_node_set_attr_ints (n, "axes", 1, axes_last);
  add (g, "Add", N ("/ln/Add"), V ("ln_var"), "eps", V ("ln_var_eps"));
  add (g, "Sqrt", N ("/ln/Sqrt"), V ("ln_var_eps"), NULL, V ("ln_std"));
  add (g, "Div", N ("/ln/Div"), V ("ln_centered"), V ("ln_std"), V ("ln_norm"));
  add (g, "Mul", N ("/ln/Mul"), V ("ln_norm"), "ln_g", V ("ln_scaled"));
  add (g, "Add", N ("/ln/Add_1"), V ("ln_scaled"), "ln_b", V ("h"));

  /* Attention: the head split goes through a shape subgraph. */
  add (g, "Shape", N ("/attn/Shape"), V ("h"), NULL, V ("h_shape"));
  n = add (g, "Gather", N ("/attn/Gather"), V ("h_shape"), "idx0", V ("dim_b"));
  fw_node_set_attr_int (n, "axis", 0);
  n = add (g, "Gather", N ("/attn/Gather_1"), V ("h_shape"), "idx1", V ("dim_s"));
  fw_node_set_attr_int (n, "axis", 0);
  {
    const char *ins[3] = { V ("dim_b"), V ("dim_s"), "tail" };
    const char *outs[1] = { V ("split_shape") };
    n = fw_graph_add_node (g, "Concat", "", N ("/attn/Concat"), 3, ins, 1, outs, NULL);
    fw_node_set_attr_int (n, "axis", 0);
  }
  {
    const char *ins[2] = { V ("dim_b"), V ("dim_s") };
    const char *outs[1] = { V ("bs_shape") };
    n = fw_graph_add_node (g, "Concat", "", N ("/attn/Concat_1"), 2, ins, 1, outs, NULL);
    fw_node_set_attr_int (n, "axis", 0);
    const char *ins2[2] = { V ("bs_shape"), "merged" };
    const char *outs2[1] = { V ("merge_shape") };
    n = fw_graph_add_node (g, "Concat", "", N ("/attn/Concat_2"), 2, ins2, 1, outs2, NULL);
    fw_node_set_attr_int (n, "axis", 0);
  }
  {
    static const gint64 perm_q[4] = { 0, 2, 1, 3 };
    static const gint64 perm_k[4] = { 0, 2, 3, 1 };
    const char *proj[3] = { "q", "k", "v" };
    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *w = g_strdup_printf ("w%s", proj[i]);
        g_autofree char *mm_ = g_strdup_printf ("%s_proj", proj[i]);
        g_autofree char *rs_ = g_strdup_printf ("%s_heads", proj[i]);
        g_autofree char *tr_ = g_strdup_printf ("%s_t", proj[i]);
        g_autofree char *n1_ = g_strdup_printf ("/attn/%s/MatMul", proj[i]);
        g_autofree char *n2_ = g_strdup_printf ("/attn/%s/Reshape", proj[i]);
        g_autofree char *n3_ = g_strdup_printf ("/attn/%s/Transpose", proj[i]);
        const char *mm = V (mm_), *rs = V (rs_), *tr = V (tr_);
        add (g, "MatMul", N (n1_), V ("h"), w, mm);
        add (g, "Reshape", N (n2_), mm, V ("split_shape"), rs);
        n = add (g, "Transpose", N (n3_), rs, NULL, tr);
        fw_node_set_attr_ints (n, "perm", 4, i == 1 ? perm_k : perm_q);
      }
    add (g, "MatMul", N ("/attn/MatMul"), V ("q_t"), V ("k_t"), V ("scores"));
    add (g, "Div", N ("/attn/Div"), V ("scores"), "scale", V ("scores_scaled"));
    add (g, "Add", N ("/attn/Add"), V ("scores_scaled"), "mask", V ("scores_masked"));
    n = add (g, "Softmax", N ("/attn/Softmax"), V ("scores_masked"), NULL, V ("probs"));
    fw_node_set_attr_int (n, "axis", -1);
    add (g, "MatMul", N ("/attn/MatMul_1"), V ("probs"), V ("v_t"), V ("ctx"));
    n = add (g, "Transpose", N ("/attn/Transpose"), V ("ctx"), NULL, V ("ctx_t"));
    fw_node_set_attr_ints (n, "perm", 4, perm_q);
    add (g, "Reshape", N ("/attn/Reshape"), V ("ctx_t"), V ("merge_shape"), V ("ctx_merged"));
    add (g, "MatMul", N ("/attn/out/MatMul"), V ("ctx_merged"), "wo", V ("attn_out"));
    add (g, "Add", N ("/attn/residual"), V ("attn_out"), x, V ("r1"));
  }

  /* Feed-forward with erf-GELU: Div → Erf → Add → Mul → Mul. */
  add (g, "MatMul", N ("/ffn/fc1/MatMul"), V ("r1"), "w1", V ("f1"));
  add (g, "Add", N ("/ffn/fc1/Add"), V ("f1"), "b1", V ("f1b"));
  add (g, "Div", N ("/ffn/gelu/Div"), V ("f1b"), "sqrt2", V ("g_div"));
  add (g, "Erf", N ("/ffn/gelu/Erf"), V ("g_div"), NULL, V ("g_erf"));
  add (g, "Add", N ("/ffn/gelu/Add"), V ("g_erf"), "one", V ("g_add"));
  add (g, "Mul", N ("/ffn/gelu/Mul"), V ("f1b"), V ("g_add"), V ("g_mul"));
  add (g, "Mul", N ("/ffn/gelu/Mul_1"), V ("g_mul"), "half", V ("gelu"));
  add (g, "MatMul", N ("/ffn/fc2/MatMul"), V ("gelu"), "w2", V ("f2"));
  add (g, "Add", N ("/ffn/fc2/Add"), V ("f2"), "b2", V ("f2b"));
  add (g, "Add", N ("/ffn/residual"), V ("f2b"), V ("r1"), y);
#undef N
#undef V
}

FwModel *
fw_test_transformer_block (gint64 seq, gint64 hidden, gint64 heads, gboolean symbolic_batch)
{
  return fw_test_transformer_stack (1, seq, hidden, heads, symbolic_batch);
}

FwModel *
fw_test_transformer_stack (guint n_layers, gint64 seq, gint64 hidden, gint64 heads, gboolean symbolic_batch)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  FwDim in_dims[3] = { symbolic_batch ? (FwDim) { -1, "batch" } : FW_DIM_STATIC (2), FW_DIM_STATIC (seq),
                       FW_DIM_STATIC (hidden) };
  FwDim mask_dims[4] = { in_dims[0], FW_DIM_STATIC (1), FW_DIM_STATIC (1), FW_DIM_STATIC (seq) };
  gint64 w_dims[2] = { hidden, hidden };
  gint64 w1_dims[2] = { hidden, 4 * hidden };
  gint64 w2_dims[2] = { 4 * hidden, hidden };
  gint64 b_dims[1] = { hidden };
  gint64 b1_dims[1] = { 4 * hidden };
  gint64 head_dim = hidden / heads;
  gint64 idx0[1] = { 0 }, idx1[1] = { 1 }, tail[2] = { heads, head_dim }, merged[1] = { hidden };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 3, in_dims, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "mask", FW_DTYPE_FLOAT, 4, mask_dims, NULL));
  for (guint i = 0; i < 4; i++)
    {
      const char *names[4] = { "wq", "wk", "wv", "wo" };
      add_weight (g, rand, names[i], 2, w_dims, 0.05f);
    }
  add_weight (g, rand, "w1", 2, w1_dims, 0.05f);
  add_weight (g, rand, "w2", 2, w2_dims, 0.05f);
  add_weight (g, rand, "b1", 1, b1_dims, 0.1f);
  add_weight (g, rand, "b2", 1, b_dims, 0.1f);
  add_weight (g, rand, "ln_g", 1, b_dims, 1.0f);
  add_weight (g, rand, "ln_b", 1, b_dims, 0.1f);
  add_scalar (g, "two", 2.0f);
  add_scalar (g, "eps", 1e-5f);
  add_scalar (g, "scale", sqrtf ((float) head_dim));
  add_scalar (g, "sqrt2", 1.4142135f);
  add_scalar (g, "one", 1.0f);
  add_scalar (g, "half", 0.5f);
  add_ints (g, "idx0", 1, idx0);
  add_ints (g, "idx1", 1, idx1);
  add_ints (g, "tail", 2, tail);
  add_ints (g, "merged", 1, merged);

  if (n_layers <= 1)
    add_encoder_layer (g, "", "x", "y");
  else
    for (guint i = 0; i < n_layers; i++)
      {
        g_autofree char *prefix = g_strdup_printf ("/layers.%u", i);
        g_autofree char *in = i == 0 ? g_strdup ("x") : g_strdup_printf ("y%u", i - 1);
        g_autofree char *out = i + 1 == n_layers ? g_strdup ("y") : g_strdup_printf ("y%u", i);
        add_encoder_layer (g, prefix, in, out);
      }
  fw_graph_add_output (g, "y", NULL);
  finish (model);
  return model;
}

static void
add_conv (FwGraph *g, GRand *rand, const char *prefix, const char *in, const char *out, gint64 cin, gint64 cout,
          gint64 k, gint64 stride)
{
  g_autofree char *w = g_strdup_printf ("%s.weight", prefix);
  g_autofree char *name = g_strdup_printf ("/%s/Conv", prefix);
  gint64 dims[4] = { cout, cin, k, k };
  gint64 pads[4] = { k / 2, k / 2, k / 2, k / 2 };
  gint64 strides[2] = { stride, stride };
  gint64 kernel[2] = { k, k };
  FwNode *n;

  add_weight (g, rand, w, 4, dims, 0.1f);
  n = add (g, "Conv", name, in, w, out);
  fw_node_set_attr_ints (n, "kernel_shape", 2, kernel);
  fw_node_set_attr_ints (n, "pads", 4, pads);
  fw_node_set_attr_ints (n, "strides", 2, strides);
}

static void
add_bn (FwGraph *g, GRand *rand, const char *prefix, const char *in, const char *out, gint64 c)
{
  const char *suffix[4] = { "scale", "bias", "mean", "var" };
  char *names[4] = { NULL };
  g_autofree char *node_name = g_strdup_printf ("/%s/BatchNormalization", prefix);
  gint64 dims[1] = { c };
  const char *ins[5];
  const char *outs[1] = { out };
  FwNode *n;

  ins[0] = in;
  for (guint i = 0; i < 4; i++)
    {
      names[i] = g_strdup_printf ("%s.%s", prefix, suffix[i]);
      add_weight (g, rand, names[i], 1, dims, i == 3 ? 0.5f : 0.2f);
      ins[i + 1] = names[i];
    }
  /* Variances must be positive. */
  {
    FwValue *var = fw_graph_lookup_value (g, names[3]);
    gsize size;
    float *v = (float *) fw_tensor_get_data (var->constant, &size);
    for (gsize i = 0; i < size / 4; i++)
      v[i] = fabsf (v[i]) + 0.5f;
  }
  n = fw_graph_add_node (g, "BatchNormalization", "", node_name, 5, ins, 1, outs, NULL);
  fw_node_set_attr_float (n, "epsilon", 1e-5f);
  for (guint i = 0; i < 4; i++)
    g_free (names[i]);
}

FwModel *
fw_test_conv_block (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  FwDim in_dims[4] = { FW_DIM_STATIC (1), FW_DIM_STATIC (3), FW_DIM_STATIC (32), FW_DIM_STATIC (32) };
  gint64 fc_dims[2] = { 10, 16 };
  gint64 fcb_dims[1] = { 10 };
  gint64 pool_k[2] = { 3, 3 }, pool_s[2] = { 2, 2 }, pool_p[4] = { 1, 1, 1, 1 };
  FwNode *n;

  g_assert_nonnull (fw_graph_add_input (g, "input", FW_DTYPE_FLOAT, 4, in_dims, NULL));
  add_conv (g, rand, "conv1", "input", "c1", 3, 16, 3, 2);
  add_bn (g, rand, "bn1", "c1", "b1", 16);
  add (g, "Relu", "/relu1/Relu", "b1", NULL, "r1");
  n = add (g, "MaxPool", "/pool/MaxPool", "r1", NULL, "p1");
  fw_node_set_attr_ints (n, "kernel_shape", 2, pool_k);
  fw_node_set_attr_ints (n, "strides", 2, pool_s);
  fw_node_set_attr_ints (n, "pads", 4, pool_p);
  add_conv (g, rand, "layer1.conv", "p1", "c2", 16, 16, 3, 1);
  add_bn (g, rand, "layer1.bn", "c2", "b2", 16);
  add (g, "Add", "/layer1/Add", "b2", "p1", "s2");
  add (g, "Relu", "/layer1/Relu", "s2", NULL, "r2");
  add (g, "GlobalAveragePool", "/gap/GlobalAveragePool", "r2", NULL, "gap");
  n = add (g, "Flatten", "/flatten/Flatten", "gap", NULL, "flat");
  fw_node_set_attr_int (n, "axis", 1);
  add_weight (g, rand, "fc.weight", 2, fc_dims, 0.1f);
  add_weight (g, rand, "fc.bias", 1, fcb_dims, 0.1f);
  {
    const char *ins[3] = { "flat", "fc.weight", "fc.bias" };
    const char *outs[1] = { "logits" };
    n = fw_graph_add_node (g, "Gemm", "", "/fc/Gemm", 3, ins, 1, outs, NULL);
    fw_node_set_attr_int (n, "transB", 1);
  }
  fw_graph_add_output (g, "logits", NULL);
  finish (model);
  return model;
}

FwModel *
fw_test_long_chain (guint n_nodes)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (64) };
  char prev[32] = "x", out[32], name[48];

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  add_scalar (g, "c", 1.0f);
  for (guint i = 0; i < n_nodes; i++)
    {
      if (i + 1 == n_nodes)
        g_strlcpy (out, "y", sizeof out);
      else
        g_snprintf (out, sizeof out, "t%u", i);
      g_snprintf (name, sizeof name, "/blocks.%u/op%u", i / 100, i);
      add (g, i % 2 ? "Relu" : "Add", name, prev, i % 2 ? NULL : "c", out);
      g_strlcpy (prev, out, sizeof prev);
    }
  fw_graph_add_output (g, "y", NULL);
  finish (model);
  return model;
}

FwModel *
fw_test_roundtrip (FwModel *model, GError **error)
{
  g_autoptr(GBytes) bytes = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, error);

  if (bytes == NULL)
    return NULL;
  return fw_onnx_load_bytes (bytes, "roundtrip.onnx", NULL, NULL, error);
}

gboolean
fw_test_infer (FwModel *model, const char * const *binds, FwInferReport *report, GError **error)
{
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  FwInferOptions options = { bindings, 0 };
  FwInferReport local;
  gboolean ok;

  for (guint i = 0; binds && binds[i]; i++)
    {
      g_auto(GStrv) kv = g_strsplit (binds[i], "=", 2);
      gint64 v = g_ascii_strtoll (kv[1], NULL, 10);
      g_hash_table_insert (bindings, g_strdup (kv[0]), g_memdup2 (&v, sizeof v));
    }
  if (report == NULL)
    {
      fw_infer_report_init (&local);
      ok = fw_shape_infer_graph (fw_model_get_graph (model), &options, &local, error);
      fw_infer_report_clear (&local);
      return ok;
    }
  return fw_shape_infer_graph (fw_model_get_graph (model), &options, report, error);
}

char *
fw_test_shape_of (FwModel *model, const char *name)
{
  FwValue *value = fw_graph_lookup_value (fw_model_get_graph (model), name);

  if (value == NULL)
    return g_strdup ("missing");
  return fw_value_format_shape (value);
}

char *
fw_test_temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("fw-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
fw_test_remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

FwProfile *
fw_test_profile_910b (void)
{
  g_autoptr(GError) error = NULL;
  FwProfile *p = fw_profile_load_builtin ("ascend-910b", &error);

  g_assert_no_error (error);
  return p;
}

FwRuleSet *
fw_test_builtin_rules (void)
{
  g_autoptr(GError) error = NULL;
  FwRuleSet *rules = fw_rule_set_new ();

  g_assert_true (fw_rule_set_load_builtin (rules, &error));
  g_assert_no_error (error);
  return rules;
}

char *
fw_test_plan_report (FwModel *model, FwPlan *plan, FwReportFormat format)
{
  FwInferReport infer;
  g_autoptr(JsonNode) report = NULL;
  char *text;

  fw_infer_report_init (&infer);
  report = fw_model_report_build (model, &infer, NULL, NULL);
  fw_plan_report_add (report, plan);
  text = fw_model_report_format (report, format);
  fw_infer_report_clear (&infer);
  return text;
}

FwModel *
fw_test_custom_op_model (gint64 rows, gint64 cols)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[2] = { FW_DIM_STATIC (rows), FW_DIM_STATIC (cols) };
  g_autofree float *w = g_new (float, cols);
  g_autofree float *r = g_new (float, cols);
  g_autoptr(FwTensor) wt = NULL, rt = NULL;
  const char *add_in[2] = { "x", "w" }, *add_out[1] = { "t0" };
  const char *gelu_in[1] = { "t0" }, *gelu_out[1] = { "t1" };
  const char *sa_in[2] = { "t1", "r" }, *sa_out[1] = { "y" };

  for (gint64 i = 0; i < cols; i++)
    {
      w[i] = (float) i / (float) cols - 0.5f;
      r[i] = 1.0f - 2.0f * (float) i / (float) cols;
    }
  fw_model_set_opset_version (model, "com.example", 1);
  wt = fw_tensor_new_float (1, &cols, w);
  rt = fw_tensor_new_float (1, &cols, r);
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, d, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "w", wt, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "r", rt, NULL));
  g_assert_nonnull (fw_graph_add_node (g, "Add", "", "/add", 2, add_in, 1, add_out, NULL));
  g_assert_nonnull (fw_graph_add_node (g, "FastGelu", "com.example", "/gelu", 1, gelu_in, 1, gelu_out, NULL));
  g_assert_nonnull (fw_graph_add_node (g, "ScaledAdd", "com.example", "/scaled", 2, sa_in, 1, sa_out, NULL));
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  return model;
}
