/* The reference interpreter, the fused executor, verification and measurement, with groups run by
 * reference kernels (the SuperKernels have their own tests in test-codegen-host). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-error.h"
#include "fw-test-models.h"

static gboolean
have_kernels (const char *const *ops)
{
  for (guint i = 0; ops[i]; i++)
    if (fw_kernel_lookup ("", ops[i]) == NULL)
      {
        g_autofree char *msg = g_strdup_printf ("no reference kernel for %s yet", ops[i]);
        g_test_skip (msg);
        return FALSE;
      }
  return TRUE;
}

static FwArray *
array_of (guint rank, const gint64 *dims, const float *values)
{
  g_autoptr(GError) error = NULL;
  FwArray *a = fw_array_new (FW_DTYPE_FLOAT, rank, dims, &error);

  g_assert_no_error (error);
  memcpy (a->data, values, a->n_bytes);
  return a;
}

/* x → Add(x, 1) → Relu → Mul(·, 2) = y */
static FwModel *
small_chain (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (2), FW_DIM_STATIC (3) };
  gint64 sd[1] = { 1 };
  float one = 1.0f, two = 2.0f;
  g_autoptr(FwTensor) t1 = fw_tensor_new_float (1, sd, &one);
  g_autoptr(FwTensor) t2 = fw_tensor_new_float (1, sd, &two);
  const char *a_in[2] = { "x", "one" }, *a_out[1] = { "a" };
  const char *r_in[1] = { "a" }, *r_out[1] = { "r" };
  const char *m_in[2] = { "r", "two" }, *m_out[1] = { "y" };
  g_autoptr(GError) error = NULL;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_graph_add_initializer (g, "one", t1, NULL);
  fw_graph_add_initializer (g, "two", t2, NULL);
  fw_graph_add_node (g, "Add", "", "/add", 2, a_in, 1, a_out, NULL);
  fw_graph_add_node (g, "Relu", "", "/relu", 1, r_in, 1, r_out, NULL);
  fw_graph_add_node (g, "Mul", "", "/mul", 2, m_in, 1, m_out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static void
test_interpreter_chain (void)
{
  static const char *const ops[] = { "Add", "Relu", "Mul", NULL };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  gint64 dims[2] = { 2, 3 };
  float x[6] = { -3, -1, -0.5f, 0, 1, 2.5f }, expect[6] = { 0, 0, 1, 2, 4, 7 };
  g_autoptr(FwArray) in = NULL;
  FwArray *out[1] = { NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (ops))
    return;
  model = small_chain ();
  in = array_of (2, dims, x);
  g_assert_true (fw_exec_run_reference (ctx, fw_model_get_graph (model), &in, 1, out, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (out[0]->rank, ==, 2);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (((float *) out[0]->data)[i], ==, expect[i]);
  fw_array_unref (out[0]);
}

static void
test_interpreter_no_kernel (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  const char *in[1] = { "x" }, *out[1] = { "y" };
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  gint64 d[1] = { 4 };
  float x[4] = { 0 };
  g_autoptr(FwArray) a = NULL;
  FwArray *o[1] = { NULL };
  g_autoptr(GError) error = NULL;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL);
  fw_graph_add_node (g, "Frobnicate", "com.example", "/odd", 1, in, 1, out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  a = array_of (1, d, x);
  g_assert_false (fw_exec_run_reference (ctx, g, &a, 1, o, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "Frobnicate"));
  g_assert_null (o[0]);
}

static void
test_interpreter_cancel (void)
{
  static const char *const ops[] = { "Add", "Relu", "Mul", NULL };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, cancellable);
  gint64 dims[2] = { 2, 3 };
  float x[6] = { 0 };
  g_autoptr(FwArray) in = NULL;
  FwArray *out[1] = { NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (ops))
    return;
  model = small_chain ();
  in = array_of (2, dims, x);
  g_cancellable_cancel (cancellable);
  g_assert_false (fw_exec_run_reference (ctx, fw_model_get_graph (model), &in, 1, out, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_inputs_need_static_dims (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (3, 16, TRUE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) inputs = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  inputs = fw_exec_make_inputs (model, 1, &error);
  g_assert_null (inputs);
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "--bind"));
}

static void
test_inputs_seeded (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (3, 64, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  a = fw_exec_make_inputs (model, 7, &error);
  b = fw_exec_make_inputs (model, 7, &error);
  c = fw_exec_make_inputs (model, 8, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (a->len, ==, 1);
  g_assert_cmpmem (((FwArray *) a->pdata[0])->data, ((FwArray *) a->pdata[0])->n_bytes,
                   ((FwArray *) b->pdata[0])->data, ((FwArray *) b->pdata[0])->n_bytes);
  g_assert_true (memcmp (((FwArray *) a->pdata[0])->data, ((FwArray *) c->pdata[0])->data,
                         ((FwArray *) a->pdata[0])->n_bytes) != 0);
  for (gint64 i = 0; i < ((FwArray *) a->pdata[0])->n_elements; i++)
    {
      gdouble v = fw_array_get_double (a->pdata[0], i);
      g_assert_cmpfloat (v, >=, -1.0);
      g_assert_cmpfloat (v, <, 1.0);
    }
}

/* Appends a hand-made candidate to a plan, as the planner would have found it. */
static guint
add_candidate (FwPlan *plan, const char *const *node_names)
{
  FwGraph *g = fw_model_get_graph (plan->model);
  FwCandidate *c = g_new0 (FwCandidate, 1);

  c->pattern = g_strdup ("test");
  c->kind = g_strdup ("test");
  c->nodes = g_ptr_array_new ();
  c->status = FW_CANDIDATE_ACCEPTED;
  for (guint i = 0; node_names[i]; i++)
    for (guint n = 0; n < fw_graph_get_n_nodes (g); n++)
      if (strcmp (fw_node_get_name (fw_graph_get_node (g, n)), node_names[i]) == 0)
        g_ptr_array_add (c->nodes, fw_graph_get_node (g, n));
  c->index = plan->candidates->len;
  g_ptr_array_add (plan->candidates, c);
  return c->index;
}

/* A group {A, C} whose first node's output is read by B between them and whose last node reads D, which
 * comes after A in the file: neither A's nor C's position is a valid place to run the group. */
static void
test_fused_schedule (void)
{
  static const char *const ops[] = { "Exp", "Neg", "Sigmoid", "Add", NULL };
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (5) };
  const char *a_in[1] = { "x" }, *a_out[1] = { "a" };
  const char *b_in[1] = { "a" }, *b_out[1] = { "b" };
  const char *d_in[1] = { "b" }, *d_out[1] = { "d" };
  const char *c_in[2] = { "a", "z" }, *c_out[1] = { "c" };
  const char *z_in[1] = { "x" }, *z_out[1] = { "z" };
  static const char *const group[] = { "/A", "/C", NULL };
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwPlan) plan = NULL;
  FwPlanOptions options;
  g_autoptr(GPtrArray) kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_group_kernel_reference_free);
  FwVerifyOptions vopts = { .seed = 3, .n_threads = 1 };
  g_autoptr(FwVerifyResult) result = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_kernels (ops))
    return;
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL);
  fw_graph_add_node (g, "Exp", "", "/A", 1, a_in, 1, a_out, NULL);
  fw_graph_add_node (g, "Sigmoid", "", "/Z", 1, z_in, 1, z_out, NULL);
  fw_graph_add_node (g, "Neg", "", "/B", 1, b_in, 1, b_out, NULL);
  fw_graph_add_node (g, "Neg", "", "/D", 1, d_in, 1, d_out, NULL);
  fw_graph_add_node (g, "Add", "", "/C", 2, c_in, 1, c_out, NULL);
  fw_graph_add_output (g, "c", NULL);
  fw_graph_add_output (g, "d", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  profile = fw_test_profile_910b ();
  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  g_ptr_array_add (kernels, fw_group_kernel_new_reference (plan, add_candidate (plan, group)));
  g_assert_cmpuint (((FwGroupKernel *) kernels->pdata[0])->n_inputs, ==, 2);   /* x, z */
  g_assert_cmpuint (((FwGroupKernel *) kernels->pdata[0])->n_outputs, ==, 2);  /* a (read by B), c */
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  g_assert_true (result->pass);
  g_assert_cmpuint (result->groups->len, ==, 1);
  g_assert_cmpfloat (g_array_index (result->groups, FwGroupCheck, 0).isolated.max_abs, ==, 0.0);
  g_assert_cmpuint (result->outputs->len, ==, 2);
}

/* A kernel that is slightly wrong: verification must say which group and by how much. */
typedef struct
{
  FwGroupKernel *inner;
  float          offset;
} Skewed;

static gboolean
run_skewed (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Skewed *s = data;

  if (!s->inner->run (s->inner->data, inputs, outputs, n_threads, error))
    return FALSE;
  for (guint o = 0; o < s->inner->n_outputs; o++)
    {
      FwArray *copy = fw_array_copy (outputs[o], error);

      fw_array_unref (outputs[o]);
      outputs[o] = copy;
      ((float *) copy->data)[copy->n_elements - 1] += s->offset;
    }
  return TRUE;
}

static void
test_verify_catches_mismatch (void)
{
  static const char *const ops[] = { "Add", "Relu", "Mul", NULL };
  static const char *const group[] = { "/add", "/relu", "/mul", NULL };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwPlan) plan = NULL;
  FwPlanOptions options;
  FwGroupKernel *inner, skewed_kernel;
  Skewed skew;
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  FwVerifyOptions vopts = { .seed = 3, .n_threads = 1 };
  g_autoptr(FwVerifyResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const FwGroupCheck *check;

  if (!have_kernels (ops))
    return;
  model = small_chain ();
  profile = fw_test_profile_910b ();
  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  inner = fw_group_kernel_new_reference (plan, add_candidate (plan, group));
  skew.inner = inner;
  skew.offset = 0.01f;
  skewed_kernel = *inner;
  skewed_kernel.run = run_skewed;
  skewed_kernel.data = &skew;
  g_ptr_array_add (kernels, &skewed_kernel);
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  g_assert_false (result->pass);
  check = &g_array_index (result->groups, FwGroupCheck, 0);
  g_assert_false (check->pass);
  g_assert_cmpint (check->isolated.n_failed, ==, 1);
  g_assert_cmpint (check->isolated.worst_index, ==, 5);
  g_assert_cmpfloat (fabs (check->isolated.max_abs - 0.01), <, 1e-6);
  g_assert_false (g_array_index (result->outputs, FwOutputCheck, 0).compare.pass);

  /* A tolerance that allows it passes. */
  g_clear_pointer (&result, fw_verify_result_free);
  vopts.has_tolerance = TRUE;
  vopts.tolerance = (FwTolerance) { 0.0, 0.02 };
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  g_assert_true (result->pass);
  fw_group_kernel_reference_free (inner);
}

static void
test_compare (void)
{
  gint64 d[1] = { 4 };
  float r[4] = { 1, NAN, INFINITY, 0 }, f_ok[4] = { 1.00005f, NAN, INFINITY, 5e-6f }, f_bad[4] = { 1, 0, INFINITY, 0 };
  g_autoptr(FwArray) ref = array_of (1, d, r), ok = array_of (1, d, f_ok), bad = array_of (1, d, f_bad);
  gint64 d2[2] = { 2, 2 };
  g_autoptr(FwArray) other_shape = array_of (2, d2, r);
  FwCompare c;

  fw_compare_arrays (ref, ok, NULL, &c);
  g_assert_true (c.pass);
  g_assert_cmpfloat (c.max_abs, <, 1e-4);
  fw_compare_arrays (ref, bad, NULL, &c);
  g_assert_false (c.pass);
  g_assert_true (c.nan_mismatch);
  g_assert_cmpint (c.worst_index, ==, 1);
  fw_compare_arrays (ref, other_shape, NULL, &c);
  g_assert_false (c.pass);
}

static void
test_tolerance_parse (void)
{
  FwTolerance t;
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_tolerance_parse ("rel=1e-3,abs=2e-6", &t, &error));
  g_assert_cmpfloat (t.rel, ==, 1e-3);
  g_assert_cmpfloat (t.abs, ==, 2e-6);
  g_assert_true (fw_tolerance_parse ("abs=0.5", &t, &error));
  g_assert_cmpfloat (t.rel, ==, 1e-4);
  g_assert_false (fw_tolerance_parse ("rel=-1", &t, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (fw_tolerance_parse ("tight", &t, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (fw_tolerance_parse ("", &t, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
}

static void
test_rank_correlation (void)
{
  gdouble x[5] = { 1, 2, 3, 4, 5 }, y[5] = { 10, 20, 30, 40, 50 }, z[5] = { 5, 4, 3, 2, 1 };
  gdouble t[4] = { 1, 2, 2, 3 }, u[4] = { 1, 2, 3, 4 }, flat[3] = { 1, 1, 1 };

  g_assert_cmpfloat (fw_rank_correlation (x, y, 5), ==, 1.0);
  g_assert_cmpfloat (fw_rank_correlation (x, z, 5), ==, -1.0);
  g_assert_cmpfloat (fabs (fw_rank_correlation (t, u, 4) - 0.9486832980505138), <, 1e-12);
  g_assert_true (isnan (fw_rank_correlation (x, y, 2)));
  g_assert_true (isnan (fw_rank_correlation (flat, x, 3)));
}

/* Whole small models fused with reference-run groups: outputs must be bit-identical to the interpreter's,
 * and measurement must produce positive medians for every group. */
static void
check_model_fused (FwModel *model)
{
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwRuleSet) rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = NULL;
  FwPlanOptions options;
  g_autoptr(GPtrArray) kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_group_kernel_reference_free);
  FwVerifyOptions vopts = { .seed = 11, .n_threads = 2 };
  FwMeasureOptions mopts = { .warmup = 1, .repeats = 3, .seed = 11, .n_threads = 2 };
  g_autoptr(FwVerifyResult) result = NULL;
  g_autoptr(FwMeasureResult) timing = NULL;
  g_autoptr(GError) error = NULL;

  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (plan->candidates->len, >, 0);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED)
        g_ptr_array_add (kernels, fw_group_kernel_new_reference (plan, i));
    }
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  g_assert_true (result->pass);
  for (guint i = 0; i < result->outputs->len; i++)
    g_assert_cmpfloat (g_array_index (result->outputs, FwOutputCheck, i).compare.max_abs, ==, 0.0);
  timing = fw_measure_run (plan, kernels, &mopts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (timing->kernels->len, ==, kernels->len);
  g_assert_cmpfloat (timing->unfused_s, >, 0.0);
  g_assert_cmpfloat (timing->fused_s, >, 0.0);
  for (guint i = 0; i < timing->kernels->len; i++)
    g_assert_cmpfloat (g_array_index (timing->kernels, FwKernelTiming, i).kernel_s, >, 0.0);
}

static void
test_fused_transformer (void)
{
  static const char *const ops[] = { "MatMul", "Add", "ReduceMean", "Softmax", "Reshape", "Transpose", "Erf", NULL };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_kernels (ops))
    return;
  model = fw_test_transformer_block (16, 32, 4, FALSE);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  check_model_fused (model);
}

static void
test_fused_conv (void)
{
  static const char *const ops[] = { "Conv", "BatchNormalization", "Relu", "MaxPool", "GlobalAveragePool", "Flatten",
                                     "Gemm", NULL };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;

  if (!have_kernels (ops))
    return;
  model = fw_test_conv_block ();
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  check_model_fused (model);
}

/* A group kernel computing Neg that may write its output over its input (FwGroupKernel.inplace_inputs). */
typedef struct
{
  guint donated;
} InPlaceNeg;

static gboolean
run_in_place_neg (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  InPlaceNeg *k = data;
  const float *x = inputs[0]->data;
  float *y;

  if (outputs[0] != NULL)
    {
      g_assert_true (outputs[0] == inputs[0]);
      k->donated++;
    }
  else if ((outputs[0] = fw_array_new (FW_DTYPE_FLOAT, inputs[0]->rank, inputs[0]->dims, error)) == NULL)
    return FALSE;
  y = outputs[0]->data;
  for (gint64 i = 0; i < inputs[0]->n_elements; i++)
    y[i] = -x[i];
  return TRUE;
}

/* The executor hands a kernel its input's storage as the output only where the group is that value's last
 * reader and nothing else holds it. x → A: Exp → a → B: Neg (the group) → b; where a is read after B (by C),
 * is a graph output, or the group reads the caller's x itself, the storage is not given, and a result
 * written over it would show in C's output or in a. */
static void
test_fused_in_place (void)
{
  static const char *const ops[] = { "Exp", "Neg", "Add", NULL };
  enum { LAST_READER, READ_AFTER, GRAPH_OUTPUT, CALLER_INPUT, N_CASES };
  static const guint expect_donated[N_CASES] = { 1, 0, 0, 0 };

  if (!have_kernels (ops))
    return;
  for (guint c = 0; c < N_CASES; c++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      FwDim dims[2] = { FW_DIM_STATIC (4), FW_DIM_STATIC (16) };
      const char *a_in[1] = { "x" }, *a_out[1] = { "a" };
      const char *b_in[1] = { c == CALLER_INPUT ? "x" : "a" }, *b_out[1] = { "b" };
      const char *c_in[2] = { "a", "b" }, *c_out[1] = { "c" };
      static const char *const group[] = { "/B", NULL };
      g_autoptr(FwProfile) profile = fw_test_profile_910b ();
      g_autoptr(FwPlan) plan = NULL;
      g_autoptr(FwFusedProgram) program = NULL;
      g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
      g_autoptr(GPtrArray) inputs = NULL;
      g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
      g_autoptr(GError) error = NULL;
      FwArray *reference[3] = { NULL }, *fused[3] = { NULL };
      FwValue *in_v, *out_v;
      InPlaceNeg neg = { 0 };
      FwGroupKernel kernel = { 0 };
      FwPlanOptions options;
      guint n_out;

      fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
      fw_graph_add_node (g, "Exp", "", "/A", 1, a_in, 1, a_out, NULL);
      fw_graph_add_node (g, "Neg", "", "/B", 1, b_in, 1, b_out, NULL);
      if (c == READ_AFTER)
        fw_graph_add_node (g, "Add", "", "/C", 2, c_in, 1, c_out, NULL);
      fw_graph_add_output (g, c == READ_AFTER ? "c" : "b", NULL);
      if (c == GRAPH_OUTPUT || c == CALLER_INPUT)
        fw_graph_add_output (g, "a", NULL);
      g_assert_true (fw_graph_link (g, NULL));
      g_assert_true (fw_test_infer (model, NULL, NULL, &error));
      g_assert_no_error (error);
      fw_plan_options_init (&options);
      options.enabled = FALSE;
      plan = fw_plan_new (model, profile, NULL, &options, &error);
      g_assert_no_error (error);
      in_v = fw_graph_lookup_value (g, b_in[0]);
      out_v = fw_graph_lookup_value (g, "b");
      kernel.candidate = add_candidate (plan, group);
      kernel.n_inputs = 1;
      kernel.inputs = &in_v;
      kernel.n_outputs = 1;
      kernel.outputs = &out_v;
      kernel.run = run_in_place_neg;
      kernel.data = &neg;
      kernel.inplace_inputs = 1;
      g_ptr_array_add (kernels, &kernel);
      program = fw_fused_program_new (plan, kernels, &error);
      g_assert_no_error (error);
      inputs = fw_exec_make_inputs (model, 7, &error);
      g_assert_no_error (error);
      n_out = g->outputs->len;
      g_assert_true (fw_exec_run_reference (ctx, g, (FwArray *const *) inputs->pdata, inputs->len, reference, NULL,
                                            &error));
      g_assert_no_error (error);
      g_assert_true (fw_fused_program_run (program, ctx, (FwArray *const *) inputs->pdata, inputs->len, fused, NULL,
                                           &error));
      g_assert_no_error (error);
      g_assert_cmpuint (neg.donated, ==, expect_donated[c]);
      for (guint o = 0; o < n_out; o++)
        {
          g_assert_cmpmem (fused[o]->data, fused[o]->n_bytes, reference[o]->data, reference[o]->n_bytes);
          g_clear_pointer (&fused[o], fw_array_unref);
          g_clear_pointer (&reference[o], fw_array_unref);
        }
    }
}

/* A node fed only by constants runs once, on the first run, and its result is kept for every later one: w →
 * W: Neg → wn → G: an in-place Neg (the group) → wn2, x + wn2 → y. The kept wn is never handed to G as its
 * output's storage (the cache holds it too), so every run gives the reference's bytes, and two runs keeping
 * wn get the very same array. */
static void
test_fused_fold (void)
{
  static const char *const ops[] = { "Neg", "Add", NULL };
  static const char *const group[] = { "/G", NULL };
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (1025) };
  gint64 wdims[2] = { 64, 1025 };
  const char *w_in[1] = { "w" }, *w_out[1] = { "wn" }, *g_in[1] = { "wn" }, *g_out[1] = { "wn2" };
  const char *a_in[2] = { "x", "wn2" }, *a_out[1] = { "y" };
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwFusedProgram) program = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  FwArray *kept[2] = { NULL, NULL };
  FwValue *in_v, *out_v;
  InPlaceNeg neg = { 0 };
  FwGroupKernel kernel = { 0 };
  FwPlanOptions options;

  if (!have_kernels (ops))
    return;
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_test_add_random_weight (g, rand, "w", 2, wdims, 1.0f);
  fw_graph_add_node (g, "Neg", "", "/W", 1, w_in, 1, w_out, NULL);
  fw_graph_add_node (g, "Neg", "", "/G", 1, g_in, 1, g_out, NULL);
  fw_graph_add_node (g, "Add", "", "/A", 2, a_in, 1, a_out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  in_v = fw_graph_lookup_value (g, "wn");
  out_v = fw_graph_lookup_value (g, "wn2");
  /* Over the size shape inference folds at load (FW_DEFAULT_MAX_FOLD_ELEMENTS): wn is computed. */
  g_assert_null (in_v->constant);
  kernel.candidate = add_candidate (plan, group);
  kernel.n_inputs = 1;
  kernel.inputs = &in_v;
  kernel.n_outputs = 1;
  kernel.outputs = &out_v;
  kernel.run = run_in_place_neg;
  kernel.data = &neg;
  kernel.inplace_inputs = 1;
  g_ptr_array_add (kernels, &kernel);
  program = fw_fused_program_new (plan, kernels, &error);
  g_assert_no_error (error);
  inputs = fw_exec_make_inputs (model, 7, &error);
  g_assert_no_error (error);
  for (guint r = 0; r < 4; r++)
    {
      g_autoptr(GHashTable) keep = r >= 2 ? g_hash_table_new (NULL, NULL) : NULL;
      FwArray *reference = NULL, *fused = NULL;

      if (keep != NULL)
        g_hash_table_insert (keep, in_v, NULL);
      g_assert_true (fw_exec_run_reference (ctx, g, (FwArray *const *) inputs->pdata, inputs->len, &reference, NULL,
                                            &error));
      g_assert_no_error (error);
      g_assert_true (fw_fused_program_run (program, ctx, (FwArray *const *) inputs->pdata, inputs->len, &fused, keep,
                                           &error));
      g_assert_no_error (error);
      g_assert_cmpmem (fused->data, fused->n_bytes, reference->data, reference->n_bytes);
      if (keep != NULL)
        {
          kept[r - 2] = g_hash_table_lookup (keep, in_v);
          g_assert_nonnull (kept[r - 2]);
          g_hash_table_steal (keep, in_v);
        }
      fw_array_unref (fused);
      fw_array_unref (reference);
    }
  g_assert_cmpuint (neg.donated, ==, 0);
  g_assert_true (kept[0]->data == kept[1]->data);
  fw_array_unref (kept[0]);
  fw_array_unref (kept[1]);
}

/* A constant whose bytes are not aligned (raw_data at an odd place in the file's mapping) is copied once,
 * aligned, and every later array of it borrows that copy: no copy per run. */
static void
test_constant_aligned_once (void)
{
  g_autofree guint8 *storage = g_malloc (sizeof (float) * 8 + 1);
  float values[8] = { 1, -2, 3.5f, 4, 5, 6, 7, -8.25f };
  gint64 dims[1] = { 8 };
  g_autoptr(GBytes) whole = NULL, slice = NULL;
  g_autoptr(FwTensor) t = NULL;
  g_autoptr(FwArray) a = NULL, b = NULL;
  g_autoptr(GError) error = NULL;

  memcpy (storage + 1, values, sizeof values);
  whole = g_bytes_new_static (storage, sizeof (float) * 8 + 1);
  slice = g_bytes_new_from_bytes (whole, 1, sizeof values);
  t = fw_tensor_new (FW_DTYPE_FLOAT, 1, dims, slice);
  a = fw_array_new_from_tensor (t, &error);
  g_assert_no_error (error);
  b = fw_array_new_from_tensor (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint ((guintptr) a->data % sizeof (float), ==, 0);
  g_assert_true (a->data == b->data);
  g_assert_true (a->data != (gpointer) (storage + 1));
  g_assert_cmpmem (a->data, sizeof values, values, sizeof values);
  /* An aligned one is borrowed as it is. */
  {
    g_autoptr(FwTensor) aligned = NULL;
    g_autoptr(FwArray) c = NULL;
    g_autofree float *own = g_memdup2 (values, sizeof values);
    g_autoptr(GBytes) own_bytes = g_bytes_new_static (own, sizeof values);

    aligned = fw_tensor_new (FW_DTYPE_FLOAT, 1, dims, own_bytes);
    c = fw_array_new_from_tensor (aligned, &error);
    g_assert_no_error (error);
    g_assert_true (c->data == (gpointer) own);
  }
}

/* A group kernel x + w with w a constant, keeping (a reference to) every array it was given for w, so that
 * two runs' arrays cannot share an address by being freed and made again. */
typedef struct
{
  GMutex     lock;
  GPtrArray *w_seen;
} AddConstant;

static gboolean
run_add_constant (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  AddConstant *k = data;
  const float *x = inputs[0]->data, *w = inputs[1]->data;
  float *y;

  g_mutex_lock (&k->lock);
  if (!g_ptr_array_find (k->w_seen, inputs[1], NULL))
    g_ptr_array_add (k->w_seen, fw_array_ref (inputs[1]));
  g_mutex_unlock (&k->lock);
  if ((outputs[0] = fw_array_new (FW_DTYPE_FLOAT, inputs[0]->rank, inputs[0]->dims, error)) == NULL)
    return FALSE;
  y = outputs[0]->data;
  for (gint64 i = 0; i < inputs[0]->n_elements; i++)
    y[i] = x[i] + w[i];
  return TRUE;
}

typedef struct
{
  FwFusedProgram *program;
  GPtrArray      *inputs;
  const FwArray  *reference;
  guint           runs;
} OverlapRun;

static gpointer
overlap_thread (gpointer data)
{
  OverlapRun *o = data;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);

  for (guint r = 0; r < o->runs; r++)
    {
      g_autoptr(GError) error = NULL;
      FwArray *fused = NULL;

      g_assert_true (fw_fused_program_run (o->program, ctx, (FwArray *const *) o->inputs->pdata, o->inputs->len,
                                           &fused, NULL, &error));
      g_assert_no_error (error);
      g_assert_cmpmem (fused->data, fused->n_bytes, o->reference->data, o->reference->n_bytes);
      fw_array_unref (fused);
    }
  return NULL;
}

/* What one run needs (the values' table, the uses left, a step's pointers) the program keeps between runs,
 * and the runs of one program may overlap: four threads run it at once, every run gives the reference's
 * bytes, and the group kernel is handed its constant weight as the one array the program made. x → G:
 * Add (x, w) → s → N: Neg → y. */
static void
test_fused_runs_overlap (void)
{
  static const char *const ops[] = { "Add", "Neg", NULL };
  static const char *const group[] = { "/G", NULL };
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (16), FW_DIM_STATIC (33) };
  gint64 wdims[2] = { 16, 33 };
  const char *g_in[2] = { "x", "w" }, *g_out[1] = { "s" }, *n_in[1] = { "s" }, *n_out[1] = { "y" };
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwFusedProgram) program = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  g_autoptr(FwArray) reference = NULL;
  g_autoptr(GError) error = NULL;
  FwValue *kin[2], *kout;
  AddConstant add = { 0 };
  FwGroupKernel kernel = { 0 };
  OverlapRun run;
  GThread *threads[4];
  FwPlanOptions options;

  if (!have_kernels (ops))
    return;
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_test_add_random_weight (g, rand, "w", 2, wdims, 1.0f);
  fw_graph_add_node (g, "Add", "", "/G", 2, g_in, 1, g_out, NULL);
  fw_graph_add_node (g, "Neg", "", "/N", 1, n_in, 1, n_out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  kin[0] = fw_graph_lookup_value (g, "x");
  kin[1] = fw_graph_lookup_value (g, "w");
  kout = fw_graph_lookup_value (g, "s");
  g_assert_nonnull (kin[1]->constant);
  g_mutex_init (&add.lock);
  add.w_seen = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  kernel.candidate = add_candidate (plan, group);
  kernel.n_inputs = 2;
  kernel.inputs = kin;
  kernel.n_outputs = 1;
  kernel.outputs = &kout;
  kernel.run = run_add_constant;
  kernel.data = &add;
  g_ptr_array_add (kernels, &kernel);
  program = fw_fused_program_new (plan, kernels, &error);
  g_assert_no_error (error);
  inputs = fw_exec_make_inputs (model, 3, &error);
  g_assert_no_error (error);
  g_assert_true (fw_exec_run_reference (ctx, g, (FwArray *const *) inputs->pdata, inputs->len, &reference, NULL,
                                        &error));
  g_assert_no_error (error);
  run = (OverlapRun) { program, inputs, reference, 25 };
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("fw-test-run", overlap_thread, &run);
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  g_assert_cmpuint (add.w_seen->len, ==, 1);
  g_ptr_array_unref (add.w_seen);
  g_mutex_clear (&add.lock);
}

#if defined(__SANITIZE_ADDRESS__)
#define POOLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOLED 0
#endif
#endif
#ifndef POOLED
#define POOLED 1
#endif

/* An array's storage and struct go back to the pool (fw-array-pool.c) and the next array of that size
 * takes them, small and large alike; a zeroed array is zeroed whatever it took. Under AddressSanitizer
 * small storage is freed instead, so that its use-after-free checks see it. */
static void
test_array_pool (void)
{
  const gint64 sizes[2][1] = { { 100 }, { 128 * 1024 } };

  fw_array_pool_trim ();
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      FwArray *a = fw_array_new (FW_DTYPE_FLOAT, 1, sizes[s], NULL), *b;
      gpointer data = a->data, array = a, intruder, intruder_struct;

      for (gint64 i = 0; i < a->n_elements; i++)
        ((float *) a->data)[i] = 1.0f;
      fw_array_unref (a);
      /* Without the pool the C library would hand what a freed to the next allocation of its size. */
      intruder = g_malloc (sizes[s][0] * sizeof (float));
      intruder_struct = g_malloc (sizeof (FwArray));
      b = fw_array_new0 (FW_DTYPE_FLOAT, 1, sizes[s], NULL);
      if (POOLED || s == 1)
        g_assert_true (b->data == data);
      if (POOLED)
        g_assert_true ((gpointer) b == array);
      g_assert_cmpint (b->n_elements, ==, sizes[s][0]);
      g_assert_true (b->owned);
      for (gint64 i = 0; i < b->n_elements; i++)
        g_assert_cmpfloat (((float *) b->data)[i], ==, 0.0f);
      fw_array_unref (b);
      g_free (intruder);
      g_free (intruder_struct);
    }
  fw_array_pool_trim ();
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/array/pool", test_array_pool);
  g_test_add_func ("/core/exec/interpreter/chain", test_interpreter_chain);
  g_test_add_func ("/core/exec/interpreter/no-kernel", test_interpreter_no_kernel);
  g_test_add_func ("/core/exec/interpreter/cancel", test_interpreter_cancel);
  g_test_add_func ("/core/exec/inputs/static-dims", test_inputs_need_static_dims);
  g_test_add_func ("/core/exec/inputs/seeded", test_inputs_seeded);
  g_test_add_func ("/core/exec/inputs/constant-aligned-once", test_constant_aligned_once);
  g_test_add_func ("/core/exec/fused/schedule", test_fused_schedule);
  g_test_add_func ("/core/exec/fused/transformer", test_fused_transformer);
  g_test_add_func ("/core/exec/fused/conv", test_fused_conv);
  g_test_add_func ("/core/exec/fused/in-place", test_fused_in_place);
  g_test_add_func ("/core/exec/fused/fold", test_fused_fold);
  g_test_add_func ("/core/exec/fused/runs-overlap", test_fused_runs_overlap);
  g_test_add_func ("/core/exec/verify/mismatch", test_verify_catches_mismatch);
  g_test_add_func ("/core/exec/verify/compare", test_compare);
  g_test_add_func ("/core/exec/verify/tolerance", test_tolerance_parse);
  g_test_add_func ("/core/exec/measure/rank-correlation", test_rank_correlation);
  return g_test_run ();
}
