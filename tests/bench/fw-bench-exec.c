/* fw-bench-exec: host SuperKernels against what they replace, as ratios measured in the same run.
 *
 *   fw-bench-exec [BERT_LIKE.onnx]
 *
 * 1. An elementwise chain of 8 arithmetic ops (Add, Mul, Relu, Sub, Neg, Div, Abs, Add; scalar operands) on
 *    64 Mi float32 elements (FW_BENCH_ELEMS overrides): the SuperKernel's bandwidth (bytes read + written /
 *    time) against a STREAM-style triad a = b + s·c over arrays of the same length with the same threads
 *    (bar: at least 80 %; triad and kernel samples alternate, so both see the same load), and its time
 *    against the chain's ops run one by one on the reference kernels (bar: at least 4x faster). Both write
 *    through the cache (a store first reads its line), so 89 % is the ceiling at equal memory traffic.
 * 2. LayerNorm and erf-GELU SuperKernels on bert_like's shapes (the model given, else a generated encoder
 *    layer of the same width): each against its unfused ops (bar: at least 2x). The model's GELU is the
 *    epilogue of its MLP's MatMul, whose time that group's ratio mostly measures, so that ratio is printed
 *    for information and the bar is taken on a standalone erf-GELU (x/√2 → Erf → +1 → ×x → ×0.5, as
 *    exporters emit it) on the shape of that MatMul's output: the MLP's hidden activation.
 * Medians of FW_BENCH_REPEAT (default 5) samples. Exit 1 when a bar fails, 77 when no C compiler is found.
 * Never a unit test: times on shared machines are noisy. The whole-model and ONNX Runtime comparisons are
 * in run-exec-bench.sh. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/fw-targets.h"
#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "hw/fw-host-tuning.h"
#include "fw-test-models.h"
#include "onnx/fw-onnx.h"

static int repeat = 5;
static gboolean failed;

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median (double *v, int n)
{
  qsort (v, n, sizeof *v, compare_double);
  return v[n / 2];
}

static void
bar (const char *what, double value, double limit, const char *unit)
{
  gboolean ok = value >= limit;

  printf ("%-58s %10.2f%s  (bar >= %.2f%s)  %s\n", what, value, unit, limit, unit, ok ? "PASS" : "FAIL");
  failed |= !ok;
}

/* STREAM's triad a = b + s·c: one timed sample. */
static double
triad_sample (float *a, const float *b, const float *c, gint64 n, guint threads)
{
  const float s = 3.0f;
  double t0 = now ();

#pragma omp parallel for num_threads (threads)
  for (gint64 i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
  return now () - t0;
}

/* Median seconds of the kernel and of the group's reference ops on the same inputs; with triad_n > 0 also of
 * a triad over that many floats, one sample before each kernel sample, so both see the same machine (a
 * shared one's load drifts between two separate series). */
static gboolean
time_group (FwPlan *plan, FwTargetKernel *k, GPtrArray *inputs_by_value, guint threads, gint64 triad_n,
            double *kernel_s, double *reference_s, double *triad_s)
{
  g_autofree float *ta = NULL, *tb = NULL, *tc = NULL;
  double tt[32];
  FwCandidate *c = g_ptr_array_index (plan->candidates, k->candidate);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (threads, NULL);
  g_autofree FwArray **in = g_new0 (FwArray *, k->group.n_inputs + 1);
  g_autofree FwArray **out = g_new0 (FwArray *, k->group.n_outputs + 1);
  double tk[32], tr[32];
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < k->group.n_inputs; i++)
    {
      FwValue *v = k->group.inputs[i];
      in[i] = v->constant ? fw_array_new_from_tensor (v->constant, &error) : NULL;
      for (guint j = 0; in[i] == NULL && j < inputs_by_value->len; j += 2)
        if (g_ptr_array_index (inputs_by_value, j) == v)
          in[i] = fw_array_ref (g_ptr_array_index (inputs_by_value, j + 1));
      if (in[i] == NULL)
        {
          printf ("no input for %s\n", fw_value_get_name (v));
          return FALSE;
        }
    }
  if (triad_n > 0)
    {
      ta = g_new (float, triad_n);
      tb = g_new (float, triad_n);
      tc = g_new (float, triad_n);
#pragma omp parallel for num_threads (threads)
      for (gint64 i = 0; i < triad_n; i++)
        {
          ta[i] = 0.0f;
          tb[i] = 1.0f;
          tc[i] = 2.0f;
        }
    }
  for (int r = 0; r < repeat + 1; r++)
    {
      double t0;

      if (triad_n > 0)
        {
          double t = triad_sample (ta, tb, tc, triad_n, threads);
          if (r > 0)
            tt[r - 1] = t;
        }
      t0 = now ();
      if (!k->group.run (k->group.data, in, out, threads, &error))
        {
          printf ("kernel failed: %s\n", error->message);
          return FALSE;
        }
      if (r > 0)
        tk[r - 1] = now () - t0;
      for (guint o = 0; o < k->group.n_outputs; o++)
        g_clear_pointer (&out[o], fw_array_unref);
      t0 = now ();
      if (!fw_group_run_reference (ctx, &k->group, c->nodes, in, out, &error))
        {
          printf ("reference failed: %s\n", error->message);
          return FALSE;
        }
      if (r > 0)
        tr[r - 1] = now () - t0;
      for (guint o = 0; o < k->group.n_outputs; o++)
        g_clear_pointer (&out[o], fw_array_unref);
    }
  for (guint i = 0; i < k->group.n_inputs; i++)
    fw_array_unref (in[i]);
  *kernel_s = median (tk, repeat);
  *reference_s = median (tr, repeat);
  if (triad_n > 0)
    {
      /* Keep the stores. */
      if (ta[triad_n / 2] != 7.0f)
        printf ("triad: unexpected result\n");
      *triad_s = median (tt, repeat);
    }
  return TRUE;
}

static FwModel *
cheap_chain (gint64 n)
{
  static const char *ops[8] = { "Add", "Mul", "Relu", "Sub", "Neg", "Div", "Abs", "Add" };
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (n) };
  gint64 sd[1] = { 1 };
  float cv = 0.75f;
  g_autoptr(FwTensor) ct = fw_tensor_new_float (0, sd, &cv);
  g_autofree char *prev = g_strdup ("x");
  g_autoptr(GError) error = NULL;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL);
  fw_graph_add_initializer (g, "c", ct, NULL);
  for (guint i = 0; i < 8; i++)
    {
      gboolean binary = strcmp (ops[i], "Relu") != 0 && strcmp (ops[i], "Neg") != 0 && strcmp (ops[i], "Abs") != 0;
      g_autofree char *out = i == 7 ? g_strdup ("y") : g_strdup_printf ("t%u", i);
      g_autofree char *name = g_strdup_printf ("/chain/op%u", i);
      const char *in[2] = { prev, "c" }, *outs[1] = { out };

      fw_graph_add_node (g, ops[i], "", name, binary ? 2 : 1, in, 1, outs, NULL);
      g_free (prev);
      prev = g_strdup (out);
    }
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  return model;
}

/* y = x · (erf (x / √2) + 1) · 0.5 on [dims], the node order PyTorch's exporter emits. */
static FwModel *
gelu_model (gint rank, const gint64 *dims)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[FW_MAX_RANK];
  gint64 sd[1] = { 1 };
  float sqrt2 = 1.4142135381698608f, one = 1.0f, half = 0.5f;
  g_autoptr(FwTensor) t_sqrt2 = fw_tensor_new_float (0, sd, &sqrt2);
  g_autoptr(FwTensor) t_one = fw_tensor_new_float (0, sd, &one);
  g_autoptr(FwTensor) t_half = fw_tensor_new_float (0, sd, &half);
  static const char *const nodes[5][4] = {
    { "Div", "x", "sqrt2", "t0" },
    { "Erf", "t0", NULL, "t1" },
    { "Add", "t1", "one", "t2" },
    { "Mul", "x", "t2", "t3" },
    { "Mul", "t3", "half", "y" },
  };
  g_autoptr(GError) error = NULL;

  for (gint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, rank, d, NULL);
  fw_graph_add_initializer (g, "sqrt2", t_sqrt2, NULL);
  fw_graph_add_initializer (g, "one", t_one, NULL);
  fw_graph_add_initializer (g, "half", t_half, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    {
      g_autofree char *name = g_strdup_printf ("/gelu/%s_%u", nodes[i][0], i);
      const char *in[2] = { nodes[i][1], nodes[i][2] }, *outs[1] = { nodes[i][3] };

      fw_graph_add_node (g, nodes[i][0], "", name, in[1] ? 2 : 1, in, 1, outs, NULL);
    }
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  return model;
}

static FwPlan *
plan_host (FwModel *model, FwTargets **targets)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_profile_lookup ("host", &error);
  FwRuleSet *rules = fw_test_builtin_rules ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_no_error (error);
  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  *targets = fw_targets_build (plan, TRUE, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  if ((*targets)->toolchain == NULL)
    {
      printf ("SKIP: no C compiler: %s\n", (*targets)->toolchain_error);
      exit (77);
    }
  return plan;
}

/* The reference run's values, as (FwValue*, FwArray*) pairs, for every kernel input. */
static GPtrArray *
boundary_values (FwPlan *plan, FwTargets *targets, guint threads)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (threads, NULL);
  g_autoptr(GHashTable) keep = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) inputs = NULL;
  GPtrArray *pairs = g_ptr_array_new ();
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autofree FwArray **out = g_new0 (FwArray *, graph->outputs->len + 1);
  GHashTableIter iter;
  gpointer key, value;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      for (guint j = 0; k->host_compiled && j < k->group.n_inputs; j++)
        if (k->group.inputs[j]->constant == NULL)
          g_hash_table_insert (keep, k->group.inputs[j], NULL);
    }
  inputs = fw_exec_make_inputs (plan->model, 1, &error);
  g_assert_no_error (error);
  if (!fw_exec_run_reference (ctx, graph, (FwArray *const *) inputs->pdata, inputs->len, out, keep, &error))
    {
      printf ("reference run failed: %s\n", error->message);
      exit (1);
    }
  for (guint o = 0; o < graph->outputs->len; o++)
    fw_array_unref (out[o]);
  g_hash_table_iter_init (&iter, keep);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (value != NULL)
      {
        g_ptr_array_add (pairs, key);
        g_ptr_array_add (pairs, fw_array_ref (value));
      }
  return pairs;
}

static gboolean
has_op (FwCandidate *c, const char *op)
{
  for (guint i = 0; i < c->nodes->len; i++)
    if (strcmp (((FwNode *) g_ptr_array_index (c->nodes, i))->op_type, op) == 0)
      return TRUE;
  return FALSE;
}

/* 1: the 8-op chain against the triad and its unfused ops. FALSE when it could not be measured. */
static gboolean
bench_chain (gint64 n, guint threads)
{
  g_autoptr(FwModel) model = cheap_chain (n);
  FwTargets *targets = NULL;
  g_autoptr(FwPlan) plan = plan_host (model, &targets);
  FwTargetKernel *k = NULL;
  g_autoptr(GPtrArray) values = NULL;
  double triad, tk, tr, bytes, triad_bw, kernel_bw;

  for (guint i = 0; i < targets->kernels->len && k == NULL; i++)
    {
      FwTargetKernel *t = g_ptr_array_index (targets->kernels, i);
      FwCandidate *c = g_ptr_array_index (plan->candidates, t->candidate);
      if (c->nodes->len == 8)
        k = t;
    }
  if (k == NULL || !k->host_compiled)
    {
      printf ("FAIL: the 8-op chain did not become one compiled SuperKernel%s%s\n", k ? ": " : "",
              k && k->errors[FW_TARGET_HOST] ? k->errors[FW_TARGET_HOST] : "");
      return FALSE;
    }
  values = boundary_values (plan, targets, threads);
  if (!time_group (plan, k, values, threads, n, &tk, &tr, &triad))
    return FALSE;
  bytes = 2.0 * 4.0 * n;
  triad_bw = 3.0 * 4.0 * n / triad / 1e9;
  kernel_bw = bytes / tk / 1e9;
  printf ("8-op elementwise chain, %" G_GINT64_FORMAT " float32 elements\n", n);
  printf ("  triad %.1f GB/s (%.2f ms), SuperKernel %.1f GB/s (%.2f ms), unfused reference %.2f ms\n", triad_bw,
          triad * 1e3, kernel_bw, tk * 1e3, tr * 1e3);
  bar ("  SuperKernel bandwidth / triad bandwidth", 100.0 * kernel_bw / triad_bw, 80.0, "%");
  bar ("  unfused reference time / SuperKernel time", tr / tk, 4.0, "x");
  for (guint i = 0; i < values->len; i += 2)
    fw_array_unref (g_ptr_array_index (values, i + 1));
  fw_targets_free (targets);
  return TRUE;
}

/* The model for part 2: `path` with batch bound to 1, else a generated encoder layer of bert_like's width.
 * NULL (after printing why) when it does not load. */
static FwModel *
load_bert_like (const char *path)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;

  if (path != NULL)
    {
      g_autoptr(GHashTable) binds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      FwInferOptions infer = { 0 };
      gint64 *one = g_new (gint64, 1);

      *one = 1;
      g_hash_table_insert (binds, g_strdup ("batch"), one);
      infer.bindings = binds;
      model = fw_onnx_load (path, NULL, NULL, &error);
      if (model == NULL || !fw_shape_infer_graph (fw_model_get_graph (model), &infer, NULL, &error))
        {
          printf ("FAIL: %s\n", error->message);
          return NULL;
        }
      printf ("\n%s (batch 1)\n", path);
    }
  else
    {
      model = fw_test_transformer_block (128, 256, 4, FALSE);
      g_assert_true (fw_test_infer (model, NULL, NULL, &error));
      printf ("\ngenerated encoder layer, seq 128, hidden 256\n");
    }
  return g_steal_pointer (&model);
}

/* 2: the model's first LayerNorm and GELU groups against their unfused ops. The shape GELU runs on goes to
 * gelu_rank and gelu_dims for part 3. FALSE when a group could not be measured. */
static gboolean
bench_model (const char *path, guint threads, gint *gelu_rank, gint64 *gelu_dims)
{
  g_autoptr(FwModel) model = load_bert_like (path);
  FwTargets *targets = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GPtrArray) values = NULL;
  gboolean seen_norm = FALSE, seen_gelu = FALSE;

  if (model == NULL)
    return FALSE;
  plan = plan_host (model, &targets);
  values = boundary_values (plan, targets, threads);
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      FwCandidate *c = g_ptr_array_index (plan->candidates, k->candidate);
      gboolean norm = has_op (c, "ReduceMean") || has_op (c, "LayerNormalization");
      gboolean gelu = has_op (c, "Erf") || has_op (c, "Gelu");
      double tk, tr;
      g_autofree char *what = NULL;

      if ((!norm || seen_norm) && (!gelu || seen_gelu))
        continue;
      if (!k->host_compiled)
        {
          printf ("FAIL: candidate %u (%s) not compiled: %s\n", k->candidate, c->pattern, k->errors[FW_TARGET_HOST]);
          failed = TRUE;
          continue;
        }
      if (!time_group (plan, k, values, threads, 0, &tk, &tr, NULL))
        return FALSE;
      printf ("  candidate %u %s: SuperKernel %.1f µs, unfused %.1f µs\n", k->candidate, c->pattern, tk * 1e6,
              tr * 1e6);
      if (gelu)
        {
          /* The shape GELU runs on: the root's output (the MLP's hidden activation), else its input. */
          FwValue *v = c->root ? c->root->outputs[0] : ((FwNode *) g_ptr_array_index (c->nodes, 0))->inputs[0];

          *gelu_rank = v->rank;
          for (gint d = 0; d < v->rank; d++)
            gelu_dims[d] = v->dims[d].value;
          printf ("  %-58s %10.2fx  (information: the %s dominates)\n",
                  c->root ? "MatMul+bias+erf-GELU group: unfused / SuperKernel" : "erf-GELU group: unfused / SuperKernel",
                  tr / tk, c->root ? c->root->op_type : "Erf");
        }
      else
        {
          what = g_strdup_printf ("  LayerNorm #%u (%u ops): unfused / SuperKernel", k->candidate, c->nodes->len);
          bar (what, tr / tk, 2.0, "x");
        }
      seen_norm |= norm;
      seen_gelu |= gelu;
    }
  if (!seen_norm || !seen_gelu)
    {
      printf ("FAIL: no %s candidate found\n", !seen_norm ? "LayerNorm" : "GELU");
      failed = TRUE;
    }
  for (guint i = 0; i < values->len; i += 2)
    fw_array_unref (g_ptr_array_index (values, i + 1));
  fw_targets_free (targets);
  return TRUE;
}

/* 3: a standalone erf-GELU on the shape of the MLP's hidden activation. FALSE when it could not be
 * measured. */
static gboolean
bench_gelu (gint gelu_rank, const gint64 *gelu_dims, guint threads)
{
  g_autoptr(FwModel) model = gelu_model (gelu_rank, gelu_dims);
  FwTargets *targets = NULL;
  g_autoptr(FwPlan) plan = plan_host (model, &targets);
  g_autoptr(GPtrArray) values = NULL;
  g_autoptr(GString) shape = g_string_new (NULL);
  FwTargetKernel *k = NULL;
  double tk, tr;

  fw_array_pool_trim ();
  for (gint d = 0; d < gelu_rank; d++)
    g_string_append_printf (shape, "%s%" G_GINT64_FORMAT, d ? "," : "", gelu_dims[d]);
  for (guint i = 0; i < targets->kernels->len && k == NULL; i++)
    {
      FwTargetKernel *t = g_ptr_array_index (targets->kernels, i);
      FwCandidate *c = g_ptr_array_index (plan->candidates, t->candidate);
      if (c->nodes->len == 5 && has_op (c, "Erf"))
        k = t;
    }
  if (k == NULL || !k->host_compiled)
    {
      printf ("FAIL: the standalone erf-GELU did not become one compiled SuperKernel%s%s\n", k ? ": " : "",
              k && k->errors[FW_TARGET_HOST] ? k->errors[FW_TARGET_HOST] : "");
      return FALSE;
    }
  values = boundary_values (plan, targets, threads);
  if (!time_group (plan, k, values, threads, 0, &tk, &tr, NULL))
    return FALSE;
  printf ("\nstandalone erf-GELU (5 ops) on [%s], the MLP's hidden activation\n", shape->str);
  printf ("  SuperKernel %.1f µs, unfused %.1f µs\n", tk * 1e6, tr * 1e6);
  bar ("  erf-GELU: unfused / SuperKernel", tr / tk, 2.0, "x");
  for (guint i = 0; i < values->len; i += 2)
    fw_array_unref (g_ptr_array_index (values, i + 1));
  fw_targets_free (targets);
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint64 n = 64 * 1024 * 1024;
  guint threads = g_get_num_processors ();
  const char *env;
  gint gelu_rank = 0;
  gint64 gelu_dims[FW_MAX_RANK];

  fw_host_tuning_apply ();
  if ((env = g_getenv ("FW_BENCH_ELEMS")) != NULL)
    n = MAX (1024, g_ascii_strtoll (env, NULL, 10));
  if ((env = g_getenv ("FW_BENCH_REPEAT")) != NULL)
    repeat = CLAMP (atoi (env), 1, 31);
  printf ("host SuperKernel benchmark: %u threads, medians of %d\n\n", threads, repeat);

  if (!bench_chain (n, threads))
    return 1;
  fw_array_pool_trim ();
  if (!bench_model (argc > 1 ? argv[1] : NULL, threads, &gelu_rank, gelu_dims))
    return 1;
  if (gelu_rank > 0 && !bench_gelu (gelu_rank, gelu_dims, threads))
    return 1;
  return failed ? 1 : 0;
}
