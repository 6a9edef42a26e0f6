/* fw-measure.c: SuperKernels against the reference ops they replace, and the whole model fused against
 * unfused. Medians of several samples after warm-up; a sample repeats a short call until it lasts at least
 * a few milliseconds, so the clock's resolution does not decide the figure. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fw-error.h"
#include "fw-exec-private.h"
#include "fw-fused.h"
#include "hw/fw-host-calibrate.h"
#include "plan/fw-plan-private.h"

#define MIN_SAMPLE_S 0.003

static gdouble
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
compare_doubles (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

gdouble
fw_measure_median (gdouble *values, guint n)
{
  qsort (values, n, sizeof (gdouble), compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* Warm-up calls, then how many calls one sample makes so that it lasts MIN_SAMPLE_S; 0 on error. */
static guint
warm_up (FwTimedFunc func, gpointer data, guint warmup, GError **error)
{
  gdouble t0, once = 0.0;

  for (guint w = 0; w < MAX (warmup, 1u); w++)
    {
      t0 = now_s ();
      if (!func (data, error))
        return 0;
      once = now_s () - t0;
    }
  return once > 0.0 && once < MIN_SAMPLE_S ? (guint) MIN (ceil (MIN_SAMPLE_S / once), 10000.0) : 1;
}

/* Seconds per call of one sample of `inner` calls. */
static gboolean
sample (FwTimedFunc func, gpointer data, guint inner, gdouble *out, GError **error)
{
  gdouble t0 = now_s ();

  for (guint i = 0; i < inner; i++)
    if (!func (data, error))
      return FALSE;
  *out = (now_s () - t0) / inner;
  return TRUE;
}

gboolean
fw_measure_time_calls (FwTimedFunc func, gpointer data, guint warmup, guint repeats, GCancellable *cancellable,
                       gdouble *out, GError **error)
{
  g_autofree gdouble *samples = g_new (gdouble, repeats);
  guint inner = warm_up (func, data, warmup, error);

  if (inner == 0)
    return FALSE;
  for (guint r = 0; r < repeats; r++)
    if (g_cancellable_set_error_if_cancelled (cancellable, error) || !sample (func, data, inner, &samples[r], error))
      return FALSE;
  *out = fw_measure_median (samples, repeats);
  return TRUE;
}

gboolean
fw_measure_time_pairs (FwTimedFunc a, FwTimedFunc b, gpointer *data, guint n, guint warmup, guint repeats,
                       GCancellable *cancellable, FwMeasurePair *out, guint *index_out, GError **error)
{
  g_autofree gdouble *sa = g_new (gdouble, (gsize) n * repeats + 1), *sb = g_new (gdouble, (gsize) n * repeats + 1);
  g_autofree gdouble *ratio = g_new (gdouble, repeats + 1);
  g_autofree guint *inner_a = g_new (guint, n + 1), *inner_b = g_new (guint, n + 1);

  for (guint i = 0; i < n; i++)
    {
      if (index_out)
        *index_out = i;
      inner_a[i] = warm_up (a, data[i], warmup, error);
      inner_b[i] = inner_a[i] ? warm_up (b, data[i], warmup, error) : 0;
      if (inner_b[i] == 0)
        return FALSE;
    }
  /* One untimed call before each sample: a sample of one or two calls of a whole model had started in the
     caches the other side's run had just filled (mobilenet_v3_small's fused samples, each after a 9 ms
     unfused run: 1.6-1.8 ms against 1.2-1.4 ms back to back). Each side is timed warm, as a serving loop
     runs it and as tests/ort/ort-run.js times ONNX Runtime. */
  for (guint r = 0; r < repeats; r++)
    for (guint i = 0; i < n; i++)
      {
        gdouble *xa = &sa[(gsize) i * repeats + r], *xb = &sb[(gsize) i * repeats + r];

        if (index_out)
          *index_out = i;
        if (g_cancellable_set_error_if_cancelled (cancellable, error) || !a (data[i], error) ||
            !sample (a, data[i], inner_a[i], xa, error) || !b (data[i], error) ||
            !sample (b, data[i], inner_b[i], xb, error))
          return FALSE;
      }
  for (guint i = 0; i < n; i++)
    {
      gdouble *xa = &sa[(gsize) i * repeats], *xb = &sb[(gsize) i * repeats];

      for (guint r = 0; r < repeats; r++)
        ratio[r] = xb[r] / xa[r];
      out[i].b_over_a = fw_measure_median (ratio, repeats);
      out[i].a_s = fw_measure_median (xa, repeats);
      out[i].b_s = fw_measure_median (xb, repeats);
    }
  return TRUE;
}

gboolean
fw_measure_time_pair (FwTimedFunc a, FwTimedFunc b, gpointer data, guint warmup, guint repeats,
                      GCancellable *cancellable, FwMeasurePair *out, GError **error)
{
  return fw_measure_time_pairs (a, b, &data, 1, warmup, repeats, cancellable, out, NULL, error);
}

typedef struct
{
  FwExecContext       *ctx;
  const FwGroupKernel *kernel;
  GPtrArray           *nodes;
  FwArray            **in;
  FwFusedProgram      *program;
  const FwGraph       *graph;
  GPtrArray           *inputs;
} Timed;

static gboolean
run_kernel (gpointer data, GError **error)
{
  Timed *t = data;
  g_autofree FwArray **out = g_new0 (FwArray *, t->kernel->n_outputs + 1);
  gboolean ok = t->kernel->run (t->kernel->data, t->in, out, t->ctx->n_threads, error);

  for (guint o = 0; o < t->kernel->n_outputs; o++)
    g_clear_pointer (&out[o], fw_array_unref);
  return ok;
}

static gboolean
run_group_reference (gpointer data, GError **error)
{
  Timed *t = data;
  g_autofree FwArray **out = g_new0 (FwArray *, t->kernel->n_outputs + 1);
  gboolean ok = fw_group_run_reference (t->ctx, t->kernel, t->nodes, t->in, out, error);

  for (guint o = 0; o < t->kernel->n_outputs; o++)
    g_clear_pointer (&out[o], fw_array_unref);
  return ok;
}

static gboolean
run_model (Timed *t, gboolean fused, GError **error)
{
  guint n = t->graph->outputs->len;
  g_autofree FwArray **out = g_new0 (FwArray *, n + 1);
  gboolean ok = fused
    ? fw_fused_program_run (t->program, t->ctx, (FwArray *const *) t->inputs->pdata, t->inputs->len, out, NULL, error)
    : fw_exec_run_reference (t->ctx, t->graph, (FwArray *const *) t->inputs->pdata, t->inputs->len, out, NULL, error);

  for (guint o = 0; o < n; o++)
    g_clear_pointer (&out[o], fw_array_unref);
  return ok;
}

static gboolean
run_fused_model (gpointer data, GError **error)
{
  return run_model (data, TRUE, error);
}

static gboolean
run_unfused_model (gpointer data, GError **error)
{
  return run_model (data, FALSE, error);
}

static void
rank (const gdouble *x, guint n, gdouble *r)
{
  for (guint i = 0; i < n; i++)
    {
      guint less = 0, equal = 0;

      for (guint j = 0; j < n; j++)
        {
          less += x[j] < x[i];
          equal += x[j] == x[i];
        }
      /* Ties share the mean of the ranks they span. */
      r[i] = less + (equal + 1) / 2.0;
    }
}

gdouble
fw_rank_correlation (const gdouble *x, const gdouble *y, guint n)
{
  g_autofree gdouble *rx = NULL, *ry = NULL;
  gdouble mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

  if (n < 3)
    return NAN;
  rx = g_new (gdouble, n);
  ry = g_new (gdouble, n);
  rank (x, n, rx);
  rank (y, n, ry);
  for (guint i = 0; i < n; i++)
    {
      mx += rx[i] / n;
      my += ry[i] / n;
    }
  for (guint i = 0; i < n; i++)
    {
      sxy += (rx[i] - mx) * (ry[i] - my);
      sxx += (rx[i] - mx) * (rx[i] - mx);
      syy += (ry[i] - my) * (ry[i] - my);
    }
  if (sxx == 0 || syy == 0)
    return NAN;
  return sxy / sqrt (sxx * syy);
}

void
fw_measure_result_free (FwMeasureResult *result)
{
  if (result == NULL)
    return;
  if (result->kernels)
    g_array_unref (result->kernels);
  g_free (result);
}

static gdouble
speedup_of (const FwCostEstimate *cost)
{
  return cost->time_after_s > 0 ? cost->time_before_s / cost->time_after_s : NAN;
}

/* The plan's predicted speed-up for the candidate and, when uncalibrated is given, the same kernel's on it. */
static void
predict (const FwCandidate *c, const FwProfile *uncalibrated, FwKernelTiming *timing)
{
  timing->predicted_speedup = speedup_of (fw_candidate_get_cost (c));
  timing->predicted_speedup_uncalibrated = timing->predicted_speedup;
  if (uncalibrated != NULL && c->spec != NULL)
    {
      FwCostEstimate cost;
      fw_estimate_cost (c->spec, uncalibrated, &cost);
      timing->predicted_speedup_uncalibrated = speedup_of (&cost);
    }
  timing->model_error = timing->predicted_speedup / timing->measured_speedup - 1.0;
  timing->model_error_uncalibrated = timing->predicted_speedup_uncalibrated / timing->measured_speedup - 1.0;
}

/* Rank correlation and median absolute error of the predictions, calibrated and not. */
static void
summarise (FwMeasureResult *result)
{
  guint n = result->kernels->len;
  g_autofree gdouble *predicted = g_new (gdouble, n + 1);
  g_autofree gdouble *predicted_u = g_new (gdouble, n + 1);
  g_autofree gdouble *measured = g_new (gdouble, n + 1);
  g_autofree gdouble *error = g_new (gdouble, n + 1);
  g_autofree gdouble *error_u = g_new (gdouble, n + 1);

  for (guint i = 0; i < n; i++)
    {
      const FwKernelTiming *k = &g_array_index (result->kernels, FwKernelTiming, i);
      predicted[i] = k->predicted_speedup;
      predicted_u[i] = k->predicted_speedup_uncalibrated;
      measured[i] = k->measured_speedup;
      error[i] = fabs (k->model_error);
      error_u[i] = fabs (k->model_error_uncalibrated);
    }
  result->rank_correlation = fw_rank_correlation (predicted, measured, n);
  result->rank_correlation_uncalibrated = fw_rank_correlation (predicted_u, measured, n);
  result->median_abs_error = n ? fw_measure_median (error, n) : NAN;
  result->median_abs_error_uncalibrated = n ? fw_measure_median (error_u, n) : NAN;
}

/* Every kernel against its group's reference ops, their samples taken round by round
 * (fw_measure_time_pairs). Each kernel's samples had been taken together, within a few tens of
 * milliseconds, so a slow spell of a shared machine fell on some kernels and not on others: bert_like's four
 * attention kernels, one kernel four times over, measured from 3.8x to 7.0x in one run. */
static gboolean
measure_kernels (FwPlan *plan, GPtrArray *kernels, GHashTable *keep, const FwMeasureOptions *options,
                 const Timed *base, guint warmup, guint repeats, const FwProfile *uncalibrated,
                 FwMeasureResult *result, GError **error)
{
  guint n = kernels->len, failed = 0;
  g_autofree Timed *t = g_new0 (Timed, n);
  g_autofree gpointer *data = g_new0 (gpointer, n);
  g_autofree FwMeasurePair *pair = g_new0 (FwMeasurePair, n);
  gboolean ok = TRUE;

  for (guint k = 0; k < n && ok; k++)
    {
      const FwGroupKernel *kernel = g_ptr_array_index (kernels, k);
      FwCandidate *c = g_ptr_array_index (plan->candidates, kernel->candidate);
      gboolean seeded;

      t[k] = *base;
      t[k].kernel = kernel;
      t[k].nodes = c->nodes;
      t[k].in = g_new0 (FwArray *, kernel->n_inputs + 1);
      data[k] = &t[k];
      /* A body that did not run is timed on seeded inputs, as verification checks it. */
      ok = fw_verify_gather_inputs (kernel, keep, options->seed, t[k].in, &seeded, error);
      failed = k;
    }
  ok = ok && fw_measure_time_pairs (run_kernel, run_group_reference, data, n, warmup, repeats, options->cancellable,
                                    pair, &failed, error);
  if (!ok)
    g_prefix_error (error, _("candidate %u: "), ((const FwGroupKernel *) g_ptr_array_index (kernels, failed))->candidate);
  for (guint k = 0; k < n; k++)
    {
      const FwGroupKernel *kernel = g_ptr_array_index (kernels, k);
      FwKernelTiming timing = { 0 };

      for (guint i = 0; t[k].in != NULL && i < kernel->n_inputs; i++)
        g_clear_pointer (&t[k].in[i], fw_array_unref);
      g_free (t[k].in);
      if (!ok)
        continue;
      timing.candidate = kernel->candidate;
      timing.kernel_s = pair[k].a_s;
      timing.reference_s = pair[k].b_s;
      timing.measured_speedup = pair[k].b_over_a;
      predict (g_ptr_array_index (plan->candidates, kernel->candidate), uncalibrated, &timing);
      g_array_append_val (result->kernels, timing);
    }
  return ok;
}

FwMeasureResult *
fw_measure_run (FwPlan *plan, GPtrArray *kernels, const FwMeasureOptions *options, GError **error)
{
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (options->n_threads, options->cancellable);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GHashTable) keep = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(FwFusedProgram) program = NULL;
  g_autoptr(FwMeasureResult) result = g_new0 (FwMeasureResult, 1);
  guint warmup = options->warmup ? options->warmup : 1, repeats = options->repeats ? options->repeats : 5;
  guint n_out = graph->outputs->len;
  g_autofree FwArray **out = g_new0 (FwArray *, n_out + 1);
  g_autoptr(FwProfile) uncalibrated = NULL;
  Timed t = { 0 };
  gboolean ok;

  result->kernels = g_array_new (FALSE, TRUE, sizeof (FwKernelTiming));
  result->warmup = warmup;
  result->repeats = repeats;
  result->n_threads = ctx->n_threads;
  result->rank_correlation = NAN;
  /* A calibrated copy of the host profile under another name has no uncalibrated form to load. */
  result->calibrated = plan->profile->calibrated && g_strcmp0 (plan->profile->name, "host") == 0;
  /* What calibration changed: the same kernels priced on the profile the probe alone gives. */
  if (result->calibrated)
    {
      uncalibrated = fw_host_profile_load_uncalibrated (error);
      if (uncalibrated == NULL)
        return NULL;
    }
  inputs = fw_exec_make_inputs (plan->model, options->seed, error);
  if (inputs == NULL)
    return NULL;
  program = fw_fused_program_new (plan, kernels, error);
  if (program == NULL)
    return NULL;
  fw_fused_program_set_node_kernels (program, options->node_kernels);
  for (guint k = 0; kernels && k < kernels->len; k++)
    {
      const FwGroupKernel *kernel = g_ptr_array_index (kernels, k);

      for (guint i = 0; i < kernel->n_inputs; i++)
        if (kernel->inputs[i]->constant == NULL)
          g_hash_table_insert (keep, kernel->inputs[i], NULL);
    }
  ok = fw_exec_run_reference (ctx, graph, (FwArray *const *) inputs->pdata, inputs->len, out, keep, error);
  for (guint o = 0; o < n_out; o++)
    g_clear_pointer (&out[o], fw_array_unref);
  if (!ok)
    return NULL;

  t.ctx = ctx;
  if (kernels != NULL && kernels->len > 0 && !measure_kernels (plan, kernels, keep, options, &t, warmup, repeats,
                                                               uncalibrated, result, error))
    return NULL;
  g_hash_table_remove_all (keep);

  t.graph = graph;
  t.inputs = inputs;
  t.program = program;
  result->channels_last = fw_fused_program_get_n_channels_last (program);
  {
    FwMeasurePair pair;

    if (!fw_measure_time_pair (run_fused_model, run_unfused_model, &t, warmup, repeats, options->cancellable, &pair,
                               error))
      return NULL;
    result->fused_s = pair.a_s;
    result->unfused_s = pair.b_s;
    result->speedup = pair.b_over_a;
  }

  summarise (result);
  return g_steal_pointer (&result);
}
