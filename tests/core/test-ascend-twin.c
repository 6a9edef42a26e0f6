/* The Ascend C twin (data/ascend/twin, run by core/codegen/fw-ascend-twin.c): generated kernels of
 * the test models run on it and match the reference interpreter; each rule it enforces fails a kernel
 * written to break it (the .cpp files of tests/twin), with the exact diagnostic or the wrong numbers it must produce;
 * and the ReduceSum page's own example computes the page's result. Skipped without a C++ compiler. */
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

/* A fixture's text with its local includes (tests/twin) pasted in, #line keeping files and lines. */
static void
append_fixture (GString *s, const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "twin", name, NULL);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  lines = g_strsplit (text, "\n", -1);
  g_string_append_printf (s, "#line 1 \"%s\"\n", name);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char inc[128];
      if (sscanf (lines[i], "#include \"%127[^\"]\"", inc) == 1 && strcmp (inc, "kernel_operator.h") != 0 &&
          !g_str_has_prefix (inc, "lib/"))
        {
          append_fixture (s, inc);
          g_string_append_printf (s, "#line %u \"%s\"\n", i + 2, name);
          continue;
        }
      g_string_append (s, lines[i]);
      g_string_append_c (s, '\n');
    }
}

/* The run's diagnostics in the test log, each after what. */
static void
log_diagnostics (FwTwinRun *run, const char *what)
{
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("%s: %s %s:%d: %s", what, e->code, e->file, e->line, e->message);
    }
}

/* Runs tests/twin/NAME (after `defines`) on x = 0, 1, 2, ... of n floats over `blocks` blocks of tiles
 * of `tile` elements; *y receives the output. */
static FwTwinRun *
run_fixture (const char *name, const char *defines, gint64 n, gint64 tile, guint blocks, FwDType dtype, FwArray **y)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (defines ? defines : "");
  g_autoptr(FwArray) x = fw_array_new (dtype, 1, &n, &error);
  gint64 tiles = (n + tile - 1) / tile;
  FwTwinKernel k = { "fixture", name, NULL, NULL, NULL,
                     { (guint64) n, (guint64) tile, (guint64) tiles, 0, 0, blocks, (guint64) ((tiles + blocks - 1) / blocks) },
                     blocks };
  FwTwinRun *run;

  append_fixture (text, name);
  k.kernel_source = text->str;
  for (gint64 i = 0; i < n; i++)
    fw_array_set_double (x, i, (double) i);
  *y = fw_array_new0 (dtype, 1, &n, &error);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, y, 1, &error);
  g_assert_no_error (error);
  log_diagnostics (run, name);
  return run;
}

/* y = 2x everywhere. */
static gboolean
doubled (const FwArray *y)
{
  for (gint64 i = 0; i < y->n_elements; i++)
    if (fw_array_get_double (y, i) != 2.0 * (double) i)
      return FALSE;
  return TRUE;
}

typedef struct
{
  const char *file;
  const char *defines;
  const char *code;     /* the diagnostic it must produce, or NULL: only the numbers are wrong */
  gint        line;     /* its line in the fixture, or 0 not checked */
  gint64      n, tile;
  guint       blocks;
} Broken;

static const Broken broken[] = {
  { "unaligned_copy.cpp", NULL, "FW-TWIN-UNALIGNED", 16, 64, 64, 1 },
  { "ub_capacity.cpp", NULL, "FW-TWIN-UB-CAPACITY", 13, 64, 64, 1 },
  { "missing_wait.cpp", NULL, "FW-TWIN-UNSYNCED", 24, 64, 64, 1 },
  { "read_freed.cpp", NULL, "FW-TWIN-FREED", 21, 64, 64, 1 },
  { "double_free.cpp", NULL, "FW-TWIN-DOUBLE-FREE", 26, 64, 64, 1 },
  { "leak.cpp", NULL, "FW-TWIN-LEAK", 13, 64, 64, 1 },
  { "gm_race.cpp", NULL, "FW-TWIN-GM-RACE", 0, 64, 64, 4 },
  { "wrong_block_offset.cpp", NULL, "FW-TWIN-GM-RACE", 0, 1000, 64, 4 },
  { "skip_tail.cpp", NULL, "FW-TWIN-OUTPUT-UNWRITTEN", 0, 1000, 64, 4 },
  { "events.cpp", NULL, "FW-TWIN-EVENT-DUP", 11, 64, 64, 1 },
  { "events.cpp", NULL, "FW-TWIN-EVENT-UNPAIRED", 13, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 1\n", "FW-TWIN-GM-BOUNDS", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 2\n", "FW-TWIN-UB-BOUNDS", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 3\n", "FW-TWIN-QUEUE-EMPTY", 0, 64, 64, 1 },
  { "bounds.cpp", "#define BROKEN 4\n", "FW-TWIN-MASK-COUNT", 0, 64, 64, 1 },
  { "block_order.cpp", NULL, "FW-TWIN-BLOCK-ORDER", 0, 256, 64, 4 },
  { "rules.cpp", "#define BROKEN 1\n", "FW-TWIN-BUFFER-COUNT", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 2\n", "FW-TWIN-QUE-LIMIT", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 3\n", "FW-TWIN-QUEUE-EXHAUSTED", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 4\n", "FW-TWIN-QUEUE-DEPTH", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 5\n", "FW-TWIN-STATE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 6\n", "FW-TWIN-PAD-PARAMS", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 7\n", "FW-TWIN-REDUCE-TMP", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 8\n", "FW-TWIN-SELECT-MODE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 9\n", "FW-TWIN-GM-INPUT-WRITE", 0, 64, 64, 1 },
  { "rules.cpp", "#define BROKEN 10\n", "FW-TWIN-GM-GUARD", 0, 64, 64, 1 },
  { "copy_rounds_down.cpp", NULL, NULL, 0, 16, 16, 1 },
  { "repeat_forms.cpp", "#define BROKEN 1\n", "FW-TWIN-REPEAT", 34, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 2\n", "FW-TWIN-MASK", 44, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 3\n", "FW-TWIN-UB-BOUNDS", 34, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 4\n", "FW-TWIN-STRIDE", 44, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 5\n", "FW-TWIN-STRIDE", 37, 64, 64, 1 },
  { "repeat_forms.cpp", "#define BROKEN 6\n", "FW-TWIN-MASK", 41, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 1\n", "FW-TWIN-CAST-MODE", 42, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 2\n", "FW-TWIN-CAST-MODE", 45, 64, 64, 1 },
  { "cast_modes.cpp", "#define BROKEN 3\n", "FW-TWIN-CAST-MODE", 49, 64, 64, 1 },
};

/* Each broken kernel gives its diagnostic at its line, and none is wrong silently: with no diagnostic to
 * give (a DataCopy relying on a length that is not a 32-byte multiple), y is not 2x. */
static void
test_broken (gconstpointer data)
{
  const Broken *b = data;
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinDiagnostic *d;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture (b->file, b->defines, b->n, b->tile, b->blocks, FW_DTYPE_FLOAT, &y);
  if (b->code == NULL)
    {
      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_assert_false (doubled (y));
      g_assert_cmpfloat (fw_array_get_double (y, 7), ==, 14.0);
      g_assert_cmpfloat (fw_array_get_double (y, 8), !=, 16.0);
      return;
    }
  d = fw_twin_run_find (run, b->code);
  g_assert_nonnull (d);
  if (b->line > 0)
    {
      g_assert_cmpstr (d->file, ==, b->file);
      g_assert_cmpint (d->line, ==, b->line);
    }
}

/* The correct kernels run clean and compute y = 2x, over one block and several, a partial last tile
 * included; the event pair that missing_wait.cpp lacks makes it correct. */
static void
test_correct (void)
{
  static const struct { const char *file; gint64 n, tile; guint blocks; } ok[] = {
    { "good.cpp", 64, 64, 1 }, { "good.cpp", 1000, 64, 4 }, { "good.cpp", 1000, 96, 3 }, { "with_wait.cpp", 64, 64, 1 },
    { "rules.cpp", 64, 64, 1 },
  };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      g_autoptr(FwArray) y = NULL;
      g_autoptr(FwTwinRun) run = run_fixture (ok[i].file, "#define BROKEN 0\n", ok[i].n, ok[i].tile, ok[i].blocks,
                                              FW_DTYPE_FLOAT, &y);

      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_assert_true (doubled (y));
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte2_bytes, ==, (guint64) ok[i].n * 4);
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, (guint64) ok[i].n * 4);
    }
}

/* What each block moved and issued, exactly: good.cpp over 1000 floats in tiles of 64 on 4 blocks gives
 * blocks 0-2 256 elements (4 tiles) and block 3 232 (3 tiles and one of 40); each tile is one DataCopy in,
 * one Muls, one DataCopy out. */
static void
test_counters (void)
{
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const GArray *blocks;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture ("good.cpp", "#define BROKEN 0\n", 1000, 64, 4, FW_DTYPE_FLOAT, &y);
  blocks = fw_twin_run_get_blocks (run);
  g_assert_cmpuint (blocks->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      const FwTwinBlockCounts *b = &g_array_index (blocks, FwTwinBlockCounts, i);
      guint64 elements = i < 3 ? 256 : 232;
      const FwTwinVectorKind *k;

      g_assert_cmpuint (b->mte2_bytes, ==, elements * 4);
      g_assert_cmpuint (b->mte3_bytes, ==, elements * 4);
      g_assert_cmpuint (b->mte2_copies, ==, 4);
      g_assert_cmpuint (b->mte3_copies, ==, 4);
      g_assert_cmpuint (b->mte2_max_copy, ==, 256);
      g_assert_cmpuint (b->cube_macs, ==, 0);
      g_assert_cmpuint (b->kinds->len, ==, 1);
      k = &g_array_index (b->kinds, FwTwinVectorKind, 0);
      g_assert_cmpstr (k->name, ==, "Muls");
      g_assert_cmpuint (k->dst_size, ==, 4);
      g_assert_cmpuint (k->src_size, ==, 4);
      g_assert_cmpuint (k->calls, ==, 4);
      g_assert_cmpuint (k->elements, ==, elements);
      /* One 256-byte repeat per tile of 64 floats, and one for the tail's 40. */
      g_assert_cmpuint (k->repeats, ==, 4);
    }
}

/* tests/twin/repeat_forms.cpp: 8 rows of 7 floats (x = 0 ... 63, a row every 8) with the high-dimensional
 * slicing forms: row r's sum is 56r + 21 and its largest 8r + 6, so y = x - 48r - 15 on the 7 lanes of each row
 * and x on the eighth, which every mask leaves alone. Each instruction counts as one call of its repeats. */
static void
test_repeat_forms (void)
{
  static const struct { const char *name; guint64 repeats; } kinds[] = {
    { "Muls", 1 }, { "WholeReduceSum", 8 }, { "WholeReduceMax", 8 }, { "Sub", 1 }, { "Brcb", 1 }, { "Add", 8 },
  };
  g_autoptr(FwArray) y = NULL;
  g_autoptr(FwTwinRun) run = NULL;
  const FwTwinBlockCounts *b;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_fixture ("repeat_forms.cpp", "#define BROKEN 0\n", 64, 64, 1, FW_DTYPE_FLOAT, &y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < 64; i++)
    g_assert_cmpfloat (fw_array_get_double (y, i), ==, i % 8 == 7 ? (double) i : (double) (i - 48 * (i / 8) - 15));
  b = &g_array_index (fw_twin_run_get_blocks (run), FwTwinBlockCounts, 0);
  g_assert_cmpuint (b->kinds->len, ==, G_N_ELEMENTS (kinds));
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      const FwTwinVectorKind *k = &g_array_index (b->kinds, FwTwinVectorKind, i);
      g_assert_cmpstr (k->name, ==, kinds[i].name);
      g_assert_cmpuint (k->calls, ==, 1);
      g_assert_cmpuint (k->repeats, ==, kinds[i].repeats);
      g_assert_cmpuint (k->elements, ==, kinds[i].repeats * 64);
    }
  g_assert_cmpuint (fw_twin_run_get_counts (run)->vector_instructions, ==, 6);
  g_assert_cmpuint (fw_twin_run_get_counts (run)->vector_repeats, ==, 27);
}

/* ReduceSum.md's example: [60000, 60000, -30000, 100] in half sums by a binary tree whose partial sums
 * saturate at 65504: 65504 + (-29900) = 35604 on the page, in exact arithmetic. The twin rounds every partial
 * sum to binary16 (-29900 is -29904 there, 65504 - 29904 = 35600, a tie that rounds to even: 35584), one
 * binary16 step (32) from the page's figure; a sum without saturation would be inf. */
static void
test_reduce_sum_example (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 n_in = 128, n_out = 16;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  FwTwinKernel k = { "fixture", "reduce_sum_example.cpp", NULL, NULL, NULL, { 128, 128, 1, 0, 0, 1, 1 }, 1 };
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  append_fixture (text, "reduce_sum_example.cpp");
  k.kernel_source = text->str;
  fw_array_set_double (x, 0, 60000);
  fw_array_set_double (x, 1, 60000);
  fw_array_set_double (x, 2, -30000);
  fw_array_set_double (x, 3, 100);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, &y, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  g_assert_cmpfloat (fabs (fw_array_get_double (y, 0) - 35604.0), <=, 32.0);
  g_assert_cmpfloat (fw_array_get_double (y, 0), ==, 35584.0);
}

/* Runs tests/twin/NAME (after `defines`) on x, one block, one tile; *y (allocated by the caller) receives
 * the output. */
static FwTwinRun *
run_fixture_on (const char *name, const char *defines, FwArray *x, FwArray *y)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (defines);
  FwTwinKernel k = { "fixture", name, NULL, NULL, NULL, { (guint64) x->n_elements, (guint64) x->n_elements, 1, 0, 0, 1, 1 }, 1 };
  FwTwinRun *run;

  append_fixture (text, name);
  k.kernel_source = text->str;
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, &x, 1, &y, 1, &error);
  g_assert_no_error (error);
  log_diagnostics (run, name);
  return run;
}

/* Cast.md's float -> half round modes (tests/twin/cast_modes.cpp): the page's example 0.5 + 2^-12 (a tie),
 * its negative, a tie between an odd and an even neighbour (0.5 + 3 2^-12), a value a quarter step past 0.5,
 * an exact one and one past the half range (saturating at 65504). A twin that rounded every mode to nearest
 * even, or ignored the sign in FLOOR/CEIL, fails here. */
static void
test_cast_modes (void)
{
  static const double u = 1.0 / 2048.0;  /* 2^-11: one binary16 step at 0.5 */
  static const struct { double x; double y[7]; } rows[] = {
    /*            NONE       RINT       FLOOR      CEIL       ROUND      TRUNC      ODD */
    { 0.5 + u / 2, { 0.5, 0.5, 0.5, 0.5 + u, 0.5 + u, 0.5, 0.5 + u } },
    { -(0.5 + u / 2), { -0.5, -0.5, -0.5 - u, -0.5, -0.5 - u, -0.5, -0.5 - u } },
    { 0.5 + 1.5 * u, { 0.5 + 2 * u, 0.5 + 2 * u, 0.5 + u, 0.5 + 2 * u, 0.5 + 2 * u, 0.5 + u, 0.5 + u } },
    { 0.5 + u / 4, { 0.5, 0.5, 0.5, 0.5 + u, 0.5, 0.5, 0.5 + u } },
    { 1.0, { 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0 } },
    { 1e5, { 65504, 65504, 65504, 65504, 65504, 65504, 65504 } },
  };
  gint64 n_in = 16, n_out = 128;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    fw_array_set_double (x, i, rows[i].x);
  run = run_fixture_on ("cast_modes.cpp", "#define BROKEN 0\n", x, y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint m = 0; m < 7; m++)
      {
        g_test_message ("x %.9g mode %u: %.9g, expected %.9g", rows[i].x, m, fw_array_get_double (y, 16 * m + i),
                        rows[i].y[m]);
        g_assert_cmpfloat (fw_array_get_double (y, 16 * m + i), ==, rows[i].y[m]);
      }
}

/* Each instruction in its own type (tests/twin/half_round.cpp): 2048 + 1 in a half Adds is 2048 (the tie to
 * even), in a float Adds 2049, which CAST_CEIL takes to 2050. */
static void
test_half_round (void)
{
  gint64 n_in = 16, n_out = 32;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);
  g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (gint64 i = 0; i < n_in; i++)
    fw_array_set_double (x, i, 2048.0);
  run = run_fixture_on ("half_round.cpp", "", x, y);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < n_in; i++)
    {
      g_assert_cmpfloat (fw_array_get_double (y, i), ==, 2048.0);
      g_assert_cmpfloat (fw_array_get_double (y, 16 + i), ==, 2050.0);
    }
}

/* A float16 mean over 4096 values of 20 (tests/twin/half_mean.cpp): accumulated in float32 it is 20; summed in
 * half, as a half ReduceSum does, the sum saturates at 65504 and the mean is 15.99. */
static void
test_half_mean (void)
{
  gint64 n_in = 4096, n_out = 16;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_in, &error);

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (gint64 i = 0; i < n_in; i++)
    fw_array_set_double (x, i, 20.0);
  for (int variant = 0; variant < 2; variant++)
    {
      g_autofree char *defines = g_strdup_printf ("#define BROKEN %d\n", variant);
      g_autoptr(FwArray) y = fw_array_new0 (FW_DTYPE_FLOAT16, 1, &n_out, &error);
      g_autoptr(FwTwinRun) run = run_fixture_on ("half_mean.cpp", defines, x, y);

      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_test_message ("variant %d: mean %.9g", variant, fw_array_get_double (y, 0));
      if (variant == 0)
        g_assert_cmpfloat (fw_array_get_double (y, 0), ==, 20.0);
      else
        g_assert_cmpfloat (fabs (fw_array_get_double (y, 0) - 20.0), >, 1.0);
    }
}

/* tests/twin/matmul.cpp (after `#define BROKEN variant`) on seeded A [48, 40], B [40, 32], bias [32] over two
 * blocks; *c receives C, *ref 2 (A B + bias) in double. */
static FwTwinRun *
run_matmul (int variant, FwArray **c, FwArray **ref)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *defines = g_strdup_printf ("#define BROKEN %d\n", variant);
  g_autoptr(GString) text = g_string_new (defines);
  gint64 da[2] = { 48, 40 }, db[2] = { 40, 32 }, dbias = 32, dc[2] = { 48, 32 };
  g_autoptr(FwArray) a = fw_array_new (FW_DTYPE_FLOAT, 2, da, &error);
  g_autoptr(FwArray) b = fw_array_new (FW_DTYPE_FLOAT, 2, db, &error);
  g_autoptr(FwArray) bias = fw_array_new (FW_DTYPE_FLOAT, 1, &dbias, &error);
  FwArray *in[3] = { a, b, bias };
  FwTwinKernel k = { "fixture", "matmul.cpp", NULL, NULL, NULL, { 0 }, 2 };
  FwTwinRun *run;

  append_fixture (text, "matmul.cpp");
  k.kernel_source = text->str;
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, (double) ((i * 37) % 17) / 8.0 - 1.0);
  for (gint64 i = 0; i < b->n_elements; i++)
    fw_array_set_double (b, i, (double) ((i * 11) % 13) / 6.0 - 1.0);
  for (gint64 i = 0; i < bias->n_elements; i++)
    fw_array_set_double (bias, i, (double) i / 16.0);
  *c = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  *ref = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  for (gint64 i = 0; i < 48; i++)
    for (gint64 j = 0; j < 32; j++)
      {
        double s = fw_array_get_double (bias, j);
        for (gint64 q = 0; q < 40; q++)
          s += fw_array_get_double (a, i * 40 + q) * fw_array_get_double (b, q * 32 + j);
        fw_array_set_double (*ref, i * 32 + j, 2.0 * s);
      }
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 3, c, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("matmul %d: %s %s:%d: %s", variant, e->code, e->file, e->line, e->message);
    }
  return run;
}

/* The Matmul API's contract: the correct mixed kernel runs clean, computes C block by block in GetTensorC's
 * order (M first) with float accumulation, and moves A, B and the bias from GM once per block that needs
 * them (L1 keeps B's columns while M advances) and C out once; each broken variant gives its code. */
static void
test_matmul (void)
{
  static const struct { int variant; const char *code; gint line; } broken_mm[] = {
    { 1, "FW-TWIN-MATMUL-TILING", 36 }, { 2, "FW-TWIN-L0-CAPACITY", 36 }, { 3, "FW-TWIN-L1-CAPACITY", 36 },
    { 4, "FW-TWIN-MATMUL-ORDER", 48 }, { 5, "FW-TWIN-MATMUL-C-SIZE", 61 }, { 6, "FW-TWIN-MATMUL-ORDER", 56 },
    { 7, "FW-TWIN-MATMUL-ORDER", 36 }, { 8, "FW-TWIN-MATMUL-TILING", 36 }, { 9, "FW-TWIN-MATMUL-TILING", 36 },
  };
  g_autoptr(FwArray) c = NULL;
  g_autoptr(FwArray) ref = NULL;
  g_autoptr(FwTwinRun) run = NULL;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  run = run_matmul (0, &c, &ref);
  g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
  for (gint64 i = 0; i < c->n_elements; i++)
    g_assert_cmpfloat (fabs (fw_array_get_double (c, i) - fw_array_get_double (ref, i)), <=,
                       1e-5 + 1e-4 * fabs (fw_array_get_double (ref, i)));
  /* Per core: A's 24 rows twice (M advances first, so A's block changes at every Iterate), B's columns and
   * the bias once per column block (they stay in L1 while M advances); C out once. */
  g_assert_cmpuint (fw_twin_run_get_counts (run)->mte2_bytes, ==, 2 * (2 * 24 * 40 * 4 + 32 * (40 + 1) * 4));
  g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, 48 * 32 * 4);
  /* Per core, the cube's share: 24 x 32 x 40 multiply-adds, and the GM bytes above as the cube's own. */
  for (guint i = 0; i < 2; i++)
    {
      const FwTwinBlockCounts *b = &g_array_index (fw_twin_run_get_blocks (run), FwTwinBlockCounts, i);
      g_assert_cmpuint (b->cube_macs, ==, 24 * 32 * 40);
      g_assert_cmpuint (b->cube_bytes, ==, 2 * 24 * 40 * 4 + 32 * (40 + 1) * 4);
      g_assert_cmpuint (b->cube_bytes, ==, b->mte2_bytes);
      g_assert_cmpuint (b->cube_size, ==, 4);
    }
  for (guint i = 0; i < G_N_ELEMENTS (broken_mm); i++)
    {
      g_autoptr(FwArray) c2 = NULL;
      g_autoptr(FwArray) ref2 = NULL;
      g_autoptr(FwTwinRun) r = run_matmul (broken_mm[i].variant, &c2, &ref2);
      const FwTwinDiagnostic *d = fw_twin_run_find (r, broken_mm[i].code);

      g_assert_nonnull (d);
      g_assert_cmpstr (d->file, ==, "matmul.cpp");
      g_assert_cmpint (d->line, ==, broken_mm[i].line);
    }
}

/* tests/twin/matmul_tiled.cpp under the tiling t on seeded A, B and bias of the shape; *c receives C. */
static FwTwinRun *
run_tiled (const FwCubeShape *shape, gboolean trans_b, const FwCubeTiling *t, FwArray **c, FwArray **a, FwArray **b,
           FwArray **bias)
{
  g_autoptr(GError) error = NULL;
  gint64 da[2] = { shape->m, shape->k }, db[2] = { trans_b ? shape->n : shape->k, trans_b ? shape->k : shape->n };
  gint64 dc[2] = { shape->m, shape->n }, dbias = shape->n;
  g_autoptr(GString) text = g_string_new (NULL);
  FwTwinKernel k = { "fixture", "matmul_tiled.cpp", NULL, NULL, NULL, { 0 }, 1 };
  FwArray *in[3];
  FwTwinRun *run;

  *a = fw_array_new (FW_DTYPE_FLOAT, 2, da, &error);
  *b = fw_array_new (FW_DTYPE_FLOAT, 2, db, &error);
  *bias = fw_array_new (FW_DTYPE_FLOAT, 1, &dbias, &error);
  *c = fw_array_new0 (FW_DTYPE_FLOAT, 2, dc, &error);
  in[0] = *a;
  in[1] = *b;
  in[2] = *bias;
  g_string_append_printf (text,
    "#define FW_TRANS_B %s\n#define FW_TILING t.usedCoreNum = %d; t.M = %d; t.N = %d; t.Ka = t.Kb = t.singleCoreK = %d; "
    "t.singleCoreM = %d; t.singleCoreN = %d; t.baseM = %d; t.baseN = %d; t.baseK = %d; t.depthA1 = %d; "
    "t.depthB1 = %d; t.stepM = %d; t.stepN = %d; t.stepKa = %d; t.stepKb = %d; t.isBias = %d; "
    "t.iterateOrder = %d; t.dbL0A = %d; t.dbL0B = %d; t.dbL0C = %d\n",
    trans_b ? "true" : "false", t->used_core_num, t->m, t->n, t->ka, t->single_core_m, t->single_core_n, t->base_m,
    t->base_n, t->base_k, t->depth_a1, t->depth_b1, t->step_m, t->step_n, t->step_ka, t->step_kb, t->is_bias,
    t->iterate_order, t->db_l0a, t->db_l0b, t->db_l0c);
  append_fixture (text, "matmul_tiled.cpp");
  k.kernel_source = text->str;
  k.blocks = (guint) t->used_core_num;
  for (gint64 e = 0; e < (*a)->n_elements; e++)
    fw_array_set_double (*a, e, (double) ((e * 37) % 17) / 8.0 - 1.0);
  for (gint64 e = 0; e < (*b)->n_elements; e++)
    fw_array_set_double (*b, e, (double) ((e * 11) % 13) / 6.0 - 1.0);
  for (gint64 e = 0; e < (*bias)->n_elements; e++)
    fw_array_set_double (*bias, e, (double) (e % 9) / 4.0 - 1.0);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 3, c, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    g_test_message ("%s:%d: %s %s", fw_twin_run_get_diagnostic (run, d)->file, fw_twin_run_get_diagnostic (run, d)->line,
                    fw_twin_run_get_diagnostic (run, d)->code, fw_twin_run_get_diagnostic (run, d)->message);
  return run;
}

/* The host's cube tiling (fw_ascend_cube_tiling) for shapes with M, N and K tails, small M (N split across
 * cores too), a transposed B (Gemm's transB), the matrix sizes of the real models and a short wide product
 * whose A panel stays in L1 while N advances: tests/twin/matmul_tiled.cpp runs each on the twin clean (the
 * tiling passes REGIST_MATMUL_OBJ's checks against the profile's L1/L0), every element of Relu (A B + bias)
 * within the float32 tolerance of a double reference, C written to GM once and A, B and the bias read exactly
 * as fw_ascend_cube_traffic prices them. The same tiling with A's panel made too large for L1 is refused. */
static void
test_cube_tiling (void)
{
  static const struct { gint64 m, n, k; gboolean trans_b; } shapes[] = {
    { 50, 40, 24, FALSE }, { 200, 96, 72, TRUE }, { 16, 16, 8, FALSE }, { 128, 768, 768, FALSE },
    { 64, 1000, 512, TRUE }, { 394, 48, 100, FALSE }, { 197, 576, 768, TRUE },
  };

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr(GError) error = NULL;
      FwCubeShape shape = { shapes[i].m, shapes[i].n, shapes[i].k, 4, 4, 4 };
      FwCubeTiling t;
      g_autoptr(FwArray) a = NULL;
      g_autoptr(FwArray) b = NULL;
      g_autoptr(FwArray) bias = NULL;
      g_autoptr(FwArray) c = NULL;
      g_autoptr(FwTwinRun) run = NULL;

      g_assert_true (fw_ascend_cube_tiling (&shape, shared.profile, 4, shared.profile->ub_bytes / 4, &t, &error));
      g_assert_no_error (error);
      g_test_message ("%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ": cores %d, single %dx%d, base %dx%dx%d, "
                      "depth %d/%d, step %d/%d, order %d, %.0f bytes",
                      shape.m, shape.n, shape.k, t.used_core_num, t.single_core_m, t.single_core_n, t.base_m, t.base_n,
                      t.base_k, t.depth_a1, t.depth_b1, t.step_m, t.step_n, t.iterate_order,
                      fw_ascend_cube_traffic (&t, &shape));
      g_assert_cmpint (t.used_core_num, <=, (gint) shared.profile->cube_cores);
      run = run_tiled (&shape, shapes[i].trans_b, &t, &c, &a, &b, &bias);
      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      for (gint64 r = 0; r < shape.m; r++)
        for (gint64 q = 0; q < shape.n; q++)
          {
            double want = fw_array_get_double (bias, q);
            for (gint64 e = 0; e < shape.k; e++)
              want += fw_array_get_double (a, r * shape.k + e) *
                      fw_array_get_double (b, shapes[i].trans_b ? q * shape.k + e : e * shape.n + q);
            want = MAX (want, 0.0);
            g_assert_cmpfloat (fabs (fw_array_get_double (c, r * shape.n + q) - want), <=, 1e-5 + 1e-4 * fabs (want) + 1e-6 * shape.k);
          }
      g_assert_cmpuint (fw_twin_run_get_counts (run)->mte3_bytes, ==, (guint64) (shape.m * shape.n * 4));
      g_assert_cmpfloat (fw_twin_run_get_counts (run)->mte2_bytes, ==, fw_ascend_cube_traffic (&t, &shape));
      if (shapes[i].m == 197)
        {
          guint64 l1, l0a, l0b, l0c;
          gint64 m_shares = (shape.m + t.single_core_m - 1) / t.single_core_m;
          gint64 n_shares = (shape.n + t.single_core_n - 1) / t.single_core_n;
          g_autoptr(FwArray) c2 = NULL;
          g_autoptr(FwArray) a2 = NULL;
          g_autoptr(FwArray) b2 = NULL;
          g_autoptr(FwArray) bias2 = NULL;
          g_autoptr(FwTwinRun) over = NULL;
          const FwTwinDiagnostic *d;

          /* No core reads its rows of A or its columns of B twice: each is read once per share of the other. */
          g_assert_cmpfloat (fw_ascend_cube_traffic (&t, &shape), ==,
                             (gdouble) n_shares * shape.m * shape.k * 4 + (gdouble) m_shares * shape.n * (shape.k + 1) * 4);
          /* The A panel grown past L1: the twin refuses the tiling at REGIST_MATMUL_OBJ. */
          do
            {
              t.step_m *= 2;
              t.depth_a1 = t.step_m * t.step_ka;
              fw_ascend_cube_tiling_usage (&t, &shape, &l1, &l0a, &l0b, &l0c);
            }
          while (l1 <= shared.profile->l1_bytes);
          over = run_tiled (&shape, shapes[i].trans_b, &t, &c2, &a2, &b2, &bias2);
          d = fw_twin_run_find (over, "FW-TWIN-L1-CAPACITY");
          g_assert_nonnull (d);
          g_assert_cmpstr (d->file, ==, "matmul_tiled.cpp");
        }
    }
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
  g_test_add_func ("/core/ascend-twin/correct", test_correct);
  g_test_add_func ("/core/ascend-twin/counters", test_counters);
  g_test_add_func ("/core/ascend-twin/reduce-sum-example", test_reduce_sum_example);
  g_test_add_func ("/core/ascend-twin/cast-modes", test_cast_modes);
  g_test_add_func ("/core/ascend-twin/half-mean", test_half_mean);
  g_test_add_func ("/core/ascend-twin/half-round", test_half_round);
  g_test_add_func ("/core/ascend-twin/repeat-forms", test_repeat_forms);
  g_test_add_func ("/core/ascend-twin/matmul", test_matmul);
  g_test_add_func ("/core/ascend-twin/cube-tiling", test_cube_tiling);
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autofree char *path = g_strdup_printf ("/core/ascend-twin/broken/%.*s%s%s", (int) strcspn (broken[i].file, "."),
                                               broken[i].file, broken[i].defines ? "-" : "",
                                               broken[i].defines ? broken[i].defines + strlen ("#define BROKEN ") : "");
      g_strchomp (path);
      if (i > 0 && strcmp (broken[i].file, broken[i - 1].file) == 0 && broken[i].defines == NULL)
        {
          g_free (path);
          path = g_strdup_printf ("/core/ascend-twin/broken/%.*s-%s", (int) strcspn (broken[i].file, "."),
                                  broken[i].file, broken[i].code);
        }
      g_test_add_data_func (path, &broken[i], test_broken);
    }
  status = g_test_run ();
  shared_free ();
  return status;
}
