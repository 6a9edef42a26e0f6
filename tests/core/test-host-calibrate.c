/* test-host-calibrate.c: the host calibration (core/hw/fw-host-calibrate.c): the fit on synthetic timings,
 * its cache, the cost model reading its class factors, and the Ascend profiles left as they are. No test
 * here times anything: the microbenchmarks' figures depend on the machine and are the bench's business. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "hw/fw-host-calibrate.h"
#include "hw/fw-host-threads.h"
#include "hw/fw-hw-private.h"
#include "ops/fw-op-registry.h"
#include "plan/fw-plan-private.h"

static char *tmp_dir;

/* Known parameters, the timings they would give, and the fit must give them back. */
#define T_STREAM     12e9
#define T_SIMPLE     4e9
#define T_DIVIDE     1e9
#define T_EXP        5e8
#define T_ERF        3e8
#define T_TANH       1.5e8
#define T_POW        2.5e8
#define T_TRANSC     2e8
#define T_REDUCE     3e9
#define T_GEMM_S     5e9
#define T_GEMM_M     2e10
#define T_GEMM_L     4e10
#define T_FUSED_S    6e9
#define T_FUSED_M    3e10
#define T_FUSED_L    5e10
#define T_LAUNCH     3e-6
#define T_SYNC       1e-6

static GArray *
synthetic_samples (gboolean with_barrier)
{
  static const struct { FwCalBench bench; gdouble rate; } rates[] = {
    { FW_CAL_SIMPLE, T_SIMPLE }, { FW_CAL_DIVIDE, T_DIVIDE }, { FW_CAL_EXP, T_EXP }, { FW_CAL_ERF, T_ERF },
    { FW_CAL_TANH, T_TANH }, { FW_CAL_POW, T_POW }, { FW_CAL_TRANSCENDENTAL, T_TRANSC }, { FW_CAL_REDUCE, T_REDUCE },
    { FW_CAL_GEMM_SMALL, T_GEMM_S }, { FW_CAL_GEMM_MEDIUM, T_GEMM_M }, { FW_CAL_GEMM_LARGE, T_GEMM_L },
    { FW_CAL_FUSED_GEMM_SMALL, T_FUSED_S }, { FW_CAL_FUSED_GEMM_MEDIUM, T_FUSED_M },
    { FW_CAL_FUSED_GEMM_LARGE, T_FUSED_L },
  };
  GArray *samples = g_array_new (FALSE, FALSE, sizeof (FwCalSample));
  FwCalSample s = { .bench = FW_CAL_STREAM, .work = T_STREAM, .seconds = 1.0 };

  g_array_append_val (samples, s);
  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    for (guint k = 1; k <= 3; k++)
      {
        gdouble work = 1e7 * k * k;
        s = (FwCalSample) { .bench = rates[i].bench, .shape = k, .work = work, .seconds = work / rates[i].rate };
        g_array_append_val (samples, s);
      }
  /* Two samples either side of the mean. */
  s = (FwCalSample) { .bench = FW_CAL_FORK_JOIN, .seconds = T_LAUNCH * 0.5 };
  g_array_append_val (samples, s);
  s = (FwCalSample) { .bench = FW_CAL_FORK_JOIN, .shape = 1, .seconds = T_LAUNCH * 1.5 };
  g_array_append_val (samples, s);
  if (with_barrier)
    {
      s = (FwCalSample) { .bench = FW_CAL_BARRIER, .seconds = T_SYNC };
      g_array_append_val (samples, s);
    }
  return samples;
}

#define assert_rel(a, b) g_assert_cmpfloat_with_epsilon ((a) / (b), 1.0, 1e-9)

static void
test_fit (void)
{
  g_autoptr(GArray) samples = synthetic_samples (TRUE);
  g_autoptr(GError) error = NULL;
  FwCalFit fit;

  g_assert_true (fw_host_calibration_fit ((FwCalSample *) samples->data, samples->len, 2, &fit, &error));
  g_assert_no_error (error);
  assert_rel (fit.hbm_bytes_per_s, T_STREAM);
  /* The loops ran on one core of two. */
  assert_rel (fit.vector_flops_per_s, 2 * T_SIMPLE);
  assert_rel (fit.cube_flops_per_s, T_GEMM_L);
  assert_rel (fit.launch_overhead_s, T_LAUNCH);
  assert_rel (fit.sync_overhead_s, T_SYNC);
  assert_rel (fit.class_factor[FW_COST_CLASS_SIMPLE], 1.0);
  assert_rel (fit.class_factor[FW_COST_CLASS_DIVIDE], T_DIVIDE / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_EXP], T_EXP / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_ERF], T_ERF / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_TANH], T_TANH / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_POW], T_POW / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_TRANSCENDENTAL], T_TRANSC / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_REDUCE], T_REDUCE / T_SIMPLE);
  assert_rel (fit.class_factor[FW_COST_CLASS_GEMM_SMALL], T_GEMM_S / T_GEMM_L);
  assert_rel (fit.class_factor[FW_COST_CLASS_GEMM_MEDIUM], T_GEMM_M / T_GEMM_L);
  assert_rel (fit.class_factor[FW_COST_CLASS_GEMM_LARGE], 1.0);
  /* A fused kernel's products against the interpreter's large ones, the unit cube_flops_per_s is. */
  assert_rel (fit.class_factor[FW_COST_CLASS_FUSED_GEMM_SMALL], T_FUSED_S / T_GEMM_L);
  assert_rel (fit.class_factor[FW_COST_CLASS_FUSED_GEMM_MEDIUM], T_FUSED_M / T_GEMM_L);
  assert_rel (fit.class_factor[FW_COST_CLASS_FUSED_GEMM_LARGE], T_FUSED_L / T_GEMM_L);
}

/* The synthetic samples without those of benchmarks a and b, for a test to give its own. */
static GArray *
samples_without (FwCalBench a, FwCalBench b)
{
  GArray *samples = synthetic_samples (TRUE);
  guint kept = 0;

  for (guint i = 0; i < samples->len; i++)
    {
      FwCalBench x = g_array_index (samples, FwCalSample, i).bench;
      if (x != a && x != b)
        g_array_index (samples, FwCalSample, kept++) = g_array_index (samples, FwCalSample, i);
    }
  g_array_set_size (samples, kept);
  return samples;
}

/* Two products of nearly one size, each timed 3 % off its true rate in opposite directions, as a shared
 * machine does: the rate stays within those 3 %. A line through the two points (the fit before) put the
 * rate at twice the truth. */
static void
test_fit_close_sizes (void)
{
  g_autoptr(GArray) samples = samples_without (FW_CAL_GEMM_LARGE, FW_CAL_GEMM_LARGE);
  g_autoptr(GError) error = NULL;
  FwCalFit fit;

  {
    FwCalSample a = { .bench = FW_CAL_GEMM_LARGE, .work = 537e6, .seconds = 537e6 / T_GEMM_L * 1.03 };
    FwCalSample b = { .bench = FW_CAL_GEMM_LARGE, .shape = 1, .work = 604e6, .seconds = 604e6 / T_GEMM_L * 0.97 };
    g_array_append_val (samples, a);
    g_array_append_val (samples, b);
  }
  g_assert_true (fw_host_calibration_fit ((FwCalSample *) samples->data, samples->len, 2, &fit, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (fit.cube_flops_per_s / T_GEMM_L - 1.0), <, 0.03);
}

/* A class's factor comes from its loop and the simple loop timed in the same round. Three rounds: a slow
 * spell (everything at half speed) covers the first round and the simple loop of the third, but not the
 * third round's pow loop. Taken apart, the simple loop's median is its slow rate and the pow loop's its
 * fast one, a factor twice the truth; paired by round it is the truth. */
static void
test_fit_paired_factor (void)
{
  g_autoptr(GArray) samples = samples_without (FW_CAL_SIMPLE, FW_CAL_POW);
  g_autoptr(GError) error = NULL;
  FwCalFit fit;

  for (guint r = 0; r < 3; r++)
    {
      gdouble simple_slow = r != 1 ? 2.0 : 1.0, pow_slow = r == 0 ? 2.0 : 1.0;
      FwCalSample a = { FW_CAL_SIMPLE, 0, r, 1e8, 1e8 / T_SIMPLE * simple_slow };
      FwCalSample b = { FW_CAL_POW, 0, r, 1e8, 1e8 / T_POW * pow_slow };
      g_array_append_val (samples, a);
      g_array_append_val (samples, b);
    }
  g_assert_true (fw_host_calibration_fit ((FwCalSample *) samples->data, samples->len, 2, &fit, &error));
  g_assert_no_error (error);
  assert_rel (fit.class_factor[FW_COST_CLASS_POW], T_POW / T_SIMPLE);
}

/* Every benchmark in two shapes (the second twice as slow) over the given rounds, each round's timings
 * scaled by scale[round]; the divide loop's by divide[round] instead when divide is given. */
static GArray *
rounds_of (const gdouble *scale, const gdouble *divide, guint n_rounds)
{
  GArray *samples = g_array_new (FALSE, FALSE, sizeof (FwCalSample));

  for (guint r = 0; r < n_rounds; r++)
    for (FwCalBench b = 0; b < FW_CAL_N_BENCHES; b++)
      for (guint shape = 0; shape < 2; shape++)
        {
          gdouble f = divide != NULL && b == FW_CAL_DIVIDE ? divide[r] : scale[r];
          FwCalSample s = { b, shape, r, 1e6 * (b + 1), 1e-3 * (b + 1) * (shape + 1) * f };
          g_array_append_val (samples, s);
        }
  return samples;
}

/* Rounds agree when the last round moves no fitted number by more than FW_CAL_AGREEMENT and no timing's
 * median round is over FW_CAL_CONTENDED times its fastest: one burst among steady rounds does not matter,
 * a loop whose speed keeps swinging against the others does, so does one slowed in most rounds, and one
 * round is never enough. */
static void
test_agreement (void)
{
  static const gdouble steady[4] = { 1.0, 1.01, 1.6, 1.02 }, swinging[4] = { 1.0, 1.6, 1.0, 1.6 };
  g_autoptr(GArray) one = rounds_of (steady, NULL, 1);
  g_autoptr(GArray) four = rounds_of (steady, NULL, 4);
  g_autoptr(GArray) swing = rounds_of (steady, swinging, 4);
  FwCalAgreement a;

  fw_host_calibration_agreement ((FwCalSample *) one->data, one->len, &a);
  g_assert_false (a.settled);
  g_assert_cmpuint (a.rounds, ==, 1);
  g_assert_null (a.worst);
  /* Every timing's median 1.01 over three rounds, 1.015 over four; every factor the same in each round. */
  fw_host_calibration_agreement ((FwCalSample *) four->data, four->len, &a);
  g_assert_true (a.settled);
  g_assert_cmpuint (a.rounds, ==, 4);
  /* The overheads, in seconds, moved most: by 1.015 / 1.01. */
  g_assert_cmpfloat_with_epsilon (a.spread, 1.015 / 1.01 - 1.0, 1e-9);
  /* The divide factor by round: 1, 1.01/1.6, 1.6, 1.02/1.6; its median 1 over three rounds, 0.81875 over
     four. */
  fw_host_calibration_agreement ((FwCalSample *) swing->data, swing->len, &a);
  g_assert_false (a.settled);
  g_assert_cmpstr (a.worst, ==, "divide");
  g_assert_cmpfloat_with_epsilon (a.spread, 1.0 - 0.5 * (1.0 + 1.02 / 1.6), 1e-9);
  g_assert_cmpfloat (a.contention, <, FW_CAL_CONTENDED);
  /* The barrier's median round five times its fastest, in every round but the first: the medians agree (5
     over three rounds and over four), the machine was busy all the same. */
  for (guint r = 0; r < 4; r++)
    for (guint shape = 0; shape < 2; shape++)
      {
        FwCalSample *s = &g_array_index (four, FwCalSample, (r * FW_CAL_N_BENCHES + FW_CAL_BARRIER) * 2 + shape);
        s->seconds = 1e-3 * (FW_CAL_BARRIER + 1) * (shape + 1) * (r == 0 ? 1.0 : 5.0);
      }
  fw_host_calibration_agreement ((FwCalSample *) four->data, four->len, &a);
  g_assert_false (a.settled);
  g_assert_cmpint (a.contended, ==, FW_CAL_BARRIER);
  g_assert_cmpfloat_with_epsilon (a.contention, 5.0, 1e-9);
}

static void
test_fit_missing (void)
{
  g_autoptr(GArray) samples = synthetic_samples (FALSE);
  g_autoptr(GError) error = NULL;
  FwCalFit fit;

  g_assert_false (fw_host_calibration_fit ((FwCalSample *) samples->data, samples->len, 2, &fit, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "barrier"));
}

/* The fixed numbers of host.yaml with the synthetic fit applied. */
static FwProfile *
calibrated_profile (void)
{
  g_autoptr(GArray) samples = synthetic_samples (TRUE);
  g_autoptr(GError) error = NULL;
  FwProfile *p;
  FwCalFit fit;

  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  p = fw_profile_load_builtin ("host", &error);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  g_assert_no_error (error);
  g_assert_false (p->calibrated);
  g_assert_true (fw_host_calibration_fit ((FwCalSample *) samples->data, samples->len, 2, &fit, &error));
  fw_host_calibration_apply (p, &fit);
  return p;
}

static void
assert_same_rates (const FwProfile *a, const FwProfile *b)
{
  g_assert_cmpfloat (a->hbm_bytes_per_s, ==, b->hbm_bytes_per_s);
  g_assert_cmpfloat (a->vector_flops_per_s, ==, b->vector_flops_per_s);
  g_assert_cmpfloat (a->cube_flops_per_s, ==, b->cube_flops_per_s);
  g_assert_cmpfloat (a->cube_int8_ops_per_s, ==, b->cube_int8_ops_per_s);
  g_assert_cmpfloat (a->launch_overhead_s, ==, b->launch_overhead_s);
  g_assert_cmpfloat (a->sync_overhead_s, ==, b->sync_overhead_s);
  g_assert_cmpint (a->calibrated, ==, b->calibrated);
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    g_assert_cmpfloat (fw_profile_class_factor (a, c), ==, fw_profile_class_factor (b, c));
}

static void
test_cache_round_trip (void)
{
  g_autoptr(FwProfile) p = calibrated_profile ();
  g_autoptr(FwProfile) back = NULL, other = NULL, from_yaml = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (tmp_dir, "round-trip.yaml", NULL);
  g_autofree char *yaml = fw_profile_to_yaml (p);

  g_assert_true (fw_host_calibration_write (path, p, "Test CPU; 2 CPUs; probe 1", &error));
  g_assert_no_error (error);
  back = fw_host_calibration_read (path, "Test CPU; 2 CPUs; probe 1", &error);
  g_assert_no_error (error);
  g_assert_nonnull (back);
  assert_same_rates (p, back);
  /* Another machine's calibration is not applied, and that is not an error. */
  other = fw_host_calibration_read (path, "Other CPU; 64 CPUs; probe 1", &error);
  g_assert_no_error (error);
  g_assert_null (other);
  /* The section is part of the profile format: any profile file may carry it. */
  g_assert_nonnull (strstr (yaml, "calibration:\n  simple: 1\n"));
  from_yaml = fw_profile_load_data ("calibrated.yaml", yaml, strlen (yaml), &error);
  g_assert_no_error (error);
  assert_same_rates (p, from_yaml);
}

static void
test_corrupt_cache (void)
{
  static const char *corrupt[] = {
    "version: 1\nname: [unterminated\n",
    "version: 1\nname: host\nkind: cpu\n",
  };
  g_autofree char *path = g_build_filename (tmp_dir, "corrupt.yaml", NULL);
  g_autoptr(FwProfile) plain = NULL;
  g_autofree char *plain_yaml = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (corrupt); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwProfile) p = NULL;

      g_assert_true (g_file_set_contents (path, corrupt[i], -1, NULL));
      p = fw_host_calibration_read (path, "Test CPU", &error);
      g_assert_null (p);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, path));
    }
  /* A valid profile for this machine, but without the calibration: not a calibration file. */
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  plain = fw_profile_load_builtin ("host", NULL);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  plain_yaml = fw_profile_serialize (plain, "Test CPU; calibration 4", NULL);
  g_assert_true (g_file_set_contents (path, plain_yaml, -1, NULL));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FwProfile) p = fw_host_calibration_read (path, "Test CPU", &error);
    g_assert_null (p);
    g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, path));
  }
}

/* Loading `host` applies the cached calibration, warns about a broken one and keeps the probe's numbers,
 * and under FW_HOST_PROFILE_NO_PROBE=1 ignores it. */
static void
test_applied_on_load (void)
{
  g_autoptr(FwProfile) p = calibrated_profile ();
  g_autoptr(FwProfile) loaded = NULL, fixed = NULL, warned = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fw_host_calibration_path ();
  g_autofree char *machine = fw_host_machine_key ();

  g_assert_true (g_str_has_prefix (path, tmp_dir));
  g_assert_true (fw_host_calibration_write (path, p, machine, &error));
  g_assert_no_error (error);
  loaded = fw_profile_load_builtin ("host", &error);
  g_assert_no_error (error);
  g_assert_true (loaded->calibrated);
  g_assert_true (g_str_has_prefix (loaded->source, "calibrated: "));
  g_assert_cmpfloat (loaded->hbm_bytes_per_s, ==, p->hbm_bytes_per_s);
  g_assert_cmpfloat (fw_profile_class_factor (loaded, FW_COST_CLASS_POW), ==,
                     fw_profile_class_factor (p, FW_COST_CLASS_POW));

  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  fixed = fw_profile_load_builtin ("host", &error);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  g_assert_no_error (error);
  g_assert_false (fixed->calibrated);
  g_assert_cmpfloat (fixed->hbm_bytes_per_s, ==, 5e9);

  g_assert_true (g_file_set_contents (path, "version: 1\nname: [broken\n", -1, NULL));
  g_test_expect_message ("fw-core", G_LOG_LEVEL_WARNING, "*host-calibration.yaml*ignored*");
  warned = fw_profile_load_builtin ("host", &error);
  g_test_assert_expected_messages ();
  g_assert_no_error (error);
  g_assert_false (warned->calibrated);
  g_assert_true (g_str_has_prefix (warned->source, "probe") || g_str_has_suffix (warned->source, ".yaml"));
  g_remove (path);
}

static void
test_ascend_untouched (void)
{
  static const char * const names[] = { "ascend-910b", "ascend-310p" };
  g_autoptr(FwProfile) p = calibrated_profile ();
  g_autofree char *path = fw_host_calibration_path ();
  g_autofree char *machine = fw_host_machine_key ();

  /* Even with a host calibration cached. */
  g_assert_true (fw_host_calibration_write (path, p, machine, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwProfile) a = fw_profile_load_builtin (names[i], &error);
      g_autofree char *yaml = NULL;

      g_assert_no_error (error);
      g_assert_false (a->calibrated);
      for (guint c = 0; c < FW_COST_N_CLASSES; c++)
        g_assert_cmpfloat (fw_profile_class_factor (a, c), ==, 1.0);
      yaml = fw_profile_to_yaml (a);
      g_assert_null (strstr (yaml, "calibration"));
    }
  g_remove (path);
}

static void
test_op_classes (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  static const struct { const char *op; FwCostClass cls; } cases[] = {
    { "Add", FW_COST_CLASS_SIMPLE }, { "Relu", FW_COST_CLASS_SIMPLE }, { "Div", FW_COST_CLASS_DIVIDE },
    { "Sqrt", FW_COST_CLASS_DIVIDE }, { "Erf", FW_COST_CLASS_ERF }, { "Gelu", FW_COST_CLASS_ERF },
    { "Exp", FW_COST_CLASS_EXP }, { "Sigmoid", FW_COST_CLASS_EXP }, { "Softmax", FW_COST_CLASS_EXP },
    { "Tanh", FW_COST_CLASS_TANH }, { "Pow", FW_COST_CLASS_POW }, { "Log", FW_COST_CLASS_TRANSCENDENTAL },
    { "Cos", FW_COST_CLASS_TRANSCENDENTAL }, { "ReduceSum", FW_COST_CLASS_REDUCE },
    { "LayerNormalization", FW_COST_CLASS_REDUCE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/n%u", i), *out = g_strdup_printf ("y%u", i);
      FwNode *node = fw_test_add_node (g, cases[i].op, name, "x", NULL, out);
      /* Inference binds a node to its registry row; these nodes are never inferred. */
      node->op = fw_op_lookup ("", cases[i].op);
      g_assert_cmpint (fw_op_vector_class (node), ==, cases[i].cls);
    }
  g_assert_cmpint (fw_op_gemm_class (1e6), ==, FW_COST_CLASS_GEMM_SMALL);
  g_assert_cmpint (fw_op_gemm_class (151e6), ==, FW_COST_CLASS_GEMM_MEDIUM);
  g_assert_cmpint (fw_op_gemm_class (604e6), ==, FW_COST_CLASS_GEMM_LARGE);
  g_assert_cmpint (fw_op_fused_gemm_class (1e6), ==, FW_COST_CLASS_FUSED_GEMM_SMALL);
  g_assert_cmpint (fw_op_fused_gemm_class (151e6), ==, FW_COST_CLASS_FUSED_GEMM_MEDIUM);
  g_assert_cmpint (fw_op_fused_gemm_class (604e6), ==, FW_COST_CLASS_FUSED_GEMM_LARGE);
}

/* Bandwidth far above the arithmetic and no overheads, so each node's time is its FLOPs over its rate. */
static const char compute_bound[] =
  "version: 1\nname: t\nkind: cpu\ncores: {cube: 1, vector: 1}\nmemory: {ub: 256 KiB}\n"
  "bandwidth: {hbm: 1000 TB/s}\nthroughput: {cube_fp32: 10 GFLOP/s, vector_fp32: 10 GFLOP/s}\n"
  "overhead: {launch: 0 s, sync: 0 s}\n";

static void
test_cost_reads_factors (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (1024) };
  gint64 wd[2] = { 1024, 64 };
  g_autofree float *w = g_new0 (float, 1024 * 64);
  g_autoptr(FwTensor) wt = fw_tensor_new_float (2, wd, w);
  g_autofree char *calibrated_yaml =
    g_strconcat (compute_bound, "calibration: {erf: 0.1, transcendental: 10, gemm_medium: 0.5}\n", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) plain = fw_profile_load_data ("plain.yaml", compute_bound, strlen (compute_bound), &error);
  g_autoptr(FwProfile) calibrated = fw_profile_load_data ("calibrated.yaml", calibrated_yaml, strlen (calibrated_yaml), &error);
  FwNode *erf, *add, *mm;

  g_assert_no_error (error);
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_graph_add_initializer (g, "w", wt, NULL);
  erf = fw_test_add_node (g, "Erf", "/erf", "x", NULL, "e");
  add = fw_test_add_node (g, "Add", "/add", "x", "e", "s");
  mm = fw_test_add_node (g, "MatMul", "/mm", "s", "w", "m");
  fw_graph_add_output (g, "m", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  fw_test_infer (model, NULL, NULL, &error);
  g_assert_no_error (error);

  /* Erf: 24 FLOP an element over 64×1024 elements, at a tenth of the rate. */
  assert_rel (fw_estimate_node_time (erf, plain, NULL, NULL, NULL), 64 * 1024 * 24 / 10e9);
  assert_rel (fw_estimate_node_time (erf, calibrated, NULL, NULL, NULL), 64 * 1024 * 24 / 1e9);
  /* A class the calibration leaves out keeps the unit's rate. */
  assert_rel (fw_estimate_node_time (add, calibrated, NULL, NULL, NULL),
              fw_estimate_node_time (add, plain, NULL, NULL, NULL));
  /* 2·64·64·1024 = 8.4 MFLOP: a medium product, at half the matrix rate. */
  assert_rel (fw_estimate_node_time (mm, calibrated, NULL, NULL, NULL),
              2 * fw_estimate_node_time (mm, plain, NULL, NULL, NULL));
}

/* The one candidate of model planned on the compute-bound profile, plain and with `calibration` added. */
static void
plan_one_candidate (FwModel *model, const char *calibration, FwCostEstimate *plain_cost, FwCostEstimate *calibrated_cost)
{
  g_autofree char *calibrated_yaml = g_strconcat (compute_bound, calibration, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) plain = fw_profile_load_data ("plain.yaml", compute_bound, strlen (compute_bound), &error);
  g_autoptr(FwProfile) calibrated = fw_profile_load_data ("calibrated.yaml", calibrated_yaml,
                                                          strlen (calibrated_yaml), &error);
  g_autoptr(FwPlan) plan_plain = NULL, plan_calibrated = NULL;
  FwPlanOptions options;

  g_assert_no_error (error);
  fw_plan_options_init (&options);
  plan_plain = fw_plan_new (model, plain, NULL, &options, &error);
  g_assert_no_error (error);
  plan_calibrated = fw_plan_new (model, calibrated, NULL, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (plan_plain->candidates->len, ==, 1);
  g_assert_cmpuint (plan_calibrated->candidates->len, ==, 1);
  *plain_cost = *fw_candidate_get_cost (g_ptr_array_index (plan_plain->candidates, 0));
  *calibrated_cost = *fw_candidate_get_cost (g_ptr_array_index (plan_calibrated->candidates, 0));
}

/* A MatMul and its bias fused: the product runs alone at the interpreter's rate for its size (gemm_medium)
 * and inside the kernel at the producer's (fused_gemm_medium); the Add costs the same either way. */
static void
test_fused_product_rate (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (1024) };
  gint64 wd[2] = { 1024, 64 }, bd[1] = { 64 };
  g_autofree float *w = g_new0 (float, 1024 * 64), *bias = g_new0 (float, 64);
  g_autoptr(FwTensor) wt = fw_tensor_new_float (2, wd, w), bt = fw_tensor_new_float (1, bd, bias);
  g_autoptr(GError) error = NULL;
  const gdouble mm = 2.0 * 64 * 64 * 1024 / 10e9;
  FwCostEstimate a, b;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_graph_add_initializer (g, "w", wt, NULL);
  fw_graph_add_initializer (g, "b", bt, NULL);
  fw_test_add_node (g, "MatMul", "/mm", "x", "w", "m");
  fw_test_add_node (g, "Add", "/add", "m", "b", "y");
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  fw_test_infer (model, NULL, NULL, &error);
  g_assert_no_error (error);
  plan_one_candidate (model, "calibration: {gemm_medium: 0.5, fused_gemm_medium: 2}\n", &a, &b);
  /* Unfused the product takes twice its plain time, fused half of it. */
  assert_rel (b.time_before_s - a.time_before_s, mm);
  assert_rel (a.time_after_s - b.time_after_s, 0.5 * mm);
}

/* On a two-core host a node run alone under FW_HOST_PARALLEL_MIN_WORK elements is one reference kernel on
 * one thread (hw/fw-host-threads.h): it gets one core's share of the vector rate; from the threshold on,
 * both cores'. An NPU profile knows no such rule. */
static void
test_alone_one_core (void)
{
  static const char two_cores[] =
    "version: 1\nname: t\nkind: cpu\ncores: {cube: 2, vector: 2}\nmemory: {ub: 256 KiB}\n"
    "bandwidth: {hbm: 1000 TB/s}\nthroughput: {cube_fp32: 10 GFLOP/s, vector_fp32: 10 GFLOP/s}\n"
    "overhead: {launch: 0 s, sync: 0 s}\n";
  static const char npu[] =
    "version: 1\nname: t\nkind: npu\ncores: {cube: 2, vector: 2}\nmemory: {ub: 256 KiB}\n"
    "bandwidth: {hbm: 1000 TB/s}\nthroughput: {cube_fp16: 10 GFLOP/s, vector_fp16: 10 GFLOP/s}\n"
    "overhead: {launch: 0 s, sync: 0 s}\n";
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  gint64 small[2] = { 32, 32 }, large[2] = { 256, FW_HOST_PARALLEL_MIN_WORK / 256 };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) host = fw_profile_load_data ("host.yaml", two_cores, strlen (two_cores), &error);
  g_autoptr(FwProfile) chip = fw_profile_load_data ("npu.yaml", npu, strlen (npu), &error);
  FwNode *a, *b;

  g_assert_no_error (error);
  fw_test_add_float_input (g, "x", 2, small);
  fw_test_add_float_input (g, "y", 2, large);
  a = fw_test_add_node3 (g, "Exp", "small", "ex", "x", NULL, NULL);
  b = fw_test_add_node3 (g, "Exp", "large", "ey", "y", NULL, NULL);
  g_assert_true (fw_graph_add_output (g, "ex", NULL));
  g_assert_true (fw_graph_add_output (g, "ey", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  assert_rel (fw_estimate_node_time (a, host, NULL, NULL, NULL), 32 * 32 * 8 / 5e9);
  assert_rel (fw_estimate_node_time (b, host, NULL, NULL, NULL), FW_HOST_PARALLEL_MIN_WORK * 8 / 10e9);
  /* The NPU halves fp32 vector work's rate, on every size alike. */
  assert_rel (fw_estimate_node_time (a, chip, NULL, NULL, NULL), 32 * 32 * 8 / 5e9);
  assert_rel (fw_estimate_node_time (b, chip, NULL, NULL, NULL), FW_HOST_PARALLEL_MIN_WORK * 8 / 5e9);
}

/* Plans `op` → Add on [64, 1024] with a compute-bound profile, plain and with its function's class at 0.1,
 * and gives the one candidate's costs. */
static void
plan_unary_add (const char *op, FwCostEstimate *plain_cost, FwCostEstimate *calibrated_cost)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (1024) };
  g_autoptr(GError) error = NULL;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_test_add_node (g, op, "/f", "x", NULL, "e");
  fw_test_add_node (g, "Add", "/add", "x", "e", "s");
  fw_graph_add_output (g, "s", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  fw_test_infer (model, NULL, NULL, &error);
  g_assert_no_error (error);
  plan_one_candidate (model, "calibration: {exp: 0.1, erf: 0.1}\n", plain_cost, calibrated_cost);
}

/* Fused, Erf is the host target's own vectorised approximation, which the FLOP weights count: the erf
 * factor (the C library's erff, which the interpreter runs) prices only the unfused side. */
static void
test_fused_keeps_vector_rate (void)
{
  FwCostEstimate a, b;

  plan_unary_add ("Erf", &a, &b);
  /* Unfused, Erf takes ten times as long; fused, the kernel costs the same. */
  assert_rel (b.time_before_s - a.time_before_s, 9 * 64 * 1024 * 24 / 10e9);
  assert_rel (b.time_after_s, a.time_after_s);
}

/* x - `reduce` (x) over rows of 1024 in `dtype`, planned as plan_unary_add does. */
static void
plan_centre (const char *reduce, FwDType dtype, FwCostEstimate *plain_cost, FwCostEstimate *calibrated_cost)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (1024) };
  const gint64 axes[1] = { -1 };
  g_autoptr(GError) error = NULL;

  fw_graph_add_input (g, "x", dtype, 2, dims, NULL);
  fw_node_set_attr_ints (fw_test_add_node (g, reduce, "/mean", "x", NULL, "m"), "axes", 1, axes);
  fw_test_add_node (g, "Sub", "/centre", "x", "m", "y");
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  fw_test_infer (model, NULL, NULL, &error);
  g_assert_no_error (error);
  plan_one_candidate (model, "calibration: {reduce: 0.1}\n", plain_cost, calibrated_cost);
}

/* A float32 kernel's row sum is the reference's one accumulator (fw_op_fused_reduction_is_chain): the reduce
 * factor prices it fused too, and the rest of the kernel runs in its waits, so the kernel takes the longer
 * of the two. A half kernel sums in lanes, at the plain rate whatever the factor; its maximum is still one
 * chain. */
static void
test_fused_reduce_chain (void)
{
  FwCostEstimate a, b;
  const gdouble n = 64 * 1024, one_pass = n / 10e9;

  plan_centre ("ReduceMean", FW_DTYPE_FLOAT, &a, &b);
  /* Plain: the sum and the subtraction each one pass at the vector rate, overlapped. */
  assert_rel (a.time_after_s, one_pass);
  /* A chain ten times slower: the sum alone sets the kernel's time, on both sides. */
  assert_rel (b.time_after_s, 10 * one_pass);
  assert_rel (b.time_before_s - a.time_before_s, 9 * one_pass);
  plan_centre ("ReduceMean", FW_DTYPE_FLOAT16, &a, &b);
  assert_rel (b.time_after_s, a.time_after_s);
  assert_rel (b.time_before_s - a.time_before_s, 9 * one_pass);
  /* A maximum waits for each comparison in a half kernel too. */
  plan_centre ("ReduceMax", FW_DTYPE_FLOAT16, &a, &b);
  assert_rel (b.time_after_s, 10 * one_pass);
}

/* Exp is the C library's expf in the fused kernel as in the interpreter: the factor prices both sides, and
 * the saving is the round trip's, not the function's. */
static void
test_fused_libm_classed (void)
{
  FwCostEstimate a, b;
  gdouble exp_flops = 64 * 1024 * fw_op_elementwise_weight ("Exp");

  plan_unary_add ("Exp", &a, &b);
  assert_rel (b.time_before_s - a.time_before_s, 9 * exp_flops / 10e9);
  assert_rel (b.time_after_s - a.time_after_s, 9 * exp_flops / 10e9);
}

/* The one candidate picks takes on model, costed with the plain profile and with an exp factor of 0.1: the
 * factor must price the unfused side only, so the fused kernel costs the same with it. */
static void
check_fused_exp_plain (FwModel *model, gboolean (*picks) (const FwCandidate *cand))
{
  g_autofree char *calibrated_yaml = g_strconcat (compute_bound, "calibration: {exp: 0.1}\n", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) plain = fw_profile_load_data ("plain.yaml", compute_bound, strlen (compute_bound), &error);
  g_autoptr(FwProfile) calibrated = fw_profile_load_data ("calibrated.yaml", calibrated_yaml,
                                                          strlen (calibrated_yaml), &error);
  FwProfile *profiles[2] = { plain, calibrated };
  FwCostEstimate cost[2];

  g_assert_no_error (error);
  for (guint p = 0; p < 2; p++)
    {
      g_autoptr(FwPlan) plan = NULL;
      FwPlanOptions options;
      guint found = 0;

      fw_plan_options_init (&options);
      plan = fw_plan_new (model, profiles[p], NULL, &options, &error);
      g_assert_no_error (error);
      for (guint c = 0; c < plan->candidates->len; c++)
        {
          FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
          if (picks (cand))
            {
              cost[p] = *fw_candidate_get_cost (cand);
              found++;
            }
        }
      g_assert_cmpuint (found, ==, 1);
    }
  g_assert_cmpfloat (cost[1].time_before_s, >, cost[0].time_before_s * 1.01);
  assert_rel (cost[1].time_after_s, cost[0].time_after_s);
}

static gboolean
is_attention (const FwCandidate *cand)
{
  return strcmp (cand->kind, "attention") == 0;
}

/* A fused attention's softmax exps are the kernel's fw_exp, not the C library's: the exp factor
 * prices the unfused side only, so the fused kernel costs the same with it (with expf still classed, it
 * cost more). */
static void
test_attention_exp_plain (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_SHORT);

  check_fused_exp_plain (model, is_attention);
}

static gboolean
has_softmax (const FwCandidate *cand)
{
  for (guint n = 0; n < cand->nodes->len; n++)
    if (strcmp (((FwNode *) g_ptr_array_index (cand->nodes, n))->op_type, "Softmax") == 0)
      return TRUE;
  return FALSE;
}

/* A Softmax outside attention (swin_t's, after its relative position bias) computes its exps with fw_exp
 * too (fw-host-region.c): fused, the exp factor prices only the unfused run. */
static void
test_softmax_exp_plain (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  FwGraph *g = fw_model_get_graph (model);
  gint64 x[2] = { 192, 49 }, b[1] = { 49 };

  fw_test_add_float_input (g, "x", 2, x);
  fw_test_add_random_weight (g, rand, "b", 1, b, 1.0f);
  fw_test_add_node3 (g, "Add", "bias", "s", "x", "b", NULL);
  fw_test_add_node3 (g, "Softmax", "softmax", "p", "s", NULL, NULL);
  fw_test_add_node3 (g, "Mul", "scale", "y", "p", "p", NULL);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  check_fused_exp_plain (model, has_softmax);
}

static void
test_no_probe_refuses (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = NULL;

  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  p = fw_host_calibrate (NULL, NULL, NULL, NULL, NULL, &error);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  g_assert_null (p);
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
}

static void
calibrated_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  GError **error = data;
  FwProfile *p = fw_host_calibrate_finish (result, NULL, NULL, error);

  (void) source;
  g_assert_null (p);
}

/* Cancelled before the first benchmark: the async form reports it and writes no cache. */
static void
test_async_cancelled (void)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = fw_host_calibration_path ();

  g_remove (path);
  g_cancellable_cancel (cancellable);
  fw_host_calibrate_async (NULL, NULL, cancellable, calibrated_cb, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int argc, char **argv)
{
  g_autofree char *cache_home = NULL;
  int status;

  /* Before anything asks GLib for the cache folder: it remembers the first answer. */
  tmp_dir = g_dir_make_tmp ("fw-test-calibrate-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  cache_home = g_build_filename (tmp_dir, "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/hw/calibrate/fit", test_fit);
  g_test_add_func ("/core/hw/calibrate/fit-close-sizes", test_fit_close_sizes);
  g_test_add_func ("/core/hw/calibrate/fit-paired-factor", test_fit_paired_factor);
  g_test_add_func ("/core/hw/calibrate/agreement", test_agreement);
  g_test_add_func ("/core/hw/calibrate/fit-missing", test_fit_missing);
  g_test_add_func ("/core/hw/calibrate/cache-round-trip", test_cache_round_trip);
  g_test_add_func ("/core/hw/calibrate/corrupt-cache", test_corrupt_cache);
  g_test_add_func ("/core/hw/calibrate/applied-on-load", test_applied_on_load);
  g_test_add_func ("/core/hw/calibrate/ascend-untouched", test_ascend_untouched);
  g_test_add_func ("/core/hw/calibrate/op-classes", test_op_classes);
  g_test_add_func ("/core/hw/calibrate/cost-reads-factors", test_cost_reads_factors);
  g_test_add_func ("/core/hw/calibrate/alone-one-core", test_alone_one_core);
  g_test_add_func ("/core/hw/calibrate/fused-product-rate", test_fused_product_rate);
  g_test_add_func ("/core/hw/calibrate/fused-keeps-vector-rate", test_fused_keeps_vector_rate);
  g_test_add_func ("/core/hw/calibrate/fused-libm-classed", test_fused_libm_classed);
  g_test_add_func ("/core/hw/calibrate/attention-exp-plain", test_attention_exp_plain);
  g_test_add_func ("/core/hw/calibrate/softmax-exp-plain", test_softmax_exp_plain);
  g_test_add_func ("/core/hw/calibrate/fused-reduce-chain", test_fused_reduce_chain);
  g_test_add_func ("/core/hw/calibrate/no-probe-refuses", test_no_probe_refuses);
  g_test_add_func ("/core/hw/calibrate/async-cancelled", test_async_cancelled);
  status = g_test_run ();

  fw_test_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return status;
}
