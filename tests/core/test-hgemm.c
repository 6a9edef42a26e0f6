/* test-hgemm: the horizontal GEMM (core/plan/fw-hgemm.c, fw-discovery-horizontal.c): projections sharing an
 * activation with constant weights are one candidate under the aggressive strategy only, their weights side
 * by side in the spec, each projection's epilogue kept on its slice, priced with the activation read once
 * and one launch; a projection that cannot be a slice stays out with its code, and the Ascend target refuses
 * the group with FW-TG-006. The host kernels are verified in test-codegen-host (hgemm). */
#include "config.h"

#include <string.h>

#include "codegen/ascend/fw-ascend.h"
#include "export/fw-fused-model.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-kernel-spec.h"
#include "plan/fw-plan.h"

static const FwCandidate *
hgemm_of (const FwPlan *plan)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->kind, "horizontal_gemm") == 0)
        return c;
    }
  return NULL;
}

/* Q, K and V: one group of the three products, Q's bias and view and V's Relu; [32, 64] of packed columns;
 * the activation read once (not three times) and one launch instead of six. */
static void
test_qkv (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_QKV);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);
  const FwHgemmSpec *h;
  const FwCostEstimate *cost;

  g_assert_nonnull (c);
  g_assert_true (fw_candidate_is_fused (c));
  g_assert_cmpuint (c->nodes->len, ==, 6);
  h = fw_kernel_spec_get_hgemm (c->spec);
  g_assert_nonnull (h);
  g_assert_cmpuint (h->n_slices, ==, 3);
  g_assert_cmpint (h->m, ==, 32);
  g_assert_cmpint (h->k, ==, 32);
  g_assert_cmpint (h->n, ==, 64);
  g_assert_cmpstr (fw_node_get_name (h->slices[0].root), ==, "/q_proj");
  g_assert_cmpint (h->slices[0].col, ==, 0);
  g_assert_cmpint (h->slices[1].col, ==, 32);
  g_assert_cmpint (h->slices[2].col, ==, 48);
  g_assert_cmpstr (h->a->name, ==, "h");
  cost = fw_candidate_get_cost (c);
  g_assert_cmpuint (cost->launches_before, ==, 6);
  g_assert_cmpuint (cost->launches_after, ==, 1);
  /* A once, the three weights, the bias and the view's four int64 dims, against A three times apart. */
  g_assert_cmpfloat (cost->bytes_read_after, ==, 4.0 * (32 * 32 + 32 * 64 + 32) + 8 * 4);
  g_assert_cmpfloat (cost->bytes_read_before, >=, 4.0 * 3 * 32 * 32);
  g_assert_cmpfloat (cost->bytes_written_after, ==, 4.0 * 32 * 64);
  g_assert_cmpfloat (cost->saving_s, >, 0);
}

/* Gemm projections: the transposed weights turned, alpha folded in, beta times each bias. */
static void
test_gemm (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_GEMM);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);
  const FwHgemmSpec *h;
  g_autofree float *bias = NULL;
  g_autofree float *w = NULL;

  g_assert_nonnull (c);
  h = fw_kernel_spec_get_hgemm (c->spec);
  g_assert_cmpuint (h->n_slices, ==, 3);
  g_assert_true (h->slices[0].trans_b);
  g_assert_cmpfloat (h->slices[0].alpha, ==, 0.5);
  g_assert_cmpfloat (h->slices[1].beta, ==, 2.0);
  g_assert_null (h->slices[2].bias);
  g_assert_cmpint (h->n, ==, 64);
  w = fw_hgemm_pack (h, &bias);
  g_assert_nonnull (w);
  g_assert_nonnull (bias);
  /* The unbiased slice's columns add nothing. */
  for (gint64 j = 48; j < 64; j++)
    g_assert_cmpfloat (bias[j], ==, 0.0f);
}

/* The RMSNorm making the activation, read by the products only, is computed as A is loaded: one kernel reads
 * x (not the normalised value), the norm's own launch and its result's round trip saved. Read outside, the
 * norm stays a group of its own. */
static void
test_rmsnorm (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_RMSNORM);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  g_autoptr(FwModel) out_model = fw_test_hgemm_model (FW_TEST_HGEMM_RMSNORM_OUT);
  g_autoptr(FwPlan) out_plan = fw_test_plan_with (out_model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);
  const FwHgemmSpec *h;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 6 + 7);
  h = fw_kernel_spec_get_hgemm (c->spec);
  g_assert_cmpuint (h->n_slices, ==, 3);
  g_assert_nonnull (h->norm_x);
  g_assert_cmpstr (h->norm_x->name, ==, "x");
  g_assert_cmpstr (h->norm_gamma->name, ==, "gamma");
  g_assert_false (h->norm_divides);
  g_assert_cmpfloat_with_epsilon (h->norm_eps, 1e-6, 1e-12);
  g_assert_cmpstr (h->a->name, ==, "h");
  g_assert_cmpuint (fw_candidate_get_cost (c)->launches_before, ==, 13);
  /* x, the weights, the bias, gamma, the view's dims and the norm's three scalars, once each. */
  g_assert_cmpfloat (fw_candidate_get_cost (c)->bytes_read_after, ==,
                     4.0 * (32 * 32 + 32 * 64 + 32 + 32 + 3) + 8 * 4);
  c = hgemm_of (out_plan);
  g_assert_nonnull (c);
  g_assert_null (fw_kernel_spec_get_hgemm (c->spec)->norm_x);
  g_assert_cmpuint (c->nodes->len, ==, 6);
}

/* Balanced keeps each projection with its own epilogue. */
static void
test_balanced (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_QKV);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);

  g_assert_null (hgemm_of (plan));
  for (guint i = 0; i < plan->candidates->len; i++)
    g_assert_null (fw_kernel_spec_get_hgemm (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->spec));
}

/* Gate and up: the up slice is read by the gate's epilogue, inside the one group. */
static void
test_swiglu (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_SWIGLU);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 5);
  g_assert_cmpuint (fw_kernel_spec_get_hgemm (c->spec)->n_slices, ==, 2);
  g_assert_cmpuint (fw_kernel_spec_get_n_outputs (c->spec), ==, 1);
}

/* A weight that is a graph input cannot be packed once: V stays out (FW-NF-025), Q and K still fuse. */
static void
test_dynamic_weight (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_DYNAMIC_WEIGHT);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);

  g_assert_nonnull (fw_test_refusal_of (plan, FW_NF_HGEMM, "/v_proj"));
  g_assert_nonnull (c);
  g_assert_cmpuint (fw_kernel_spec_get_hgemm (c->spec)->n_slices, ==, 2);
  g_assert_cmpstr (fw_reason_code_string (FW_NF_HGEMM), ==, "FW-NF-025");
}

/* An epilogue operator the slices do not compute keeps its projection out: FW-NF-026 on it. */
static void
test_epilogue_refused (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_FLOOR);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *c = hgemm_of (plan);

  g_assert_nonnull (fw_test_refusal_of (plan, FW_NF_HGEMM_EPILOGUE, "/v_act"));
  g_assert_nonnull (c);
  g_assert_cmpuint (fw_kernel_spec_get_hgemm (c->spec)->n_slices, ==, 2);
  g_assert_cmpstr (fw_reason_code_string (FW_NF_HGEMM_EPILOGUE), ==, "FW-NF-026");
}

/* The Ascend generator has no lowering for it yet: FW-TG-006, in arranging and in generating. */
static void
test_ascend_refuses (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_QKV);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  g_autoptr(GError) error = NULL;
  const FwCandidate *c = hgemm_of (plan);
  FwUbArrangement arrangement;

  g_assert_nonnull (c);
  fw_ub_arrangement_init (&arrangement);
  g_assert_false (fw_ascend_arrange (plan, c, &arrangement, &error));
  fw_ub_arrangement_clear (&arrangement);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "[FW-TG-006]"));
  g_clear_error (&error);
  g_assert_null (fw_ascend_kernel_generate (plan, c, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "[FW-TG-006]"));
}

static gboolean
bytes_have (GBytes *bytes, const char *text)
{
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  return memmem (data, len, text, strlen (text)) != NULL;
}

/* The fused export: the three weights packed once into a new [32, 64] initializer the function's one MatMul
 * reads, split back into the projections' results; the original weights leave the file. */
static void
test_export (void)
{
  g_autoptr(FwModel) model = fw_test_hgemm_model (FW_TEST_HGEMM_QKV);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_AGGRESSIVE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_autoptr(FwModel) back = NULL;
  const FwCandidate *c = hgemm_of (plan);
  g_autofree char *name = NULL;
  g_autofree float *packed = NULL;
  FwValue *w;
  gsize size;
  const float *data;

  g_assert_no_error (error);
  g_assert_nonnull (c);
  back = fw_onnx_load_bytes (bytes, "fused.onnx", NULL, NULL, &error);
  g_assert_no_error (error);
  name = g_strdup_printf ("Fused_horizontal_gemm_%u.packed_weight", c->index);
  w = fw_graph_lookup_value (fw_model_get_graph (back), name);
  g_assert_nonnull (w);
  g_assert_nonnull (w->constant);
  g_assert_cmpint (w->rank, ==, 2);
  g_assert_cmpint (w->dims[0].value, ==, 32);
  g_assert_cmpint (w->dims[1].value, ==, 64);
  packed = fw_hgemm_pack (fw_kernel_spec_get_hgemm (c->spec), NULL);
  data = fw_tensor_get_data (w->constant, &size);
  g_assert_cmpuint (size, ==, sizeof (float) * 32 * 64);
  g_assert_cmpmem (data, size, packed, sizeof (float) * 32 * 64);
  for (guint i = 0; i < 3; i++)
    {
      const char *orig[] = { "wq", "wk", "wv" };
      FwValue *o = fw_graph_lookup_value (fw_model_get_graph (back), orig[i]);
      g_assert_true (o == NULL || o->constant == NULL);
    }
  /* The function's body: the packed product and its split, no projection of its own. */
  g_assert_true (bytes_have (bytes, "/packed_matmul"));
  g_assert_true (bytes_have (bytes, "/packed_split"));
  g_assert_false (bytes_have (bytes, "/q_proj"));
  g_assert_true (bytes_have (bytes, "/q_bias"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/hgemm/qkv", test_qkv);
  g_test_add_func ("/core/plan/hgemm/balanced", test_balanced);
  g_test_add_func ("/core/plan/hgemm/swiglu", test_swiglu);
  g_test_add_func ("/core/plan/hgemm/gemm", test_gemm);
  g_test_add_func ("/core/plan/hgemm/rmsnorm", test_rmsnorm);
  g_test_add_func ("/core/plan/hgemm/dynamic-weight", test_dynamic_weight);
  g_test_add_func ("/core/plan/hgemm/epilogue-refused", test_epilogue_refused);
  g_test_add_func ("/core/plan/hgemm/ascend", test_ascend_refuses);
  g_test_add_func ("/core/plan/hgemm/export", test_export);
  return g_test_run ();
}
