/* test-verify-golden.c: the golden verification policy. The interpreter's golden mode widens a float16
 * graph to float32 (a Cast to half rounds nothing there); a fused kernel that rounds once passes under
 * golden and is nearer the golden than the per-op reference; a kernel off by more than the reference is
 * caught; the policy follows the model's dtypes unless asked; a group without a kernel stays unverified. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"

static void
half_constant (FwGraph *g, const char *name, FwDType dtype, float v)
{
  guint16 h = dtype == FW_DTYPE_FLOAT16 ? fw_float_to_half (v) : fw_float_to_bfloat16 (v);
  g_autoptr(GBytes) b = g_bytes_new (&h, 2);
  g_autoptr(FwTensor) t = fw_tensor_new (dtype, 0, NULL, b);

  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
add (FwGraph *g, const char *op, const char *name, const char *out, const char *a, const char *b)
{
  const char *ins[2] = { a, b }, *outs[1] = { out };

  g_assert_nonnull (fw_graph_add_node (g, op, "", name, b ? 2 : 1, ins, 1, outs, NULL));
}

/* y = ((((x · c) + d) · c) + d) · c … eight ops in dtype, each a rounding in the reference, then a Cast
 * to dtype that is a rounding nowhere (the value already is dtype). */
static FwModel *
chain (FwDType dtype)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (4), FW_DIM_STATIC (300) };
  g_autoptr(GError) error = NULL;
  char prev[16] = "x", cur[16];

  fw_graph_add_input (g, "x", dtype, 2, dims, NULL);
  half_constant (g, "c", dtype, 1.0f / 3.0f);
  half_constant (g, "d", dtype, 0.1f);
  for (guint i = 0; i < 8; i++)
    {
      char name[16];
      g_snprintf (cur, sizeof cur, "t%u", i);
      g_snprintf (name, sizeof name, "/n%u", i);
      add (g, i % 2 ? "Add" : "Mul", name, cur, prev, i % 2 ? "d" : "c");
      g_strlcpy (prev, cur, sizeof prev);
    }
  {
    const char *ins[1] = { prev }, *outs[1] = { "y" };
    FwNode *n = fw_graph_add_node (g, "Cast", "", "/cast", 1, ins, 1, outs, NULL);
    fw_node_set_attr_int (n, "to", dtype);
  }
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* One accepted candidate of every node. */
static guint
whole_group (FwPlan *plan)
{
  FwGraph *g = fw_model_get_graph (plan->model);
  FwCandidate *c = g_new0 (FwCandidate, 1);

  c->pattern = g_strdup ("test");
  c->kind = g_strdup ("test");
  c->nodes = g_ptr_array_new ();
  c->status = FW_CANDIDATE_ACCEPTED;
  for (guint n = 0; n < fw_graph_get_n_nodes (g); n++)
    g_ptr_array_add (c->nodes, fw_graph_get_node (g, n));
  c->index = plan->candidates->len;
  g_ptr_array_add (plan->candidates, c);
  return c->index;
}

static FwPlan *
plan_without_candidates (FwModel *model)
{
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

/* What a fused half kernel does: the group in float32 (the golden mode), rounded once at its outputs;
 * offset, when not 0, added to the last element as a bug would. */
typedef struct
{
  FwGroupKernel *inner;
  FwPlan        *plan;
  float          offset;
} Fused;

static gboolean
run_fused (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Fused *f = data;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (n_threads, NULL);
  FwCandidate *c = g_ptr_array_index (f->plan->candidates, f->inner->candidate);

  fw_exec_context_set_golden (ctx, FW_DTYPE_FLOAT);
  if (!fw_group_run_reference (ctx, f->inner, c->nodes, inputs, outputs, error))
    return FALSE;
  for (guint o = 0; o < f->inner->n_outputs; o++)
    {
      FwArray *w = outputs[o];
      FwArray *r = fw_array_new (f->inner->outputs[o]->dtype, w->rank, w->dims, error);
      for (gint64 i = 0; i < w->n_elements; i++)
        fw_array_set_double (r, i, fw_array_get_double (w, i) + (i == w->n_elements - 1 ? f->offset : 0.0));
      fw_array_unref (w);
      outputs[o] = r;
    }
  return TRUE;
}

static FwVerifyResult *
verify (FwPlan *plan, Fused *fused, FwVerifyPolicy policy)
{
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  FwGroupKernel kernel = *fused->inner;
  FwVerifyOptions vopts = { .seed = 5, .n_threads = 1, .policy = policy };
  FwVerifyResult *result;

  kernel.run = run_fused;
  kernel.data = fused;
  g_ptr_array_add (kernels, &kernel);
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  return result;
}

/* The golden run of a float16 graph is float32 and rounds nowhere. */
static void
test_golden_mode (void)
{
  g_autoptr(FwModel) model = chain (FW_DTYPE_FLOAT16);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) inputs = fw_exec_make_inputs (model, 5, &error);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  FwArray *out[2] = { NULL };
  const FwArray *x = inputs->pdata[0];

  fw_exec_context_set_golden (ctx, FW_DTYPE_FLOAT);
  g_assert_true (fw_exec_run_reference (ctx, g, (FwArray *const *) inputs->pdata, inputs->len, out, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (out[0]->dtype, ==, FW_DTYPE_FLOAT);
  for (gint64 i = 0; i < x->n_elements; i++)
    {
      float v = (float) fw_array_get_double (x, i);
      float c = fw_half_to_float (fw_float_to_half (1.0f / 3.0f)), d = fw_half_to_float (fw_float_to_half (0.1f));
      for (guint k = 0; k < 8; k++)
        v = k % 2 ? v + d : v * c;
      g_assert_cmpfloat (((float *) out[0]->data)[i], ==, v);
    }
  fw_array_unref (out[0]);
  g_assert_cmpint (fw_exec_golden_dtype (FW_DTYPE_FLOAT, FW_DTYPE_BFLOAT16), ==, FW_DTYPE_FLOAT);
  g_assert_cmpint (fw_exec_golden_dtype (FW_DTYPE_FLOAT, FW_DTYPE_FLOAT), ==, FW_DTYPE_FLOAT);
  g_assert_cmpint (fw_exec_golden_dtype (FW_DTYPE_DOUBLE, FW_DTYPE_FLOAT), ==, FW_DTYPE_DOUBLE);
  g_assert_cmpint (fw_exec_golden_dtype (FW_DTYPE_FLOAT, FW_DTYPE_INT64), ==, FW_DTYPE_INT64);
}

static void
check_policy (FwDType dtype)
{
  g_autoptr(FwModel) model = chain (dtype);
  g_autoptr(FwPlan) plan = plan_without_candidates (model);
  FwGroupKernel *inner = fw_group_kernel_new_reference (plan, whole_group (plan));
  Fused fused = { inner, plan, 0.0f };
  g_autoptr(FwVerifyResult) result = NULL;
  const FwGroupCheck *gc;
  const FwOutputCheck *oc;

  /* The default for a half model: golden, in float32. The kernel that rounds once is nearer the golden
     than the reference that rounds after every op, and passes. */
  result = verify (plan, &fused, FW_VERIFY_POLICY_AUTO);
  g_assert_cmpint (result->policy, ==, FW_VERIFY_POLICY_GOLDEN);
  g_assert_cmpint (result->golden, ==, FW_DTYPE_FLOAT);
  g_assert_true (result->pass);
  gc = &g_array_index (result->groups, FwGroupCheck, 0);
  oc = &g_array_index (result->outputs, FwOutputCheck, 0);
  g_assert_true (gc->pass);
  g_assert_cmpfloat (gc->fused_golden.max_abs, <, gc->unfused_golden.max_abs);
  g_assert_cmpfloat (gc->unfused_golden.max_abs, >, 0.0);
  g_assert_cmpfloat (oc->fused_golden.max_abs, <=, oc->unfused_golden.max_abs);
  g_assert_cmpfloat (gc->fused_golden.cosine, >, 0.999);
  g_assert_cmpint (gc->fused_golden.n_failed, ==, 0);
  g_assert_true (oc->pass);

  /* A kernel off by much more than the reference's own error fails under golden and under strict. */
  g_clear_pointer (&result, fw_verify_result_free);
  fused.offset = 0.25f;
  result = verify (plan, &fused, FW_VERIFY_POLICY_GOLDEN);
  gc = &g_array_index (result->groups, FwGroupCheck, 0);
  g_assert_false (result->pass);
  g_assert_false (gc->pass);
  g_assert_cmpint (gc->fused_golden.n_failed, ==, 1);
  g_assert_cmpfloat (gc->fused_golden.max_abs, >, gc->unfused_golden.max_abs * (1.0 + FW_GOLDEN_SLACK));
  g_assert_false (g_array_index (result->outputs, FwOutputCheck, 0).pass);
  g_clear_pointer (&result, fw_verify_result_free);
  result = verify (plan, &fused, FW_VERIFY_POLICY_STRICT);
  g_assert_cmpint (result->policy, ==, FW_VERIFY_POLICY_STRICT);
  g_assert_cmpint (result->golden, ==, FW_DTYPE_UNDEFINED);
  g_assert_false (result->pass);
  fw_group_kernel_reference_free (inner);
}

static void
test_policy (void)
{
  check_policy (FW_DTYPE_FLOAT16);
  check_policy (FW_DTYPE_BFLOAT16);
}

/* A float32 model: strict unless asked; asked, its golden run is float64. A group without a kernel is
 * unverified under either policy, and the result is no pass. */
static void
test_float32_and_unverified (void)
{
  g_autoptr(FwModel) model = chain (FW_DTYPE_FLOAT16);
  g_autoptr(FwModel) model32 = fw_test_elementwise_chain (3, 64, FALSE);
  g_autoptr(FwPlan) plan = NULL, plan32 = NULL;
  g_autoptr(GPtrArray) none = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  FwVerifyOptions vopts = { .seed = 5, .n_threads = 1 };
  g_autoptr(FwVerifyResult) r = NULL;

  g_assert_true (fw_test_infer (model32, NULL, NULL, NULL));
  plan32 = plan_without_candidates (model32);
  r = fw_verify_run (plan32, none, &vopts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->policy, ==, FW_VERIFY_POLICY_STRICT);
  g_assert_true (r->pass);
  g_clear_pointer (&r, fw_verify_result_free);
  vopts.policy = FW_VERIFY_POLICY_GOLDEN;
  r = fw_verify_run (plan32, none, &vopts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->golden, ==, FW_DTYPE_DOUBLE);
  g_assert_true (r->pass);
  g_assert_cmpfloat (g_array_index (r->outputs, FwOutputCheck, 0).unfused_golden.max_abs, <, 1e-5);
  g_clear_pointer (&r, fw_verify_result_free);

  plan = plan_without_candidates (model);
  whole_group (plan);
  vopts.policy = FW_VERIFY_POLICY_AUTO;
  r = fw_verify_run (plan, none, &vopts, &error);
  g_assert_no_error (error);
  g_assert_cmpint (r->policy, ==, FW_VERIFY_POLICY_GOLDEN);
  g_assert_cmpuint (r->unverified->len, ==, 1);
  g_assert_false (r->pass);
}

/* The rule for a float32 model's output that missed the strict tolerance under AUTO: resnet50's logits on an
 * AVX-512 machine (unfused 2.3e-5 from float64, fused 3.7e-5) pass; a fused error past twice the unfused
 * one, or a NaN the unfused run does not have, fails; nothing outside the tolerance always passes. */
static void
test_auto_output_rule (void)
{
  FwGoldenError unfused = { 2.3e-5, 7e-4, 1.0, 0, FALSE }, fused = { 3.7e-5, 1.4e-3, 1.0, 1, FALSE };

  g_assert_true (fw_golden_error_pass_auto (&unfused, &fused));
  g_assert_false (fw_golden_error_pass (&unfused, &fused));
  fused.max_abs = 2.0 * FW_AUTO_GOLDEN_FACTOR * unfused.max_abs;
  g_assert_false (fw_golden_error_pass_auto (&unfused, &fused));
  fused.max_abs = 1e-6;
  fused.nan_mismatch = TRUE;
  g_assert_false (fw_golden_error_pass_auto (&unfused, &fused));
  fused.n_failed = 0;
  g_assert_true (fw_golden_error_pass_auto (&unfused, &fused));
}

static void
test_parse (void)
{
  FwVerifyPolicy p = FW_VERIFY_POLICY_AUTO;
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_verify_policy_parse ("strict", &p, NULL));
  g_assert_cmpint (p, ==, FW_VERIFY_POLICY_STRICT);
  g_assert_true (fw_verify_policy_parse ("golden", &p, NULL));
  g_assert_cmpint (p, ==, FW_VERIFY_POLICY_GOLDEN);
  g_assert_false (fw_verify_policy_parse ("lenient", &p, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (fw_verify_policy_name (FW_VERIFY_POLICY_GOLDEN), ==, "golden");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/verify/golden/mode", test_golden_mode);
  g_test_add_func ("/core/verify/golden/policy", test_policy);
  g_test_add_func ("/core/verify/golden/float32-and-unverified", test_float32_and_unverified);
  g_test_add_func ("/core/verify/golden/parse", test_parse);
  g_test_add_func ("/core/verify/golden/auto-output-rule", test_auto_output_rule);
  return g_test_run ();
}
