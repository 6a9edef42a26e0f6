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

/* Bump when a benchmark or the fit changes, so old calibrations are not applied. 2: a class for each C
 * library function, rates as work over time, rounds until they agree. 3: the fused kernels' products.
 * 4: the row sum in one double accumulator. */
#define CALIBRATION_VERSION 4

/* In-cache sizes of the elementwise loops (input and output together within a 256 KiB L2), and the
 * elements each size is run for in total, enough for tens of milliseconds on any current core. */
static const gsize loop_sizes[] = { 4096, 16384 };
#define LOOP_ELEMENTS_FAST (32u << 20)
#define LOOP_ELEMENTS_SLOW (2u << 20)
#define REGION_COUNT       2000
/* The triad's bytes are its rate times this, so that rounds time the same work and can be compared. */
#define STREAM_WORK        1e9

/* Two shapes inside each product class of fw_op_gemm_class (m, n, k). */
static const guint gemm_shapes[3][2][3] = {
  { { 64, 64, 64 }, { 128, 64, 128 } },
  { { 128, 384, 768 }, { 128, 768, 768 } },
  { { 128, 3072, 768 }, { 256, 1024, 1024 } },
};

static const char * const bench_names[] = {
  "stream", "simple", "divide", "exp", "erf", "tanh", "pow", "transcendental", "reduce", "gemm_small",
  "gemm_medium", "gemm_large", "fused_gemm_small", "fused_gemm_medium", "fused_gemm_large", "fork_join",
  "barrier",
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
add_sample (GArray *samples, guint round, FwCalBench bench, guint shape, gdouble work, gdouble seconds)
{
  FwCalSample s = { bench, shape, round, work, seconds };
  g_array_append_val (samples, s);
}

/* The loops of one vector class at one size: work in the cost model's FLOPs (its weights per element, so
 * the fitted factor is exactly what the model's rate must be multiplied by). */
static void
time_vector_class (GArray *samples, guint round, FwCalBench bench, guint size)
{
  static const struct { FwCalBench bench; FwHostLoop loop; const char *ops[2]; } loops[] = {
    { FW_CAL_SIMPLE, FW_HOST_LOOP_MUL_ADD, { "Mul", "Add" } },
    { FW_CAL_DIVIDE, FW_HOST_LOOP_DIVIDE, { "Div", NULL } },
    { FW_CAL_EXP, FW_HOST_LOOP_EXP, { "Exp", NULL } },
    { FW_CAL_ERF, FW_HOST_LOOP_ERF, { "Erf", NULL } },
    { FW_CAL_TANH, FW_HOST_LOOP_TANH, { "Tanh", NULL } },
    { FW_CAL_POW, FW_HOST_LOOP_POW, { "Pow", NULL } },
    { FW_CAL_TRANSCENDENTAL, FW_HOST_LOOP_LOG, { "Log", NULL } },
    { FW_CAL_REDUCE, FW_HOST_LOOP_ROW_SUM, { NULL, NULL } },
  };
  gsize n = loop_sizes[size];
  gdouble work = 0, seconds = 0;

  for (guint i = 0; i < G_N_ELEMENTS (loops); i++)
    {
      gboolean slow = loops[i].bench != FW_CAL_SIMPLE && loops[i].bench != FW_CAL_REDUCE;
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
  add_sample (samples, round, bench, size, work, seconds);
}

typedef struct
{
  FwCalProgressFunc progress;
  gpointer          data;
  guint             round, done;
} Progress;

/* The first FW_CAL_MIN_ROUNDS rounds fill three quarters of the bar; each round past them half of what is
 * left, so the bar never runs backwards however many a busy machine takes. */
static gdouble
fraction_done (const Progress *p)
{
  gdouble in_round = (gdouble) p->done / FW_CAL_N_BENCHES;

  if (p->round < FW_CAL_MIN_ROUNDS)
    return 0.75 * (p->round + in_round) / FW_CAL_MIN_ROUNDS;
  return 1.0 - 0.25 * ldexp (1.0, -(gint) (p->round - FW_CAL_MIN_ROUNDS)) * (1.0 - 0.5 * in_round);
}

static gboolean
step (Progress *p, FwCalBench bench, GCancellable *cancellable, GError **error)
{
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  if (p->progress)
    p->progress (fraction_done (p), fw_cal_bench_name (bench), p->data);
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
    add_sample (samples, p->round, FW_CAL_STREAM, 0, STREAM_WORK, STREAM_WORK / bw);
  for (FwCalBench b = FW_CAL_SIMPLE; b <= FW_CAL_REDUCE; b++)
    {
      if (!step (p, b, cancellable, error))
        return FALSE;
      for (guint s = 0; s < G_N_ELEMENTS (loop_sizes); s++)
        time_vector_class (samples, p->round, b, s);
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
          add_sample (samples, p->round, FW_CAL_GEMM_SMALL + c, s, 2.0 * shape[0] * shape[1] * shape[2],
                      fw_host_bench_sgemm (shape[0], shape[1], shape[2]));
        }
    }
  for (guint c = 0; c < 3; c++)
    {
      if (!step (p, FW_CAL_FUSED_GEMM_SMALL + c, cancellable, error))
        return FALSE;
      for (guint s = 0; s < 2; s++)
        {
          const guint *shape = gemm_shapes[c][s];
          add_sample (samples, p->round, FW_CAL_FUSED_GEMM_SMALL + c, s, 2.0 * shape[0] * shape[1] * shape[2],
                      fw_host_bench_fused_sgemm (shape[0], shape[1], shape[2], n_threads));
        }
    }
  if (!step (p, FW_CAL_FORK_JOIN, cancellable, error))
    return FALSE;
  add_sample (samples, p->round, FW_CAL_FORK_JOIN, 0, 0, fw_host_bench_fork_join (n_threads, REGION_COUNT));
  if (!step (p, FW_CAL_BARRIER, cancellable, error))
    return FALSE;
  add_sample (samples, p->round, FW_CAL_BARRIER, 0, 0, fw_host_bench_barrier (n_threads, REGION_COUNT));
  return TRUE;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

/* The median of n > 0 values (sorts them). */
static gdouble
median_of (gdouble *values, guint n)
{
  qsort (values, n, sizeof (gdouble), compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* Each timing (benchmark and shape) once, at its median over the rounds before `rounds`. */
static GArray *
medians (const FwCalSample *all, guint n_all, guint rounds)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (FwCalSample));
  g_autofree gdouble *seconds = g_new (gdouble, n_all + 1);

  for (guint i = 0; i < n_all; i++)
    {
      gboolean seen = FALSE;
      FwCalSample m = all[i];
      guint n = 0;

      for (guint j = 0; j < out->len && !seen; j++)
        seen = g_array_index (out, FwCalSample, j).bench == m.bench &&
               g_array_index (out, FwCalSample, j).shape == m.shape;
      if (seen || m.round >= rounds)
        continue;
      for (guint k = i; k < n_all; k++)
        if (all[k].bench == m.bench && all[k].shape == m.shape && all[k].round < rounds)
          seconds[n++] = all[k].seconds;
      m.seconds = median_of (seconds, n);
      g_array_append_val (out, m);
    }
  return out;
}

GArray *
fw_host_calibration_measure (guint n_threads, FwCalProgressFunc progress, gpointer progress_data,
                             FwCalAgreement *agreement_out, GCancellable *cancellable, GError **error)
{
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (FwCalSample));
  Progress p = { progress, progress_data, 0, 0 };
  FwCalAgreement agreement = { 0 };

  n_threads = MAX (n_threads, 1u);
  for (p.round = 0; p.round < FW_CAL_MAX_ROUNDS; p.round++)
    {
      p.done = 0;
      if (!measure_round (samples, n_threads, &p, cancellable, error))
        return NULL;
      fw_host_calibration_agreement ((const FwCalSample *) samples->data, samples->len, &agreement);
      if (p.round + 1 >= FW_CAL_MIN_ROUNDS && agreement.settled)
        break;
    }
  if (progress)
    progress (1.0, NULL, progress_data);
  if (agreement_out)
    *agreement_out = agreement;
  return g_steal_pointer (&samples);
}

/* ---- fitting ---- */

/* The benchmark's rate in work per second: its samples' work over their time. A line through the sizes
 * (time = fixed + work / rate) left out the fixed cost of a call, which a node run alone pays too, and
 * through two products of nearly one size (537 and 604 MFLOP) it was noise: calibrations minutes apart
 * fitted the large products at 17, 60 and 127 GFLOP/s. Only round `round`'s samples, or all of them for
 * ANY_ROUND. 0 when there is nothing to fit. */
#define ANY_ROUND G_MAXUINT

static gdouble
fit_rate (const FwCalSample *samples, guint n, FwCalBench bench, guint round)
{
  gdouble work = 0, seconds = 0;

  for (guint i = 0; i < n; i++)
    if (samples[i].bench == bench && samples[i].work > 0 && samples[i].seconds > 0 &&
        (round == ANY_ROUND || samples[i].round == round))
      {
        work += samples[i].work;
        seconds += samples[i].seconds;
      }
  return seconds > 0 ? work / seconds : 0;
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

/* A class's factor: its benchmark's rate over its unit's in the same round, the median over the rounds.
 * The two are timed a fraction of a second apart, so a slow spell of the machine that lasts a round
 * slows both and leaves the ratio; the medians of each taken apart can fall in different spells. 0 when
 * no round has both. */
static gdouble
fit_factor (const FwCalSample *samples, guint n, guint rounds, FwCalBench bench, FwCalBench unit)
{
  g_autofree gdouble *ratio = g_new (gdouble, rounds + 1);
  guint count = 0;

  for (guint r = 0; r < rounds; r++)
    {
      gdouble mine = fit_rate (samples, n, bench, r), theirs = fit_rate (samples, n, unit, r);
      if (mine > 0 && theirs > 0)
        ratio[count++] = mine / theirs;
    }
  return count > 0 ? median_of (ratio, count) : 0;
}

/* The benchmark each class's factor is fitted to: a vector class against the simple loop's rate, a
 * product class (the interpreter's or a fused kernel's) against the interpreter's large products'. */
static const struct { FwCostClass cost_class; FwCalBench bench; } class_bench[] = {
  { FW_COST_CLASS_SIMPLE, FW_CAL_SIMPLE }, { FW_COST_CLASS_DIVIDE, FW_CAL_DIVIDE },
  { FW_COST_CLASS_EXP, FW_CAL_EXP }, { FW_COST_CLASS_ERF, FW_CAL_ERF }, { FW_COST_CLASS_TANH, FW_CAL_TANH },
  { FW_COST_CLASS_POW, FW_CAL_POW }, { FW_COST_CLASS_TRANSCENDENTAL, FW_CAL_TRANSCENDENTAL },
  { FW_COST_CLASS_REDUCE, FW_CAL_REDUCE }, { FW_COST_CLASS_GEMM_SMALL, FW_CAL_GEMM_SMALL },
  { FW_COST_CLASS_GEMM_MEDIUM, FW_CAL_GEMM_MEDIUM }, { FW_COST_CLASS_GEMM_LARGE, FW_CAL_GEMM_LARGE },
  { FW_COST_CLASS_FUSED_GEMM_SMALL, FW_CAL_FUSED_GEMM_SMALL },
  { FW_COST_CLASS_FUSED_GEMM_MEDIUM, FW_CAL_FUSED_GEMM_MEDIUM },
  { FW_COST_CLASS_FUSED_GEMM_LARGE, FW_CAL_FUSED_GEMM_LARGE },
};
G_STATIC_ASSERT (G_N_ELEMENTS (class_bench) == FW_COST_N_CLASSES);

gboolean
fw_host_calibration_fit (const FwCalSample *samples, guint n_samples, guint cores, FwCalFit *out, GError **error)
{
  g_autoptr(GArray) median = NULL;
  const FwCalSample *m;
  gdouble rate[FW_CAL_N_BENCHES] = { 0 };
  guint rounds = 0;

  g_return_val_if_fail (out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  cores = MAX (cores, 1u);
  for (guint i = 0; i < n_samples; i++)
    rounds = MAX (rounds, samples[i].round + 1);
  median = medians (samples, n_samples, rounds);
  m = (const FwCalSample *) median->data;
  for (FwCalBench b = 0; b < FW_CAL_N_BENCHES; b++)
    {
      gboolean overhead = b == FW_CAL_FORK_JOIN || b == FW_CAL_BARRIER;
      rate[b] = overhead ? fit_mean_seconds (m, median->len, b) : fit_rate (m, median->len, b, ANY_ROUND);
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
  for (guint i = 0; i < G_N_ELEMENTS (class_bench); i++)
    {
      FwCalBench bench = class_bench[i].bench, unit = bench >= FW_CAL_GEMM_SMALL ? FW_CAL_GEMM_LARGE : FW_CAL_SIMPLE;
      gdouble factor = fit_factor (samples, n_samples, rounds, bench, unit);

      out->class_factor[class_bench[i].cost_class] = factor > 0 ? factor : rate[bench] / rate[unit];
    }
  /* The profile format's bounds: a factor outside them is a broken clock, not a machine. */
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    out->class_factor[c] = CLAMP (out->class_factor[c], 1e-4, 1e4);
  return TRUE;
}

/* Each fitted number with its name, for comparing two fits: the profile's keys (data/hw/README.md). */
static guint
fit_numbers (const FwCalFit *fit, gdouble *values, const char **names)
{
  guint n = 0;

  values[n] = fit->hbm_bytes_per_s, names[n++] = "hbm";
  values[n] = fit->vector_flops_per_s, names[n++] = "vector_fp32";
  values[n] = fit->cube_flops_per_s, names[n++] = "cube_fp32";
  values[n] = fit->launch_overhead_s, names[n++] = "launch";
  values[n] = fit->sync_overhead_s, names[n++] = "sync";
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    values[n] = fit->class_factor[c], names[n++] = fw_cost_class_key (c);
  return n;
}

/* The largest median / fastest round of any timing, into out->contention and out->contended. */
static void
measure_contention (const FwCalSample *samples, guint n_samples, guint rounds, FwCalAgreement *out)
{
  g_autoptr(GArray) median = medians (samples, n_samples, rounds);

  for (guint j = 0; j < median->len; j++)
    {
      const FwCalSample *m = &g_array_index (median, FwCalSample, j);
      gdouble fastest = m->seconds;

      for (guint i = 0; i < n_samples; i++)
        if (samples[i].bench == m->bench && samples[i].shape == m->shape && samples[i].seconds > 0)
          fastest = MIN (fastest, samples[i].seconds);
      if (fastest > 0 && m->seconds / fastest > out->contention)
        {
          out->contention = m->seconds / fastest;
          out->contended = m->bench;
        }
    }
}

void
fw_host_calibration_agreement (const FwCalSample *samples, guint n_samples, FwCalAgreement *out)
{
  g_autoptr(GArray) earlier = g_array_new (FALSE, FALSE, sizeof (FwCalSample));
  gdouble now_v[5 + FW_COST_N_CLASSES], before_v[5 + FW_COST_N_CLASSES];
  const char *names[5 + FW_COST_N_CLASSES];
  FwCalFit now, before;
  guint rounds = 0, n;

  g_return_if_fail (out != NULL);
  for (guint i = 0; i < n_samples; i++)
    rounds = MAX (rounds, samples[i].round + 1);
  *out = (FwCalAgreement) { rounds, FALSE, NULL, INFINITY, 1.0, FW_CAL_STREAM };
  for (guint i = 0; i < n_samples; i++)
    if (samples[i].round + 1 < rounds)
      g_array_append_val (earlier, samples[i]);
  measure_contention (samples, n_samples, rounds, out);
  if (rounds < 2 || !fw_host_calibration_fit (samples, n_samples, 1, &now, NULL) ||
      !fw_host_calibration_fit ((const FwCalSample *) earlier->data, earlier->len, 1, &before, NULL))
    return;
  n = fit_numbers (&now, now_v, names);
  fit_numbers (&before, before_v, names);
  out->spread = 0;
  for (guint i = 0; i < n; i++)
    {
      gdouble moved = fabs (now_v[i] / before_v[i] - 1.0);
      if (moved > out->spread || out->worst == NULL)
        {
          out->spread = moved;
          out->worst = names[i];
        }
    }
  out->settled = out->spread <= FW_CAL_AGREEMENT && out->contention <= FW_CAL_CONTENDED;
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
fw_host_calibrate (FwProfile **before_out, FwCalAgreement *agreement_out, FwCalProgressFunc progress,
                   gpointer progress_data, GCancellable *cancellable, GError **error)
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
  samples = fw_host_calibration_measure (before->vector_cores, progress, progress_data, agreement_out,
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
  FwCalAgreement    agreement;
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
  FwProfile *after = fw_host_calibrate (&t->before, &t->agreement, t->progress, t->progress_data, cancellable, &error);

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
fw_host_calibrate_finish (GAsyncResult *result, FwProfile **before_out, FwCalAgreement *agreement_out,
                          GError **error)
{
  CalibrateTask *t;
  FwProfile *after;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  after = g_task_propagate_pointer (G_TASK (result), error);
  t = g_task_get_task_data (G_TASK (result));
  if (after && before_out)
    *before_out = g_steal_pointer (&t->before);
  if (after && agreement_out)
    *agreement_out = t->agreement;
  return after;
}
