/* The Ascend C twin (data/ascend/twin, run by core/codegen/fw-ascend-twin.c): generated kernels of the test
 * models (and, with FW_REAL_MODELS, of the real ones) run on it and match the reference interpreter, with
 * the plan's bytes. The twin's own contract, on hand-written kernels, is test-twin-runtime.c. Skipped
 * without a C++ compiler. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codegen/ascend/fw-ascend-cube-tiling.h"
#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-ascend-twin.h"
#include "exec/fw-exec.h"
#include "exec/fw-kernel.h"
#include "graph/fw-tensor.h"
#include "fw-error.h"
#include "fw-test-ascend-models.h"
#include "fw-test-models.h"
#include "fw-test-twin.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-plan-private.h"

static FwTestTwin shared;

static FwAscendTwin *
get_twin (void)
{
  return fw_test_twin_get (&shared);
}

static FwRuleSet *
rules (void)
{
  static FwRuleSet *r;

  if (r == NULL)
    r = fw_test_builtin_rules ();
  return r;
}

static FwPlan *
plan_for (FwModel *model, FwStrategy strategy, const char *const *binds)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, binds, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.strategy = strategy;
  options.arrange = fw_ascend_arrange;
  plan = fw_plan_new (model, shared.profile, rules (), &options, &error);
  g_assert_no_error (error);
  return plan;
}

/* Cosine similarity, largest absolute and relative error of got against want (CANN's precision figures). */
typedef struct
{
  double cosine, max_abs, max_rel;
  gint64 worst;
  gboolean within;  /* every element within the float32 tolerance of the host verification tests */
} Compare;

static Compare
compare (const FwArray *want, const FwArray *got, gboolean half, gdouble product_tol)
{
  Compare c = { 1.0, 0, 0, -1, TRUE };
  double dot = 0, ww = 0, gg = 0;

  g_assert_true (fw_array_same_shape (want, got));
  for (gint64 i = 0; i < got->n_elements; i++)
    {
      double w = fw_array_get_double (want, i), x = fw_array_get_double (got, i);
      double d = fabs (w - x), tol = (half ? 1e-3 + 1e-2 * fabs (w) : 1e-5 + 1e-4 * fabs (w)) + product_tol;

      if (isnan (w) && isnan (x))
        continue;
      if (!(d <= tol))
        c.within = FALSE;
      if (!(d <= c.max_abs))
        {
          c.max_abs = d;
          c.worst = i;
        }
      if (fabs (w) > 1e-6 && d / fabs (w) > c.max_rel)
        c.max_rel = d / fabs (w);
      if (isfinite (w) && isfinite (x))
        {
          dot += w * x;
          ww += w * w;
          gg += x * x;
        }
    }
  if (ww > 0 || gg > 0)
    c.cosine = dot / (sqrt (ww) * sqrt (gg) + 1e-300);
  return c;
}

static FwArray *
random_array (FwValue *v, GRand *rand)
{
  g_autoptr(GError) error = NULL;
  gint64 dims[FW_MAX_RANK];
  FwArray *a;

  if (v->constant != NULL)
    {
      a = fw_array_new_from_tensor (v->constant, &error);
      g_assert_no_error (error);
      return a;
    }
  for (gint d = 0; d < v->rank; d++)
    dims[d] = v->dims[d].value;
  a = fw_array_new (v->dtype, (guint) v->rank, dims, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, fw_dtype_is_float (v->dtype) ? g_rand_double_range (rand, -1.0, 1.0)
                                                            : (gdouble) g_rand_int_range (rand, 0, 2));
  return a;
}

/* The reference values of the candidate's nodes, the cube root's output given where it is the kernel's in0. */
static gboolean
reference (const FwCandidate *cand, GHashTable *values, char **why)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);

  for (guint i = 0; i < cand->nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (cand->nodes, i);
      FwArray *in_arrays[16] = { NULL };
      FwArray *out_arrays[8] = { NULL };
      g_autoptr(GPtrArray) made = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
      g_autoptr(GError) error = NULL;

      /* An epilogue's root result is given (the kernel's in0); a mixed kernel computes it from A and B. */
      if (n == cand->root && g_hash_table_contains (values, n->outputs[0]))
        continue;
      g_assert_cmpuint (n->n_inputs, <=, 16);
      g_assert_cmpuint (n->n_outputs, <=, 8);
      for (guint s = 0; s < n->n_inputs; s++)
        {
          FwValue *v = n->inputs[s];
          if (v == NULL)
            continue;
          in_arrays[s] = g_hash_table_lookup (values, v);
          if (in_arrays[s] == NULL)
            {
              g_assert_nonnull (v->constant);
              in_arrays[s] = fw_array_new_from_tensor (v->constant, &error);
              g_assert_no_error (error);
              g_ptr_array_add (made, in_arrays[s]);
            }
        }
      if (!fw_exec_run_node (ctx, n, in_arrays, out_arrays, &error))
        {
          *why = g_strdup_printf ("reference %s failed: %s", n->op_type, error->message);
          return FALSE;
        }
      for (guint s = 0; s < n->n_outputs; s++)
        if (out_arrays[s] != NULL)
          {
            if (n->outputs[s] != NULL)
              g_hash_table_insert (values, n->outputs[s], out_arrays[s]);
            else
              fw_array_unref (out_arrays[s]);
          }
    }
  return TRUE;
}

typedef struct
{
  guint passed, refused, no_reference, failed;
  guint mixed, epilogues;  /* generated cube_vector and epilogue kernels */
} Tally;

/* A mixed cube + vector kernel moves what the plan priced: the twin's GM traffic (A, B and the bias through
 * the Matmul object, the epilogue's operands, the outputs) is the candidate's bytes_read_after +
 * bytes_written_after within 1%. FALSE (with a message) when not. */
static gboolean
check_traffic (const FwCandidate *cand, FwTwinRun *run, const char *name)
{
  const FwCostEstimate *cost = fw_candidate_get_cost (cand);
  const FwTwinCounts *counts = fw_twin_run_get_counts (run);
  gdouble plan = cost->bytes_read_after + cost->bytes_written_after;
  gdouble twin = (gdouble) counts->mte2_bytes + (gdouble) counts->mte3_bytes;

  if (fabs (twin - plan) <= 0.01 * plan)
    {
      g_test_message ("%s (%s): mixed kernel, twin traffic %.0f bytes, plan %.0f (%+.4f%%)", name, cand->pattern, twin,
                      plan, plan > 0 ? 100.0 * (twin - plan) / plan : 0.0);
      return TRUE;
    }
  g_test_message ("FAIL %s (%s): the twin moved %.0f bytes (read %" G_GUINT64_FORMAT ", written %" G_GUINT64_FORMAT
                  "), the plan priced %.0f (read %.0f, written %.0f)", name, cand->pattern, twin, counts->mte2_bytes,
                  counts->mte3_bytes, plan, cost->bytes_read_after, cost->bytes_written_after);
  return FALSE;
}

/* A kernel with a float16 operand computes in half, and is judged as `--verify` judges it under a half model's
 * default golden policy: its outputs and the reference's against the group widened to float32, the fused error
 * within the unfused one's (fw_ascend_twin_check_policy). A strict comparison with the per-op reference would
 * fail kernels that keep float32 islands in registers where the reference rounds every op to half. */
static gboolean
check_half_golden (FwAscendKernel *k, const FwCandidate *cand, GHashTable *values, const char *name)
{
  FwTwinCheck *check = fw_ascend_twin_check_policy (shared.twin, k, shared.profile, values, NULL, NULL, cand,
                                                    FW_DTYPE_FLOAT);
  gboolean pass = check->ran && check->pass;

  if (!pass)
    g_test_message ("FAIL %s (%s): golden verdict: %s; cosine %.6f, fused max abs %.3g against the float32 golden "
                    "(unfused %.3g)", name, cand->pattern, check->error ? check->error : "fails", check->cosine,
                    check->fused_golden.max_abs, check->unfused_golden.max_abs);
  fw_twin_check_free (check);
  return pass;
}

/* Generates the candidate's kernel, runs it on the twin and compares with the reference: no diagnostics,
 * cosine >= 0.9999, every element within tolerance. A candidate the generator refuses is counted, with its
 * reason; a failure is counted and said. */
static void
check_candidate (FwPlan *plan, const FwCandidate *cand, Tally *tally)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwAscendKernel) k = fw_ascend_kernel_generate (plan, cand, &error);
  g_autoptr(GHashTable) values = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11 + cand->index);
  g_autoptr(GPtrArray) ins = g_ptr_array_new ();
  g_autoptr(FwTwinRun) run = NULL;
  g_autofree char *why = NULL;
  const FwKernelSource *src;
  gboolean ok = TRUE, half = FALSE;

  if (k == NULL)
    {
      g_test_message ("candidate %u (%s) refused: %s", cand->index, cand->pattern, error->message);
      tally->refused++;
      return;
    }
  for (guint i = 0; i < cand->nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (cand->nodes, i);
      if (n != cand->root && fw_kernel_lookup (n->domain, n->op_type) == NULL)
        {
          tally->no_reference++;
          return;
        }
    }
  src = fw_ascend_kernel_get_kernel_source (k);
  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
    {
      FwValue *v = fw_kernel_source_get_input (src, i);
      FwArray *a = random_array (v, rand);
      g_hash_table_insert (values, v, a);
      g_ptr_array_add (ins, a);
    }
  run = fw_ascend_twin_run (shared.twin, k, shared.profile, (FwArray *const *) ins->pdata, &error);
  g_assert_no_error (error);
  if (fw_kernel_spec_get_form (cand->spec) == FW_KERNEL_FORM_CUBE_VECTOR)
    {
      tally->mixed++;
      ok &= check_traffic (cand, run, fw_kernel_source_get_name (src));
    }
  else if (fw_kernel_spec_get_form (cand->spec) == FW_KERNEL_FORM_EPILOGUE)
    {
      tally->epilogues++;
      g_test_message ("%s (%s) is an epilogue: %s", fw_kernel_source_get_name (src), cand->pattern,
                      fw_kernel_spec_get_form_reason (cand->spec) ? fw_kernel_spec_get_form_reason (cand->spec) : "-");
    }
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *x = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("FAIL %s (%s): %s %s:%d (%" G_GINT64_FORMAT "x): %s", fw_kernel_source_get_name (src),
                      cand->pattern, x->code, x->file, x->line, x->count, x->message);
      ok = FALSE;
    }
  if (!reference (cand, values, &why))
    {
      g_test_message ("%s", why);
      tally->no_reference++;
      return;
    }
  for (guint i = 0; i < ins->len; i++)
    half |= ((FwArray *) g_ptr_array_index (ins, i))->dtype == FW_DTYPE_FLOAT16;
  if (half)
    ok &= check_half_golden (k, cand, values, fw_kernel_source_get_name (src));
  for (guint o = 0; o < fw_kernel_source_get_n_outputs (src) && !half; o++)
    {
      FwArray *want = g_hash_table_lookup (values, fw_kernel_source_get_output (src, o));
      Compare c;

      c = compare (want, fw_twin_run_get_output (run, o), half,
                   fw_ascend_kernel_product_tolerance (k, (FwArray *const *) ins->pdata));
      if (!c.within || c.cosine < (half ? 0.999 : 0.9999))
        {
          g_test_message ("FAIL %s (%s) out%u: cosine %.9f, max abs %.3g, max rel %.3g; worst element %" G_GINT64_FORMAT
                          ": %.9g, reference %.9g", fw_kernel_source_get_name (src), cand->pattern, o, c.cosine,
                          c.max_abs, c.max_rel, c.worst, fw_array_get_double (fw_twin_run_get_output (run, o), c.worst),
                          fw_array_get_double (want, c.worst));
          ok = FALSE;
        }
    }
  if (ok)
    tally->passed++;
  else
    tally->failed++;
}

static void
check_plan (FwPlan *plan, Tally *tally)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    check_candidate (plan, g_ptr_array_index (plan->candidates, i), tally);
  g_test_message ("%u candidates: %u pass on the twin, %u fail, %u refused by the generator, %u without a reference; "
                  "%u mixed cube + vector kernels (traffic checked), %u epilogues",
                  plan->candidates->len, tally->passed, tally->failed, tally->refused, tally->no_reference, tally->mixed,
                  tally->epilogues);
}

static void
check_model_bound (FwModel *model, FwStrategy strategy, const char *const *binds, guint min_passed)
{
  g_autoptr(FwPlan) plan = NULL;
  Tally tally = { 0 };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      g_object_unref (model);
      return;
    }
  plan = plan_for (model, strategy, binds);
  check_plan (plan, &tally);
  g_assert_cmpuint (tally.failed, ==, 0);
  g_assert_cmpuint (tally.passed, >=, min_passed);
}

static void
check_model (FwModel *model, FwStrategy strategy, guint min_passed)
{
  check_model_bound (model, strategy, NULL, min_passed);
}

static void
test_transformer_balanced (void)
{
  check_model (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED, 3);
}

static void
test_transformer_conservative (void)
{
  check_model (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_CONSERVATIVE, 3);
}

static void
test_transformer_aggressive (void)
{
  check_model (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_AGGRESSIVE, 2);
}

static void
test_conv_block (void)
{
  check_model (fw_test_conv_block (), FW_STRATEGY_BALANCED, 1);
}

static void
test_chain (void)
{
  check_model (fw_test_elementwise_chain (12, 64, FALSE), FW_STRATEGY_BALANCED, 1);
}

static void
add_node (FwGraph *g, const char *op, const char *out, const char *a, const char *b)
{
  const char *ins[2] = { a, b };
  const char *outs[1] = { out };
  FwNode *n = fw_graph_add_node (g, op, "", out, b ? 2 : 1, ins, 1, outs, NULL);

  g_assert_nonnull (n);
  if (strcmp (op, "Cast") == 0)
    fw_node_set_attr_int (n, "to", FW_DTYPE_FLOAT);
}

static FwValue *
add_matrix (FwGraph *g, const char *name, gint rank, const gint64 *dims, gboolean constant, guint32 seed)
{
  FwDim d[FW_MAX_RANK];
  gint64 n = 1;

  for (gint i = 0; i < rank; i++)
    {
      d[i] = (FwDim) FW_DIM_STATIC (dims[i]);
      n *= dims[i];
    }
  if (constant)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
      g_autofree float *data = g_new (float, n);
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(FwTensor) t = NULL;

      for (gint64 i = 0; i < n; i++)
        data[i] = (float) g_rand_double_range (rand, -1.0, 1.0);
      bytes = g_bytes_new (data, (gsize) n * sizeof (float));
      t = fw_tensor_new (FW_DTYPE_FLOAT, (guint) rank, dims, bytes);
      return fw_graph_add_initializer (g, name, t, NULL);
    }
  return fw_graph_add_input (g, name, FW_DTYPE_FLOAT, rank, d, NULL);
}

/* One product and its epilogue as a model: y = Relu (op (a, b) [+ r]), a Gemm's attributes set. */
static FwModel *
cube_model (const char *op, gint ra, const gint64 *da, gint rb, const gint64 *db, gint rr, const gint64 *dr,
            gint64 trans_a, gint64 trans_b, float alpha)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  const char *ins[2] = { "a", "b" };
  const char *outs[1] = { "p" };
  FwNode *n;

  g_assert_nonnull (add_matrix (g, "a", ra, da, FALSE, 1));
  g_assert_nonnull (add_matrix (g, "b", rb, db, TRUE, 2));
  n = fw_graph_add_node (g, op, "", "product", 2, ins, 1, outs, NULL);
  g_assert_nonnull (n);
  if (strcmp (op, "Gemm") == 0)
    {
      fw_node_set_attr_int (n, "transA", trans_a);
      fw_node_set_attr_int (n, "transB", trans_b);
      fw_node_set_attr_float (n, "alpha", alpha);
    }
  if (rr > 0)
    {
      g_assert_nonnull (add_matrix (g, "r", rr, dr, FALSE, 3));
      add_node (g, "Add", "s", "p", "r");
      add_node (g, "Relu", "y", "s", NULL);
    }
  else
    add_node (g, "Relu", "y", "p", NULL);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  return model;
}

/* The plan of model under balanced, every candidate run on the twin: the one with a compute root must be of
 * form `want` (a mixed kernel's traffic checked against the plan), with a reason containing `why` when it is
 * an epilogue. */
static void
check_cube_form (FwModel *model, FwKernelForm want, const char *why)
{
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED, NULL);
  Tally tally = { 0 };
  guint rooted = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (c->root == NULL)
        continue;
      rooted++;
      g_assert_cmpint (fw_kernel_spec_get_form (c->spec), ==, want);
      if (why != NULL)
        g_assert_nonnull (strstr (fw_kernel_spec_get_form_reason (c->spec), why));
      else
        g_assert_null (fw_kernel_spec_get_form_reason (c->spec));
    }
  g_assert_cmpuint (rooted, ==, 1);
  check_plan (plan, &tally);
  g_assert_cmpuint (tally.failed, ==, 0);
  g_assert_cmpuint (tally.passed, ==, plan->candidates->len);
  g_assert_cmpuint (tally.mixed, ==, want == FW_KERNEL_FORM_CUBE_VECTOR ? 1 : 0);
}

/* The forms of MatMul and Gemm real models have, as mixed kernels on the twin (outputs, no diagnostics, the
 * twin's traffic the plan's): a 4-D batched MatMul with a residual, a batched A against a broadcast B batch,
 * a 3-D A against a 2-D weight (folded into M), Gemm with transB and alpha; and the ones that stay epilogues
 * with their reason: Gemm with transA, and a Conv root (whose plan then pays the round trip of its result). */
static void
test_cube_forms (void)
{
  static const gint64 a4[] = { 2, 3, 20, 40 }, b4[] = { 2, 3, 40, 24 }, r4[] = { 2, 3, 20, 24 };
  static const gint64 b3[] = { 3, 40, 24 }, a3[] = { 2, 37, 40 }, b2[] = { 40, 72 }, r3[] = { 2, 37, 72 };
  static const gint64 ga[] = { 33, 48 }, gb[] = { 80, 48 }, gat[] = { 48, 33 }, gbn[] = { 48, 80 };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  check_cube_form (cube_model ("MatMul", 4, a4, 4, b4, 4, r4, 0, 0, 1.0f), FW_KERNEL_FORM_CUBE_VECTOR, NULL);
  check_cube_form (cube_model ("MatMul", 4, a4, 3, b3, 0, NULL, 0, 0, 1.0f), FW_KERNEL_FORM_CUBE_VECTOR, NULL);
  check_cube_form (cube_model ("MatMul", 3, a3, 2, b2, 3, r3, 0, 0, 1.0f), FW_KERNEL_FORM_CUBE_VECTOR, NULL);
  check_cube_form (cube_model ("Gemm", 2, ga, 2, gb, 0, NULL, 0, 1, 0.5f), FW_KERNEL_FORM_CUBE_VECTOR, NULL);
  check_cube_form (cube_model ("Gemm", 2, gat, 2, gbn, 0, NULL, 1, 0, 1.0f), FW_KERNEL_FORM_EPILOGUE, "transA");
  {
    g_autoptr(FwPlan) plan = plan_for (fw_test_conv_block (), FW_STRATEGY_BALANCED, NULL);
    guint conv = 0;

    for (guint i = 0; i < plan->candidates->len; i++)
      {
        const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
        const FwCostEstimate *cost = fw_candidate_get_cost (c);
        gint64 bytes;

        if (c->root == NULL)
          continue;
        bytes = fw_value_get_n_elements (c->root->outputs[0]) * 4;
        conv++;
        g_assert_cmpint (fw_kernel_spec_get_form (c->spec), ==, FW_KERNEL_FORM_EPILOGUE);
        g_assert_nonnull (strstr (fw_kernel_spec_get_form_reason (c->spec), "Conv"));
        /* CANN's Conv writes its result and the epilogue reads it back: both in the plan's bytes. */
        g_assert_cmpuint (cost->launches_after, ==, 2);
        g_assert_cmpfloat (cost->bytes_written_after, >=, (gdouble) bytes);
        g_assert_cmpfloat (cost->bytes_read_after, >=, (gdouble) bytes);
      }
    g_assert_cmpuint (conv, >, 0);
  }
}

/* The small models of the ops the real models need (fw-test-ascend-models.h), under every strategy that
 * fuses them: hard activations and a reduce epilogue, Compare/Select masks, LayerNormalization and
 * LogSoftmax nodes, scalar / row-vector / per-row broadcast operands. */
static void
test_small_models (void)
{
  static const FwStrategy strategies[] = { FW_STRATEGY_CONSERVATIVE, FW_STRATEGY_BALANCED, FW_STRATEGY_AGGRESSIVE };

  for (guint st = 0; st < G_N_ELEMENTS (strategies); st++)
    {
      check_model (fw_test_hard_model (), strategies[st], 0);
      check_model (fw_test_mask_model (), strategies[st], 0);
      check_model (fw_test_norm_model (), strategies[st], 0);
      check_model (fw_test_broadcast_model (TRUE, TRUE, TRUE), strategies[st], 1);
      check_model (fw_test_broadcast_model (TRUE, FALSE, FALSE), strategies[st], 1);
    }
  check_model (fw_test_hard_model (), FW_STRATEGY_BALANCED, 1);
  check_model (fw_test_mask_model (), FW_STRATEGY_BALANCED, 1);
  check_model (fw_test_norm_model (), FW_STRATEGY_BALANCED, 1);
}

/* Half precision: x (float16 [8, 128]) + c (a [128] row) -> Sigmoid -> Mul x -> Cast float, every
 * instruction rounding to binary16 on the twin. */
static void
test_float16 (void)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[2] = { FW_DIM_STATIC (8), FW_DIM_STATIC (128) };
  gint64 cd[1] = { 128 };
  guint16 half[128];
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < 128; i++)
    half[i] = fw_float_to_half ((float) i / 64.0f - 1.0f);
  bytes = g_bytes_new (half, sizeof half);
  t = fw_tensor_new (FW_DTYPE_FLOAT16, 1, cd, bytes);
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, d, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "c", t, NULL));
  add_node (g, "Add", "t0", "x", "c");
  add_node (g, "Sigmoid", "t1", "t0", NULL);
  add_node (g, "Mul", "t2", "t1", "x");
  add_node (g, "Cast", "y", "t2", NULL);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  check_model (model, FW_STRATEGY_BALANCED, 1);
}

/* The plan (balanced) of x [16, 256] float16 -> Softmax -> Erf -> Add x. */
static FwPlan *
softmax_erf_plan (void)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[2] = { FW_DIM_STATIC (16), FW_DIM_STATIC (256) };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, d, NULL));
  add_node (g, "Softmax", "t0", "x", NULL);
  add_node (g, "Erf", "t1", "t0", NULL);
  add_node (g, "Add", "y", "t1", "x");
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  return plan_for (model, FW_STRATEGY_BALANCED, NULL);
}

/* A float16 softmax and an erf after it (x [16, 256] half -> Softmax -> Erf -> Add x): the generator widens
 * the row and the erf composition to float32 with Cast.md's modes (half -> float CAST_NONE, float -> half
 * CAST_RINT), reduces in float (row scratch of float), keeps the Add in half, and the kernels pass on the
 * twin, every instruction in its own dtype. */
static void
test_float16_wide (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  gboolean widened = FALSE;
  Tally tally = { 0 };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  plan = softmax_erf_plan ();
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      g_autoptr(FwAscendKernel) k = fw_ascend_kernel_generate (plan, g_ptr_array_index (plan->candidates, i), &error);
      const char *src;

      g_assert_no_error (error);
      src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (k));
      if (strstr (src, "Softmax") == NULL && strstr (src, "Erf") == NULL)
        continue;
      widened = TRUE;
      g_assert_nonnull (strstr (src, "AscendC::RoundMode::CAST_NONE"));
      g_assert_nonnull (strstr (src, "AscendC::RoundMode::CAST_RINT"));
      g_assert_null (strstr (src, "CAST_ROUND"));
      if (strstr (src, "Softmax") != NULL)
        g_assert_nonnull (strstr (src, "AscendC::LocalTensor<float> sR = rowScratch.Get<float>();"));
      if (strstr (src, "Erf") != NULL)
        g_assert_nonnull (strstr (src, "AscendC::LocalTensor<float> sE = scratch4.Get<float>();"));
      g_assert_nonnull (strstr (src, "AscendC::LocalTensor<half>"));
    }
  g_assert_true (widened);
  check_plan (plan, &tally);
  g_assert_cmpuint (tally.failed, ==, 0);
  g_assert_cmpuint (tally.passed, >=, 1);
}

/* A float16 LayerNormalization and a Relu (x [16, 256] half, gamma and beta [256] half rows): mean, variance
 * and the affine step in float32 (the resident rows cast into float scratch rows), one CAST_RINT into the
 * normalised value, the Relu in half. */
static void
test_float16_layer_norm (void)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[2] = { FW_DIM_STATIC (16), FW_DIM_STATIC (256) };
  gint64 cd[1] = { 256 };
  const char *ins[3] = { "x", "gamma", "beta" }, *outs[1] = { "t0" };
  guint16 gamma[256], beta[256];
  g_autoptr(FwTensor) tg = NULL, tb = NULL;
  g_autoptr(GBytes) bg = NULL, bb = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) k = NULL;
  const char *src;
  Tally tally = { 0 };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      g_object_unref (model);
      return;
    }
  for (guint i = 0; i < 256; i++)
    {
      gamma[i] = fw_float_to_half (0.5f + (float) i / 256.0f);
      beta[i] = fw_float_to_half ((float) i / 128.0f - 1.0f);
    }
  bg = g_bytes_new (gamma, sizeof gamma);
  bb = g_bytes_new (beta, sizeof beta);
  tg = fw_tensor_new (FW_DTYPE_FLOAT16, 1, cd, bg);
  tb = fw_tensor_new (FW_DTYPE_FLOAT16, 1, cd, bb);
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT16, 2, d, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "gamma", tg, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "beta", tb, NULL));
  g_assert_nonnull (fw_graph_add_node (g, "LayerNormalization", "", "ln", 3, ins, 1, outs, NULL));
  add_node (g, "Relu", "y", "t0", NULL);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  plan = plan_for (model, FW_STRATEGY_BALANCED, NULL);
  g_assert_cmpuint (plan->candidates->len, ==, 1);
  k = fw_ascend_kernel_generate (plan, g_ptr_array_index (plan->candidates, 0), &error);
  g_assert_no_error (error);
  src = fw_kernel_source_get_main (fw_ascend_kernel_get_kernel_source (k));
  g_assert_nonnull (strstr (src, "/* the resident row */"));
  g_assert_nonnull (strstr (src, "AscendC::LocalTensor<float> sR = rowScratch.Get<float>();"));
  /* One rounding to half: the result's. */
  g_assert_nonnull (strstr (src, "CAST_RINT"));
  g_assert_null (strstr (strstr (src, "CAST_RINT") + 1, "CAST_RINT"));
  check_plan (plan, &tally);
  g_assert_cmpuint (tally.failed, ==, 0);
  g_assert_cmpuint (tally.passed, ==, 1);
}

/* The twin under the golden policy (fw_ascend_twin_check_policy): a float16 Softmax -> Erf -> Add kernel on
 * seeded inputs passes with the golden figures filled (its float32 islands no farther from the float32
 * golden than the per-op reference); with the reference's output spoiled, the strict verdict (against the
 * reference) fails and the golden one, measured against the golden run, does not. */
static void
test_float16_golden (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) k = NULL;
  g_autoptr(GHashTable) values = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  const FwCandidate *cand;
  const FwKernelSource *src;
  FwTwinCheck *strict, *golden;
  g_autofree char *why = NULL;
  FwArray *want;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  plan = softmax_erf_plan ();
  g_assert_cmpuint (plan->candidates->len, ==, 1);
  cand = g_ptr_array_index (plan->candidates, 0);
  k = fw_ascend_kernel_generate (plan, cand, &error);
  g_assert_no_error (error);
  src = fw_ascend_kernel_get_kernel_source (k);
  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
    g_hash_table_insert (values, fw_kernel_source_get_input (src, i), random_array (fw_kernel_source_get_input (src, i), rand));
  g_assert_true (reference (cand, values, &why));
  golden = fw_ascend_twin_check_policy (shared.twin, k, shared.profile, values, NULL, NULL, cand, FW_DTYPE_FLOAT);
  g_test_message ("golden: unfused %.3g, fused %.3g (max abs)", golden->unfused_golden.max_abs,
                  golden->fused_golden.max_abs);
  g_assert_true (golden->ran);
  g_assert_true (golden->pass);
  g_assert_cmpint (golden->golden, ==, FW_DTYPE_FLOAT);
  g_assert_cmpfloat (golden->unfused_golden.max_abs, >, 0.0);
  g_assert_cmpint (golden->fused_golden.n_failed, ==, 0);
  g_assert_cmpfloat (golden->fused_golden.max_abs, <=, golden->unfused_golden.max_abs * (1.0 + FW_GOLDEN_SLACK));
  fw_twin_check_free (golden);
  /* The reference's result spoiled: y + 0.5 everywhere. */
  want = g_hash_table_lookup (values, fw_kernel_source_get_output (src, 0));
  for (gint64 i = 0; i < want->n_elements; i++)
    fw_array_set_double (want, i, fw_array_get_double (want, i) + 0.5);
  strict = fw_ascend_twin_check (shared.twin, k, shared.profile, values, NULL, NULL);
  golden = fw_ascend_twin_check_policy (shared.twin, k, shared.profile, values, NULL, NULL, cand, FW_DTYPE_FLOAT);
  g_assert_false (strict->pass);
  g_assert_cmpint (strict->golden, ==, FW_DTYPE_UNDEFINED);
  g_assert_true (golden->pass);
  g_assert_cmpfloat (golden->unfused_golden.max_abs, >=, 0.49);
  fw_twin_check_free (strict);
  fw_twin_check_free (golden);
}

/* The bundled example model (data/examples/encoder-block.onnx). */
static void
test_example (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autoptr(GError) error = NULL;
  static const char *const binds[] = { "batch=2", NULL };

  for (guint st = 0; st < 3; st++)
    {
      FwModel *model = fw_onnx_load (path, NULL, NULL, &error);
      g_assert_no_error (error);
      check_model_bound (model, st == 0 ? FW_STRATEGY_BALANCED : st == 1 ? FW_STRATEGY_CONSERVATIVE : FW_STRATEGY_AGGRESSIVE,
                         binds, 1);
    }
}

/* Opt-in: FW_REAL_MODELS names a folder of the real models (tests/real; a model missing there is skipped with a
 * message, so the float16 forms run where the folder has them); every candidate of each, under
 * the three strategies, runs on the twin (slow), and every mixed cube + vector kernel's traffic is checked
 * against the plan (check_traffic). FW_REAL_MODELS_ONLY=NAME keeps one model, FW_REAL_MODELS_STRATEGY=
 * balanced (conservative, aggressive) one strategy. */
static void
test_real_models (void)
{
  static const struct { const char *file; const char *binds[3]; } models[] = {
    { "resnet18.onnx", { NULL } }, { "resnet50.onnx", { NULL } }, { "mobilenet_v3_small.onnx", { NULL } },
    { "bert_like.onnx", { NULL } }, { "vit_b_16.onnx", { NULL } }, { "swin_t.onnx", { NULL } },
    { "vit_b_16_dynamic.onnx", { "batch=3", NULL } }, { "bert_like_dynamic.onnx", { "batch=3", "seq=50", NULL } },
    { "llama_decoder.onnx", { "batch=2", "seq=32", NULL } },
    /* tests/real/convert-half.py's float16 forms (FW_REAL_MODELS naming their folder, FW_REAL_MODELS_ONLY=float16):
       half kernels with float32 islands, judged by the golden policy as `--verify` judges them */
    { "bert_like_float16.onnx", { NULL } }, { "resnet18_float16.onnx", { NULL } },
  };
  static const FwStrategy strategies[] = { FW_STRATEGY_BALANCED, FW_STRATEGY_CONSERVATIVE, FW_STRATEGY_AGGRESSIVE };
  static const char *const strategy_names[] = { "balanced", "conservative", "aggressive" };
  const char *dir = g_getenv ("FW_REAL_MODELS"), *only = g_getenv ("FW_REAL_MODELS_ONLY");
  const char *only_strategy = g_getenv ("FW_REAL_MODELS_STRATEGY");
  guint failed = 0, mixed = 0;

  if (dir == NULL || *dir == '\0')
    {
      g_test_skip ("set FW_REAL_MODELS to the folder of the real models");
      return;
    }
  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    for (guint st = 0; st < G_N_ELEMENTS (strategies); st++)
      {
        g_autofree char *path = g_build_filename (dir, models[m].file, NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(FwModel) model = NULL;
        g_autoptr(FwPlan) plan = NULL;
        Tally tally = { 0 };

        if ((only != NULL && strstr (models[m].file, only) == NULL) ||
            (only_strategy != NULL && strcmp (only_strategy, strategy_names[st]) != 0))
          continue;
        if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
          {
            g_test_message ("%s missing", path);
            continue;
          }
        model = fw_onnx_load (path, NULL, NULL, &error);
        g_assert_no_error (error);
        plan = plan_for (g_object_ref (model), strategies[st], models[m].binds[0] ? models[m].binds : NULL);
        g_test_message ("%s, %s:", models[m].file, strategy_names[st]);
        check_plan (plan, &tally);
        failed += tally.failed;
        mixed += tally.mixed;
      }
  g_test_message ("%u mixed cube + vector kernels in all", mixed);
  g_assert_cmpuint (failed, ==, 0);
}

static void
shared_free (void)
{
  fw_test_twin_clear (&shared);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ascend-twin/transformer/balanced", test_transformer_balanced);
  g_test_add_func ("/core/ascend-twin/transformer/conservative", test_transformer_conservative);
  g_test_add_func ("/core/ascend-twin/transformer/aggressive", test_transformer_aggressive);
  g_test_add_func ("/core/ascend-twin/conv-block", test_conv_block);
  g_test_add_func ("/core/ascend-twin/chain", test_chain);
  g_test_add_func ("/core/ascend-twin/float16", test_float16);
  g_test_add_func ("/core/ascend-twin/float16-wide", test_float16_wide);
  g_test_add_func ("/core/ascend-twin/float16-golden", test_float16_golden);
  g_test_add_func ("/core/ascend-twin/float16-layer-norm", test_float16_layer_norm);
  g_test_add_func ("/core/ascend-twin/small-models", test_small_models);
  g_test_add_func ("/core/ascend-twin/cube-forms", test_cube_forms);
  g_test_add_func ("/core/ascend-twin/example", test_example);
  g_test_add_func ("/core/ascend-twin/real-models", test_real_models);
  status = g_test_run ();
  shared_free ();
  return status;
}
