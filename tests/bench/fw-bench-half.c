/* fw-bench-half: host SuperKernels in float16 against the same groups in float32, as ratios.
 *
 *   fw-bench-half
 *
 * LayerNorm (a residual Add and LayerNormalization over 256, on bert_like's [2, 128, 256]) and erf-GELU
 * (x/√2 → Erf → +1 → ×x → ×0.5 on bert_like's MLP activation [2, 128, 1024]), each built in float32 and in
 * float16 and planned for the host: the float32 SuperKernel's time over the float16 one's (bar: at least
 * 1.0, the half kernel moving half the bytes), then the float16 kernel with the portable conversions
 * (FW_SK_PORTABLE: the baseline body and the portable conversions) for information. The half kernel runs its
 * AVX2 body where the CPU has AVX2 and F16C, and sums rows in lanes (docs/design.md §6.1): the float32 one
 * has neither, so on these shapes, which fit in L2, the ratio is mostly those two and not the bytes. One
 * thread, so the figures are the kernels' own; each sample repeats the call until it lasts at least 20 ms, the fastest of FW_BENCH_REPEAT (default 7) samples (the kernel's
 * own time: on a shared machine the others' load only ever adds), float32 and float16 samples alternating
 * so both see the same load. Exit 1 when a bar fails, 77 when no C compiler
 * is found. Never a unit test: times on shared machines are noisy. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/fw-targets.h"
#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"

static int repeat = 7;
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

static void
constant (FwGraph *g, const char *name, FwDType dtype, gint rank, const gint64 *dims, float value)
{
  gint64 n = 1;
  g_autoptr(FwTensor) t = NULL;

  for (gint i = 0; i < rank; i++)
    n *= dims[i];
  if (dtype == FW_DTYPE_FLOAT)
    {
      g_autofree float *v = g_new (float, n);
      for (gint64 i = 0; i < n; i++)
        v[i] = value;
      t = fw_tensor_new_float (rank, dims, v);
    }
  else
    {
      g_autofree guint16 *v = g_new (guint16, n);
      g_autoptr(GBytes) b = NULL;
      for (gint64 i = 0; i < n; i++)
        v[i] = fw_float_to_half (value);
      b = g_bytes_new (v, sizeof (guint16) * (gsize) n);
      t = fw_tensor_new (dtype, rank, dims, b);
    }
  fw_graph_add_initializer (g, name, t, NULL);
}

static void
op (FwGraph *g, const char *type, const char *out, const char *a, const char *b, const char *c)
{
  const char *in[3] = { a, b, c }, *outs[1] = { out };
  g_autofree char *name = g_strdup_printf ("/%s", out);

  fw_graph_add_node (g, type, "", name, c ? 3 : b ? 2 : 1, in, 1, outs, NULL);
}

static FwModel *
finish (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);

  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  return model;
}

/* y = LayerNormalization (x + r) over the last axis of [2, 128, 256]. */
static FwModel *
layernorm_model (FwDType dtype)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[3] = { FW_DIM_STATIC (2), FW_DIM_STATIC (128), FW_DIM_STATIC (256) };
  gint64 w[1] = { 256 };

  fw_graph_add_input (g, "x", dtype, 3, d, NULL);
  fw_graph_add_input (g, "r", dtype, 3, d, NULL);
  constant (g, "gamma", dtype, 1, w, 1.25f);
  constant (g, "beta", dtype, 1, w, 0.125f);
  op (g, "Add", "s", "x", "r", NULL);
  op (g, "LayerNormalization", "y", "s", "gamma", "beta");
  return finish (model);
}

/* y = x · (erf (x / √2) + 1) · 0.5 on [2, 128, 1024], as PyTorch's exporter emits it. */
static FwModel *
gelu_model (FwDType dtype)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[3] = { FW_DIM_STATIC (2), FW_DIM_STATIC (128), FW_DIM_STATIC (1024) };
  gint64 one[1] = { 1 };

  fw_graph_add_input (g, "x", dtype, 3, d, NULL);
  constant (g, "sqrt2", dtype, 0, one, 1.4142135381698608f);
  constant (g, "one", dtype, 0, one, 1.0f);
  constant (g, "half", dtype, 0, one, 0.5f);
  op (g, "Div", "t0", "x", "sqrt2", NULL);
  op (g, "Erf", "t1", "t0", NULL, NULL);
  op (g, "Add", "t2", "t1", "one", NULL);
  op (g, "Mul", "t3", "x", "t2", NULL);
  op (g, "Mul", "y", "t3", "half", NULL);
  return finish (model);
}

typedef struct
{
  FwModel   *model;
  FwPlan    *plan;
  FwTargets *targets;
  FwTargetKernel *kernel;
  FwArray  **in;
  FwArray  **out;
} Bench;

static gboolean
bench_init (Bench *b, FwModel *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_profile_lookup ("host", &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1);
  FwPlanOptions options;

  memset (b, 0, sizeof *b);
  b->model = model;
  fw_plan_options_init (&options);
  b->plan = fw_plan_new (model, profile, fw_test_builtin_rules (), &options, &error);
  g_assert_no_error (error);
  b->targets = fw_targets_build (b->plan, TRUE, FALSE, NULL, NULL, &error);
  g_assert_no_error (error);
  if (b->targets->toolchain == NULL)
    {
      printf ("SKIP: no C compiler: %s\n", b->targets->toolchain_error);
      exit (77);
    }
  for (guint i = 0; i < b->targets->kernels->len && b->kernel == NULL; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (b->targets->kernels, i);
      FwCandidate *c = g_ptr_array_index (b->plan->candidates, k->candidate);
      if (k->host_compiled && c->nodes->len == fw_graph_get_n_nodes (fw_model_get_graph (model)))
        b->kernel = k;
    }
  if (b->kernel == NULL)
    {
      printf ("no SuperKernel covers the whole group\n");
      return FALSE;
    }
  b->in = g_new0 (FwArray *, b->kernel->group.n_inputs + 1);
  b->out = g_new0 (FwArray *, b->kernel->group.n_outputs + 1);
  for (guint i = 0; i < b->kernel->group.n_inputs; i++)
    {
      FwValue *v = b->kernel->group.inputs[i];
      gint64 dims[FW_MAX_RANK];
      if (v->constant != NULL)
        {
          b->in[i] = fw_array_new_from_tensor (v->constant, &error);
          continue;
        }
      for (gint d = 0; d < v->rank; d++)
        dims[d] = v->dims[d].value;
      b->in[i] = fw_array_new (v->dtype, v->rank, dims, &error);
      for (gint64 e = 0; e < b->in[i]->n_elements; e++)
        fw_array_set_double (b->in[i], e, g_rand_double_range (rand, -2.0, 2.0));
    }
  return TRUE;
}

static void
bench_clear (Bench *b)
{
  for (guint i = 0; b->kernel && i < b->kernel->group.n_inputs; i++)
    fw_array_unref (b->in[i]);
  g_free (b->in);
  g_free (b->out);
  fw_targets_free (b->targets);
  fw_plan_free (b->plan);
  g_object_unref (b->model);
}

/* Seconds per call: calls repeated until the sample lasts 20 ms. */
static double
sample (Bench *b)
{
  g_autoptr(GError) error = NULL;
  double t0 = now (), t;
  gint calls = 0;

  do
    {
      if (!b->kernel->group.run (b->kernel->group.data, b->in, b->out, 1, &error))
        {
          printf ("kernel failed: %s\n", error->message);
          exit (1);
        }
      for (guint o = 0; o < b->kernel->group.n_outputs; o++)
        g_clear_pointer (&b->out[o], fw_array_unref);
      calls++;
      t = now () - t0;
    }
  while (t < 0.02);
  return t / calls;
}

static void
compare (const char *what, FwModel *(*make) (FwDType))
{
  Bench f32, f16;
  double t32[32], t16[32], tp[32], m32, m16, mp;
  char label[96];

  if (!bench_init (&f32, make (FW_DTYPE_FLOAT)) || !bench_init (&f16, make (FW_DTYPE_FLOAT16)))
    {
      failed = TRUE;
      return;
    }
  sample (&f32);
  sample (&f16);
  for (int r = 0; r < repeat; r++)
    {
      t32[r] = sample (&f32);
      t16[r] = sample (&f16);
      g_setenv ("FW_SK_PORTABLE", "1", TRUE);
      tp[r] = sample (&f16);
      g_unsetenv ("FW_SK_PORTABLE");
    }
  qsort (t32, repeat, sizeof (double), compare_double);
  qsort (t16, repeat, sizeof (double), compare_double);
  qsort (tp, repeat, sizeof (double), compare_double);
  m32 = t32[0];
  m16 = t16[0];
  mp = tp[0];
  printf ("%-10s float32 %8.1f us   float16 %8.1f us   float16 portable %8.1f us\n", what, m32 * 1e6, m16 * 1e6,
          mp * 1e6);
  g_snprintf (label, sizeof label, "%s: float32 time / float16 time", what);
  printf ("%-58s %10.2fx  (bar >= 1.00x)  %s\n", label, m32 / m16, m32 / m16 >= 1.0 ? "PASS" : "FAIL");
  g_snprintf (label, sizeof label, "%s: float32 time / float16 (portable) time", what);
  printf ("%-58s %10.2fx  (information)\n", label, m32 / mp);
  failed |= m32 / m16 < 1.0;
  bench_clear (&f32);
  bench_clear (&f16);
}

int
main (int argc, char *argv[])
{
  const char *r = g_getenv ("FW_BENCH_REPEAT");

  if (r != NULL)
    repeat = CLAMP (atoi (r), 1, 31);
  compare ("LayerNorm", layernorm_model);
  compare ("GELU", gelu_model);
  return failed ? 1 : 0;
}
