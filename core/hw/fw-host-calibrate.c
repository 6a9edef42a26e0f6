/* fw-host-calibrate.c: the host profile fitted to timed microbenchmarks, and its cache (fw-host-calibrate.h).
 *
 * The cache is a profile document (data/hw/README.md) with a `calibration` section and a `machine` key that
 * names the machine, the probe's version and this file's CALIBRATION_VERSION. A file that cannot be read
 * is ignored with a warning naming it rather than refused: the probe's numbers are still a working profile,
 * and one bad cache file must not stop every plan on the host until someone finds and deletes it. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "hw/fw-blas.h"
#include "fw-error.h"
#include "hw/fw-host-bench.h"
#include "hw/fw-host-calibrate.h"
#include "hw/fw-hw-private.h"
#include "ops/fw-op-registry.h"

/* Bump when a benchmark or the fit changes, so old calibrations are not applied. */
#define CALIBRATION_VERSION 1

/* In-cache sizes of the elementwise loops (input and output together within a 256 KiB L2), and the
 * elements each size is run for in total, enough for tens of milliseconds on any current core. */
static const gsize loop_sizes[] = { 4096, 16384 };
#define LOOP_ELEMENTS_FAST (32u << 20)
#define LOOP_ELEMENTS_SLOW (4u << 20)
#define REGION_COUNT       2000
/* Rounds of the whole set, each timing keeping its fastest: on a shared machine a burst of other work
 * spoils a single round (one such round measured the triad at a twentieth of the probe's figure), and a
 * round is short enough that three stay within the few seconds a calibration should take. */
#define ROUNDS             3
/* The triad's bytes are its rate times this, so that rounds time the same work and can be compared. */
#define STREAM_WORK        1e9

/* Two shapes inside each product class of fw_op_gemm_class (m, n, k). */
static const guint gemm_shapes[3][2][3] = {
  { { 64, 64, 64 }, { 128, 64, 128 } },
  { { 128, 384, 768 }, { 128, 768, 768 } },
  { { 128, 3072, 768 }, { 256, 1024, 1024 } },
};

static const char * const bench_names[] = {
  "stream", "simple", "divide", "transcendental", "reduce", "gemm_small", "gemm_medium", "gemm_large",
  "fork_join", "barrier",
};
G_STATIC_ASSERT (G_N_ELEMENTS (bench_names) == FW_CAL_N_BENCHES);

const char *
fw_cal_bench_name (FwCalBench bench)
{
  g_return_val_if_fail (bench < FW_CAL_N_BENCHES, NULL);
  return bench_names[bench];
}

/* ---- measuring ---- */

static void
add_sample (GArray *samples, FwCalBench bench, gdouble work, gdouble seconds)
{
  FwCalSample s = { bench, work, seconds };
  g_array_append_val (samples, s);
}

/* The loops of one vector class at one size: work in the cost model's FLOPs (its weights per element, so
 * the fitted factor is exactly what the model's rate must be multiplied by). */
static void
time_vector_class (GArray *samples, FwCalBench bench, gsize n)
{
  static const struct { FwCalBench bench; FwHostLoop loop; const char *ops[2]; } loops[] = {
    { FW_CAL_SIMPLE, FW_HOST_LOOP_MUL_ADD, { "Mul", "Add" } },
    { FW_CAL_DIVIDE, FW_HOST_LOOP_DIVIDE, { "Div", NULL } },
    { FW_CAL_TRANSCENDENTAL, FW_HOST_LOOP_EXP, { "Exp", NULL } },
    { FW_CAL_TRANSCENDENTAL, FW_HOST_LOOP_ERF, { "Erf", NULL } },
    { FW_CAL_TRANSCENDENTAL, FW_HOST_LOOP_TANH, { "Tanh", NULL } },
    { FW_CAL_REDUCE, FW_HOST_LOOP_ROW_SUM, { NULL, NULL } },
  };
  gdouble work = 0, seconds = 0;

  for (guint i = 0; i < G_N_ELEMENTS (loops); i++)
    {
      gboolean slow = loops[i].bench == FW_CAL_TRANSCENDENTAL || loops[i].bench == FW_CAL_DIVIDE;
      guint repeats = MAX (1u, (guint) ((slow ? LOOP_ELEMENTS_SLOW : LOOP_ELEMENTS_FAST) / n));
      /* A reduction counts one operation an element (fw_cost_reduce). */
      gdouble weight = loops[i].ops[0] ? 0 : 1;

      if (loops[i].bench != bench)
        continue;
      for (guint k = 0; k < G_N_ELEMENTS (loops[i].ops) && loops[i].ops[k]; k++)
        weight += fw_op_elementwise_weight (loops[i].ops[k]);
      seconds += fw_host_bench_loop (loops[i].loop, n, repeats);
      work += weight * (gdouble) n * repeats;
    }
  add_sample (samples, bench, work, seconds);
}

typedef struct
{
  FwCalProgressFunc progress;
  gpointer          data;
  guint             done, total;
} Progress;

static gboolean
step (Progress *p, FwCalBench bench, GCancellable *cancellable, GError **error)
{
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (p->progress)
    p->progress ((gdouble) p->done / p->total, fw_cal_bench_name (bench), p->data);
  p->done++;
  return TRUE;
}

/* One round of every benchmark into samples. */
static gboolean
measure_round (GArray *samples, guint n_threads, Progress *p, GCancellable *cancellable, GError **error)
{
  gdouble bw;

  if (!step (p, FW_CAL_STREAM, cancellable, error))
    return FALSE;
  bw = fw_host_bench_triad (n_threads);
  if (bw > 0)
    add_sample (samples, FW_CAL_STREAM, STREAM_WORK, STREAM_WORK / bw);
  for (FwCalBench b = FW_CAL_SIMPLE; b <= FW_CAL_REDUCE; b++)
    {
      if (!step (p, b, cancellable, error))
        return FALSE;
      for (guint s = 0; s < G_N_ELEMENTS (loop_sizes); s++)
        time_vector_class (samples, b, loop_sizes[s]);
    }
  if (!fw_blas_ensure (error))
    return FALSE;
  for (guint c = 0; c < 3; c++)
    {
      if (!step (p, FW_CAL_GEMM_SMALL + c, cancellable, error))
        return FALSE;
      for (guint s = 0; s < 2; s++)
        {
          const guint *shape = gemm_shapes[c][s];
          add_sample (samples, FW_CAL_GEMM_SMALL + c, 2.0 * shape[0] * shape[1] * shape[2],
                      fw_host_bench_sgemm (shape[0], shape[1], shape[2]));
        }
    }
  if (!step (p, FW_CAL_FORK_JOIN, cancellable, error))
    return FALSE;
  add_sample (samples, FW_CAL_FORK_JOIN, 0, fw_host_bench_fork_join (n_threads, REGION_COUNT));
  if (!step (p, FW_CAL_BARRIER, cancellable, error))
    return FALSE;
  add_sample (samples, FW_CAL_BARRIER, 0, fw_host_bench_barrier (n_threads, REGION_COUNT));
  return TRUE;
}

/* Each benchmark and size once, at its fastest round. */
static GArray *
fastest (const GArray *all)
{
  GArray *best = g_array_new (FALSE, FALSE, sizeof (FwCalSample));

  for (guint i = 0; i < all->len; i++)
    {
      const FwCalSample *s = &g_array_index (all, FwCalSample, i);
      guint j;

      for (j = 0; j < best->len; j++)
        {
          FwCalSample *b = &g_array_index (best, FwCalSample, j);
          if (b->bench == s->bench && b->work == s->work)
            {
              b->seconds = MIN (b->seconds, s->seconds);
              break;
            }
        }
      if (j == best->len)
        g_array_append_val (best, *s);
    }
  return best;
}

GArray *
fw_host_calibration_measure (guint n_threads, FwCalProgressFunc progress, gpointer progress_data,
                             GCancellable *cancellable, GError **error)
{
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (FwCalSample));
  Progress p = { progress, progress_data, 0, ROUNDS * FW_CAL_N_BENCHES };

  n_threads = MAX (n_threads, 1u);
  for (guint r = 0; r < ROUNDS; r++)
    if (!measure_round (samples, n_threads, &p, cancellable, error))
      return NULL;
  if (progress)
    progress (1.0, NULL, progress_data);
  return fastest (samples);
}

/* ---- fitting ---- */

/* The benchmark's rate in work per second: the inverse slope of the least-squares line through its samples
 * when they span more than one size and the slope is positive, else total work over total time (which the
 * fixed cost of a call then slightly lowers). 0 when there is nothing to fit. */
static gdouble
fit_rate (const FwCalSample *samples, guint n, FwCalBench bench)
{
  gdouble sw = 0, st = 0, sww = 0, swt = 0, slope, denom;
  guint count = 0;

  for (guint i = 0; i < n; i++)
    if (samples[i].bench == bench && samples[i].work > 0 && samples[i].seconds > 0)
      {
        sw += samples[i].work;
        st += samples[i].seconds;
        sww += samples[i].work * samples[i].work;
        swt += samples[i].work * samples[i].seconds;
        count++;
      }
  if (count == 0)
    return 0;
  denom = count * sww - sw * sw;
  /* Sizes equal to within rounding: a line through them is noise. */
  if (count >= 2 && denom > 1e-9 * count * sww)
    {
      slope = (count * swt - sw * st) / denom;
      if (slope > 0)
        return 1.0 / slope;
    }
  return sw / st;
}

static gdouble
fit_mean_seconds (const FwCalSample *samples, guint n, FwCalBench bench)
{
  gdouble sum = 0;
  guint count = 0;

  for (guint i = 0; i < n; i++)
    if (samples[i].bench == bench && samples[i].seconds > 0)
      {
        sum += samples[i].seconds;
        count++;
      }
  return count ? sum / count : 0;
}

gboolean
fw_host_calibration_fit (const FwCalSample *samples, guint n_samples, guint cores, FwCalFit *out, GError **error)
{
  gdouble rate[FW_CAL_N_BENCHES] = { 0 };

  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  cores = MAX (cores, 1u);
  for (FwCalBench b = 0; b < FW_CAL_N_BENCHES; b++)
    {
      gboolean overhead = b == FW_CAL_FORK_JOIN || b == FW_CAL_BARRIER;
      rate[b] = overhead ? fit_mean_seconds (samples, n_samples, b) : fit_rate (samples, n_samples, b);
      if (!(rate[b] > 0) || !isfinite (rate[b]))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("calibration: the benchmark “%s” gave no usable timing"), fw_cal_bench_name (b));
          return FALSE;
        }
    }
  out->hbm_bytes_per_s = rate[FW_CAL_STREAM];
  /* The loops ran on one core; the host's kernels spread over every physical core. */
  out->vector_flops_per_s = rate[FW_CAL_SIMPLE] * cores;
  out->cube_flops_per_s = rate[FW_CAL_GEMM_LARGE];
  out->launch_overhead_s = rate[FW_CAL_FORK_JOIN];
  out->sync_overhead_s = rate[FW_CAL_BARRIER];
  out->class_factor[FW_COST_CLASS_SIMPLE] = 1;
  out->class_factor[FW_COST_CLASS_DIVIDE] = rate[FW_CAL_DIVIDE] / rate[FW_CAL_SIMPLE];
  out->class_factor[FW_COST_CLASS_TRANSCENDENTAL] = rate[FW_CAL_TRANSCENDENTAL] / rate[FW_CAL_SIMPLE];
  out->class_factor[FW_COST_CLASS_REDUCE] = rate[FW_CAL_REDUCE] / rate[FW_CAL_SIMPLE];
  out->class_factor[FW_COST_CLASS_GEMM_SMALL] = rate[FW_CAL_GEMM_SMALL] / rate[FW_CAL_GEMM_LARGE];
  out->class_factor[FW_COST_CLASS_GEMM_MEDIUM] = rate[FW_CAL_GEMM_MEDIUM] / rate[FW_CAL_GEMM_LARGE];
  out->class_factor[FW_COST_CLASS_GEMM_LARGE] = 1;
  /* The profile format's bounds: a factor outside them is a broken clock, not a machine. */
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    out->class_factor[c] = CLAMP (out->class_factor[c], 1e-4, 1e4);
  return TRUE;
}

void
fw_host_calibration_apply (FwProfile *profile, const FwCalFit *fit)
{
  gdouble int8_ratio = profile->cube_flops_per_s > 0 ? profile->cube_int8_ops_per_s / profile->cube_flops_per_s : 1;

  profile->hbm_bytes_per_s = fit->hbm_bytes_per_s;
  profile->vector_flops_per_s = fit->vector_flops_per_s;
  profile->cube_flops_per_s = fit->cube_flops_per_s;
  profile->cube_int8_ops_per_s = fit->cube_flops_per_s * int8_ratio;
  profile->launch_overhead_s = fit->launch_overhead_s;
  profile->sync_overhead_s = fit->sync_overhead_s;
  memcpy (profile->class_factor, fit->class_factor, sizeof profile->class_factor);
  profile->calibrated = TRUE;
}

/* ---- the cache ---- */

char *
fw_host_calibration_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "fusion-workbench", "host-calibration.yaml", NULL);
}

static char *
calibration_key (const char *machine)
{
  return g_strdup_printf ("%s; calibration %d", machine, CALIBRATION_VERSION);
}

FwProfile *
fw_host_calibration_read (const char *path, const char *machine, GError **error)
{
  g_autoptr(FwYamlDocument) doc = NULL;
  g_autoptr(FwProfile) profile = NULL;
  g_autofree char *found = NULL, *key = calibration_key (machine);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  doc = fw_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  profile = fw_profile_from_document (doc, path, &found, error);
  if (profile == NULL)
    return NULL;
  if (g_strcmp0 (found, key) != 0)
    {
      /* Written on another machine or by another version: not wrong, only not ours to apply. */
      g_debug ("host calibration %s is for “%s”, not this machine", path, found ? found : "?");
      return NULL;
    }
  if (profile->kind != FW_PROFILE_CPU || !profile->calibrated)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("%s: not a host calibration (a CPU profile with a “calibration” section)"), path);
      return NULL;
    }
  return g_steal_pointer (&profile);
}

gboolean
fw_host_calibration_write (const char *path, const FwProfile *profile, const char *machine, GError **error)
{
  g_autofree char *key = calibration_key (machine);

  return fw_host_cache_write (path, profile, key, "host calibration",
                              "fusion-workbench --calibrate measures again; delete this file to go back to the "
                              "probe's numbers.", error);
}

/* The calibrated numbers of cached onto profile: the topology stays what sysfs says today. */
static void
take_calibration (FwProfile *profile, const FwProfile *cached, const char *path)
{
  profile->hbm_bytes_per_s = cached->hbm_bytes_per_s;
  profile->vector_flops_per_s = cached->vector_flops_per_s;
  profile->cube_flops_per_s = cached->cube_flops_per_s;
  profile->cube_int8_ops_per_s = cached->cube_int8_ops_per_s;
  profile->launch_overhead_s = cached->launch_overhead_s;
  profile->sync_overhead_s = cached->sync_overhead_s;
  memcpy (profile->class_factor, cached->class_factor, sizeof profile->class_factor);
  profile->calibrated = TRUE;
  g_free (profile->source);
  profile->source = g_strdup_printf ("calibrated: %s", path);
}

FwProfile *
fw_host_profile_load (GError **error)
{
  g_autoptr(FwProfile) profile = fw_host_profile_load_uncalibrated (error);
  g_autoptr(FwProfile) cached = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *path = NULL, *machine = NULL;

  if (profile == NULL || fw_host_profile_no_probe ())
    return g_steal_pointer (&profile);
  path = fw_host_calibration_path ();
  machine = fw_host_machine_key ();
  cached = fw_host_calibration_read (path, machine, &local);
  if (local != NULL)
    g_warning (_("%s; ignored: the host profile keeps the probe's numbers (fusion-workbench --calibrate "
                 "measures again)"), local->message);
  if (cached != NULL)
    take_calibration (profile, cached, path);
  return g_steal_pointer (&profile);
}

FwProfile *
fw_host_calibrate (FwProfile **before_out, FwCalProgressFunc progress, gpointer progress_data,
                   GCancellable *cancellable, GError **error)
{
  g_autoptr(FwProfile) before = NULL, after = NULL;
  g_autoptr(GArray) samples = NULL;
  g_autofree char *path = NULL, *machine = NULL;
  FwCalFit fit;

  if (fw_host_profile_no_probe ())
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                   _("FW_HOST_PROFILE_NO_PROBE=1 keeps the host profile's fixed numbers: unset it to calibrate"));
      return NULL;
    }
  /* What loads now, an earlier calibration included: the numbers this one replaces. */
  before = fw_host_profile_load (error);
  if (before == NULL)
    return NULL;
  samples = fw_host_calibration_measure (before->vector_cores, progress, progress_data,
                                         cancellable, error);
  if (samples == NULL
      || !fw_host_calibration_fit ((const FwCalSample *) samples->data, samples->len, before->cube_cores, &fit,
                                   error))
    return NULL;
  after = fw_host_profile_load_uncalibrated (error);
  if (after == NULL)
    return NULL;
  fw_host_calibration_apply (after, &fit);
  path = fw_host_calibration_path ();
  machine = fw_host_machine_key ();
  if (!fw_host_calibration_write (path, after, machine, error))
    return NULL;
  g_free (after->source);
  after->source = g_strdup_printf ("calibrated: %s", path);
  if (before_out)
    *before_out = g_steal_pointer (&before);
  return g_steal_pointer (&after);
}

typedef struct
{
  FwCalProgressFunc progress;
  gpointer          progress_data;
  FwProfile        *before;
} CalibrateTask;

static void
calibrate_task_free (CalibrateTask *t)
{
  g_clear_pointer (&t->before, fw_profile_unref);
  g_free (t);
}

static void
calibrate_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CalibrateTask *t = data;
  GError *error = NULL;
  FwProfile *after = fw_host_calibrate (&t->before, t->progress, t->progress_data, cancellable, &error);

  (void) source;
  if (after)
    g_task_return_pointer (task, after, (GDestroyNotify) fw_profile_unref);
  else
    g_task_return_error (task, error);
}

void
fw_host_calibrate_async (FwCalProgressFunc progress, gpointer progress_data, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  CalibrateTask *t = g_new0 (CalibrateTask, 1);

  t->progress = progress;
  t->progress_data = progress_data;
  g_task_set_source_tag (task, fw_host_calibrate_async);
  g_task_set_task_data (task, t, (GDestroyNotify) calibrate_task_free);
  g_task_run_in_thread (task, calibrate_thread);
}

FwProfile *
fw_host_calibrate_finish (GAsyncResult *result, FwProfile **before_out, GError **error)
{
  CalibrateTask *t;
  FwProfile *after;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  after = g_task_propagate_pointer (G_TASK (result), error);
  t = g_task_get_task_data (G_TASK (result));
  if (after && before_out)
    *before_out = g_steal_pointer (&t->before);
  return after;
}
