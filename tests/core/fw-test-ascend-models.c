/* fw-test-ascend-models.c: small models for the ops the real models need beyond the transformer and conv
 * blocks (test-codegen-ascend generates and syntax-checks their kernels, test-ascend-twin runs them). */
#include "config.h"

#include "fw-test-ascend-models.h"
#include "fw-test-models.h"
#include "graph/fw-tensor.h"

static FwNode *
node_add (FwGraph *g, const char *op, const char *name, guint n_in, const char *const *ins, const char *out)
{
  const char *outs[1] = { out };
  FwNode *node = fw_graph_add_node (g, op, "", name, n_in, ins, 1, outs, NULL);

  g_assert_nonnull (node);
  return node;
}

static void
scalar_init (FwGraph *g, const char *name, float v)
{
  g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &v);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
vector_init (FwGraph *g, const char *name, gint64 n, float base)
{
  gint64 dims[1] = { n };
  g_autofree float *v = g_new (float, n);
  g_autoptr(FwTensor) t = NULL;

  for (gint64 i = 0; i < n; i++)
    v[i] = base + 0.01f * (float) i;
  t = fw_tensor_new_float (1, dims, v);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static FwModel *
link_model (FwModel *model, const char *const *outputs)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);

  for (guint i = 0; outputs[i]; i++)
    g_assert_true (fw_graph_add_output (g, outputs[i], NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  return model;
}

/* MobileNetV3's activations: x → HardSigmoid → Mul(x, ·) (hard swish as exported) → HardSwish → Relu,
 * and beside it an SE-style head on x: GlobalAveragePool → HardSigmoid (a reduce epilogue). */
FwModel *
fw_test_hard_model (void)
{
  FwModel *model = fw_test_model_new (14);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[4] = { FW_DIM_STATIC (1), FW_DIM_STATIC (16), FW_DIM_STATIC (12), FW_DIM_STATIC (12) };
  const char *in_x[1] = { "x" }, *mul[2] = { "x", "hs" }, *in_m[1] = { "m" }, *in_w[1] = { "w" };
  const char *in_p[1] = { "p" }, *outs[] = { "y", "se", NULL };
  FwNode *n;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4, dims, NULL));
  n = node_add (g, "HardSigmoid", "/act/HardSigmoid", 1, in_x, "hs");
  fw_node_set_attr_float (n, "alpha", 1.0f / 6.0f);
  node_add (g, "Mul", "/act/Mul", 2, mul, "m");
  node_add (g, "HardSwish", "/act2/HardSwish", 1, in_m, "w");
  node_add (g, "Relu", "/se/Relu", 1, in_w, "y");
  node_add (g, "GlobalAveragePool", "/se/GlobalAveragePool", 1, in_x, "p");
  node_add (g, "HardSigmoid", "/se/HardSigmoid", 1, in_p, "se");
  return link_model (model, outs);
}

/* Swin's shifted-window mask: Sub of two broadcast operands, Equal → Not → Cast(bool) → Where(-100), Equal →
 * Cast → Where(0); and a comparison cast to float that gates a Mul. */
FwModel *
fw_test_mask_model (void)
{
  FwModel *model = fw_test_model_new (14);
  FwGraph *g = fw_model_get_graph (model);
  FwDim da[3] = { FW_DIM_STATIC (4), FW_DIM_STATIC (1), FW_DIM_STATIC (49) };
  FwDim db[3] = { FW_DIM_STATIC (4), FW_DIM_STATIC (49), FW_DIM_STATIC (1) };
  FwDim dx[2] = { FW_DIM_STATIC (8), FW_DIM_STATIC (100) };
  const char *outs[] = { "mask", "gated", NULL };
  FwNode *n;

  g_assert_nonnull (fw_graph_add_input (g, "a", FW_DTYPE_FLOAT, 3, da, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "b", FW_DTYPE_FLOAT, 3, db, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dx, NULL));
  scalar_init (g, "zero", 0.0f);
  scalar_init (g, "neg", -100.0f);
  scalar_init (g, "half", 0.5f);
  node_add (g, "Sub", "/attn/Sub", 2, (const char *const[]) { "a", "b" }, "d");
  node_add (g, "Equal", "/attn/Equal", 2, (const char *const[]) { "d", "zero" }, "eq");
  node_add (g, "Not", "/attn/Not", 1, (const char *const[]) { "eq" }, "ne");
  n = node_add (g, "Cast", "/attn/Cast", 1, (const char *const[]) { "ne" }, "neb");
  fw_node_set_attr_int (n, "to", 9);
  node_add (g, "Where", "/attn/Where", 3, (const char *const[]) { "neb", "neg", "d" }, "w1");
  node_add (g, "Equal", "/attn/Equal_1", 2, (const char *const[]) { "w1", "zero" }, "eq2");
  n = node_add (g, "Cast", "/attn/Cast_1", 1, (const char *const[]) { "eq2" }, "eq2b");
  fw_node_set_attr_int (n, "to", 9);
  node_add (g, "Where", "/attn/Where_1", 3, (const char *const[]) { "eq2b", "zero", "w1" }, "mask");
  node_add (g, "Greater", "/gate/Greater", 2, (const char *const[]) { "half", "x" }, "gt");
  n = node_add (g, "Cast", "/gate/Cast", 1, (const char *const[]) { "gt" }, "gtf");
  fw_node_set_attr_int (n, "to", 1);
  node_add (g, "Mul", "/gate/Mul", 2, (const char *const[]) { "x", "gtf" }, "gm");
  node_add (g, "Where", "/gate/Where", 3, (const char *const[]) { "gt", "gm", "half" }, "gated");
  return link_model (model, outs);
}

/* A single LayerNormalization node after a residual Add, and LogSoftmax after a bias Add. */
FwModel *
fw_test_norm_model (void)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dx[3] = { FW_DIM_STATIC (2), FW_DIM_STATIC (16), FW_DIM_STATIC (64) };
  FwDim dl[2] = { FW_DIM_STATIC (6), FW_DIM_STATIC (40) };
  const char *outs[] = { "ln", "lsm", NULL };
  FwNode *n;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 3, dx, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "r", FW_DTYPE_FLOAT, 3, dx, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "l", FW_DTYPE_FLOAT, 2, dl, NULL));
  vector_init (g, "gamma", 64, 1.0f);
  vector_init (g, "beta", 64, 0.0f);
  vector_init (g, "bias", 40, -0.2f);
  node_add (g, "Add", "/res/Add", 2, (const char *const[]) { "x", "r" }, "s");
  n = node_add (g, "LayerNormalization", "/ln/LayerNormalization", 3, (const char *const[]) { "s", "gamma", "beta" },
                "ln");
  fw_node_set_attr_float (n, "epsilon", 1e-6f);
  node_add (g, "Add", "/head/Add", 2, (const char *const[]) { "l", "bias" }, "lb");
  n = node_add (g, "LogSoftmax", "/head/LogSoftmax", 1, (const char *const[]) { "lb" }, "lsm");
  fw_node_set_attr_int (n, "axis", -1);
  return link_model (model, outs);
}

/* Broadcast operands of elementwise groups: x [4, 32, 64] with a scalar graph input s [1] (Mul, Add),
 * a row vector (bias [64]) and per-row scalars v [4, 32, 1] that are computed on (Add eps, Sqrt) before
 * they divide the rows, as the tail of a decomposed LayerNorm. */
FwModel *
fw_test_broadcast_model (gboolean scalar, gboolean row_vector, gboolean per_row)
{
  FwModel *model = fw_test_model_new (14);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dx[3] = { FW_DIM_STATIC (4), FW_DIM_STATIC (32), FW_DIM_STATIC (64) };
  FwDim dv[3] = { FW_DIM_STATIC (4), FW_DIM_STATIC (32), FW_DIM_STATIC (1) };
  FwDim ds[1] = { FW_DIM_STATIC (1) };
  const char *outs[] = { "y", NULL };
  const char *cur = "x";

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 3, dx, NULL));
  node_add (g, "Relu", "/pre/Relu", 1, (const char *const[]) { cur }, "r");
  cur = "r";
  if (scalar)
    {
      g_assert_nonnull (fw_graph_add_input (g, "s", FW_DTYPE_FLOAT, 1, ds, NULL));
      node_add (g, "Mul", "/scale/Mul", 2, (const char *const[]) { cur, "s" }, "ms");
      node_add (g, "Sub", "/scale/Sub", 2, (const char *const[]) { "s", "ms" }, "ss");
      cur = "ss";
    }
  if (per_row)
    {
      scalar_init (g, "eps", 1e-5f);
      g_assert_nonnull (fw_graph_add_input (g, "v", FW_DTYPE_FLOAT, 3, dv, NULL));
      node_add (g, "Add", "/norm/Add", 2, (const char *const[]) { "v", "eps" }, "ve");
      node_add (g, "Sqrt", "/norm/Sqrt", 1, (const char *const[]) { "ve" }, "sd");
      node_add (g, "Div", "/norm/Div", 2, (const char *const[]) { cur, "sd" }, "dn");
      cur = "dn";
    }
  if (row_vector)
    {
      vector_init (g, "gamma", 64, 1.0f);
      vector_init (g, "beta", 64, 0.0f);
      node_add (g, "Mul", "/norm/Mul", 2, (const char *const[]) { cur, "gamma" }, "mg");
      node_add (g, "Add", "/norm/Add_1", 2, (const char *const[]) { "beta", "mg" }, "ab");
      cur = "ab";
    }
  node_add (g, "Tanh", "/post/Tanh", 1, (const char *const[]) { cur }, "y");
  return link_model (model, outs);
}

