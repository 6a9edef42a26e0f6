/* fw-test-hgemm-models.c: projections sharing one activation (fw-test-models.h, fw_test_hgemm_model), the
 * horizontal GEMM's cases: x [2, 16, 32] → Q (MatMul + bias Add → Reshape into heads), K (MatMul alone) and
 * V (MatMul → Relu); an MLP's gate and up with SwiGLU between them; and the variants that stay refused. */
#include "config.h"

#include "fw-test-models.h"

#define op fw_test_add_node

/* The outputs (NULL-terminated), then linked and inferred. */
static FwModel *
finish (FwModel *model, const char *const *outputs)
{
  FwGraph *g = fw_model_get_graph (model);

  for (guint i = 0; outputs[i] != NULL; i++)
    g_assert_true (fw_graph_add_output (g, outputs[i], NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

static void
scalar (FwGraph *g, const char *name, float value)
{
  g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &value);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* y = x / √(mean (x²) + eps) · gamma over the last axis, as Llama's exporter writes it (Div (1, ·), Mul). */
static void
rms_norm (FwGraph *g, GRand *rand, const char *x, const char *y)
{
  gint64 axes[1] = { -1 }, k[1] = { 32 };

  scalar (g, "two", 2.0f);
  scalar (g, "eps", 1e-6f);
  scalar (g, "one", 1.0f);
  fw_test_add_random_weight (g, rand, "gamma", 1, k, 1.0f);
  op (g, "Pow", "/rms_pow", x, "two", "rms.sq");
  fw_node_set_attr_ints (op (g, "ReduceMean", "/rms_mean", "rms.sq", NULL, "rms.mean"), "axes", 1, axes);
  op (g, "Add", "/rms_eps", "rms.mean", "eps", "rms.var");
  op (g, "Sqrt", "/rms_sqrt", "rms.var", NULL, "rms.sd");
  op (g, "Div", "/rms_recip", "one", "rms.sd", "rms.r");
  op (g, "Mul", "/rms_norm", x, "rms.r", "rms.n");
  op (g, "Mul", "/rms_gamma", "gamma", "rms.n", y);
}

FwModel *
fw_test_hgemm_model (FwTestHgemmCase which)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (23);
  gint64 x[3] = { 2, 16, 32 }, wq[2] = { 32, 32 }, wk[2] = { 32, 16 }, bq[1] = { 32 }, heads[4] = { 2, 16, 4, 8 };
  gint64 n4 = 4;

  fw_test_add_float_input (g, "x", 3, x);
  /* The activation is made inside the graph, as a norm's result is. */
  if (which == FW_TEST_HGEMM_RMSNORM || which == FW_TEST_HGEMM_RMSNORM_OUT)
    rms_norm (g, rand, "x", "h");
  else
    op (g, "Tanh", "/norm", "x", NULL, "h");
  fw_test_add_random_weight (g, rand, "wq", 2, wq, 0.2f);
  fw_test_add_random_weight (g, rand, "wk", 2, wk, 0.2f);
  fw_test_add_random_weight (g, rand, "bq", 1, bq, 0.5f);
  if (which == FW_TEST_HGEMM_GEMM)
    {
      gint64 x2[2] = { 32, 32 }, wt[2] = { 16, 32 }, one[1] = { 1 };
      FwNode *n;

      fw_test_add_float_input (g, "x2", 2, x2);
      op (g, "Tanh", "/norm2", "x2", NULL, "h2");
      fw_test_add_random_weight (g, rand, "wt", 2, wt, 0.2f);
      fw_test_add_random_weight (g, rand, "b1", 1, one, 0.5f);
      n = fw_test_add_node3 (g, "Gemm", "/q_gemm", "q", "h2", "wq", "bq");
      fw_node_set_attr_int (n, "transB", 1);
      fw_node_set_attr_float (n, "alpha", 0.5f);
      n = fw_test_add_node3 (g, "Gemm", "/k_gemm", "k", "h2", "wt", "b1");
      fw_node_set_attr_int (n, "transB", 1);
      fw_node_set_attr_float (n, "beta", 2.0f);
      fw_test_add_node3 (g, "Gemm", "/v_gemm", "vm", "h2", "wk", NULL);
      op (g, "Sigmoid", "/v_act", "vm", NULL, "v");
      op (g, "Relu", "/x_act", "h", NULL, "hx");
      return finish (model, (const char *[]) { "q", "k", "v", "hx", NULL });
    }
  if (which == FW_TEST_HGEMM_SWIGLU)
    {
      op (g, "MatMul", "/gate_proj", "h", "wq", "g");
      op (g, "Sigmoid", "/sigmoid", "g", NULL, "gs");
      op (g, "Mul", "/silu", "g", "gs", "silu");
      op (g, "MatMul", "/up_proj", "h", "wk2", "u");
      fw_test_add_random_weight (g, rand, "wk2", 2, wq, 0.2f);
      op (g, "Mul", "/swiglu", "silu", "u", "y");
      return finish (model, (const char *[]) { "y", NULL });
    }
  {
    g_autoptr(FwTensor) t = fw_tensor_new_int64 (1, &n4, heads);
    g_assert_nonnull (fw_graph_add_initializer (g, "heads", t, NULL));
  }
  op (g, "MatMul", "/q_proj", "h", "wq", "qm");
  op (g, "Add", "/q_bias", "qm", "bq", "qb");
  op (g, "Reshape", "/q_view", "qb", "heads", "q");
  op (g, "MatMul", "/k_proj", "h", "wk", "k");
  if (which == FW_TEST_HGEMM_DYNAMIC_WEIGHT)
    {
      gint64 wv[2] = { 32, 16 };
      fw_test_add_float_input (g, "wv", 2, wv);
    }
  else
    fw_test_add_random_weight (g, rand, "wv", 2, wk, 0.2f);
  op (g, "MatMul", "/v_proj", "h", "wv", "vm");
  op (g, which == FW_TEST_HGEMM_FLOOR ? "Floor" : "Relu", "/v_act", "vm", NULL, "v");
  if (which == FW_TEST_HGEMM_RMSNORM_OUT)
    return finish (model, (const char *[]) { "q", "k", "v", "h", NULL });
  return finish (model, (const char *[]) { "q", "k", "v", NULL });
}
