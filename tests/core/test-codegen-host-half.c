/* test-codegen-host-half.c: host SuperKernels in float16 and bfloat16: the generated conversions bit-exact
 * against the library's (every float16, rounding ties and overflow, with and without F16C), and compute
 * roots, elementwise, LayerNorm and convolution groups in both half types against the reference kernels,
 * which round after every op where the kernel rounds once. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-superkernel.h"
#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"

typedef struct
{
  char            *dir;
  FwHostToolchain *toolchain;   /* NULL when no compiler was found */
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = NULL;

  f->dir = fw_test_temp_dir ();
  cache = g_build_filename (f->dir, "kernels", NULL);
  f->toolchain = fw_host_toolchain_new (cache, &error);
  if (f->toolchain == NULL)
    g_test_message ("no toolchain: %s", error->message);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  fw_host_toolchain_free (f->toolchain);
  fw_test_remove_dir (f->dir);
  g_free (f->dir);
}

#define NEED_TOOLCHAIN(f)                                                                                  \
  if ((f)->toolchain == NULL)                                                                              \
    {                                                                                                      \
      g_test_skip ("no C compiler");                                                                       \
      return;                                                                                              \
    }

static FwNode *
node (FwGraph *g, const char *op, const char *out, const char *a, const char *b, const char *c)
{
  const char *ins[3] = { a, b, c };
  const char *outs[1] = { out };
  guint n = c ? 3 : b ? 2 : 1;
  FwNode *nd = fw_graph_add_node (g, op, "", out, n, ins, 1, outs, NULL);

  g_assert_nonnull (nd);
  return nd;
}

static guint16
to_half (float v, FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 ? fw_float_to_half (v) : fw_float_to_bfloat16 (v);
}

/* A weight of dtype (float32, float16 or bfloat16) with values in [-scale, scale]. */
static void
weight (FwGraph *g, GRand *rand, const char *name, FwDType dtype, guint rank, const gint64 *dims, double scale)
{
  gint64 n = 1;
  g_autoptr(FwTensor) t = NULL;
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  if (dtype == FW_DTYPE_FLOAT)
    {
      g_autofree float *v = g_new (float, MAX (n, 1));
      for (gint64 i = 0; i < n; i++)
        v[i] = (float) g_rand_double_range (rand, -scale, scale);
      t = fw_tensor_new_float (rank, dims, v);
    }
  else
    {
      g_autofree guint16 *v = g_new (guint16, MAX (n, 1));
      for (gint64 i = 0; i < n; i++)
        v[i] = to_half ((float) g_rand_double_range (rand, -scale, scale), dtype);
      bytes = g_bytes_new (v, sizeof (guint16) * (gsize) n);
      t = fw_tensor_new (dtype, rank, dims, bytes);
    }
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* A one-element constant of dtype. */
static void
constant (FwGraph *g, const char *name, FwDType dtype, float value)
{
  g_autoptr(FwTensor) t = NULL;

  if (dtype == FW_DTYPE_FLOAT)
    t = fw_tensor_new_float (0, NULL, &value);
  else
    {
      guint16 h = to_half (value, dtype);
      g_autoptr(GBytes) b = g_bytes_new (&h, 2);
      t = fw_tensor_new (dtype, 0, NULL, b);
    }
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
input (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims)
{
  FwDim d[8];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, dtype, rank, d, NULL));
}

/* Links the graph with the outputs named (NULL-terminated), infers shapes and plans. */
static FwPlan *
finish (FwModel *model, const char *out, ...)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwGraph *g = fw_model_get_graph (model);
  FwPlanOptions options;
  FwPlan *plan;

  va_list args;

  va_start (args, out);
  for (const char *o = out; o != NULL; o = va_arg (args, const char *))
    g_assert_true (fw_graph_add_output (g, o, NULL));
  va_end (args);
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.strategy = FW_STRATEGY_BALANCED;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static FwSuperKernel *
build (Fixture *f, FwPlan *plan, const FwCandidate *c)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwSuperKernel) k = fw_superkernel_generate (plan, c, &error);

  if (k == NULL)
    g_error ("candidate %u (%s): not generated: %s", c->index, c->kind, error->message);
  /* FW_DUMP_SUPERKERNELS=DIR keeps each generated source for reading. */
  if (g_getenv ("FW_DUMP_SUPERKERNELS") != NULL)
    {
      g_autofree char *name = g_strdup_printf ("half-%s-%u.c", c->kind, c->index);
      g_autofree char *path = g_build_filename (g_getenv ("FW_DUMP_SUPERKERNELS"), name, NULL);
      g_file_set_contents (path, fw_kernel_source_get_main (fw_superkernel_get_kernel_source (k)), -1, NULL);
    }
  if (!fw_superkernel_compile (k, f->toolchain, &error))
    g_error ("candidate %u (%s): not compiled: %s", c->index, c->kind, error->message);
  return g_steal_pointer (&k);
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
  a = fw_array_new (v->dtype, v->rank, dims, &error);
  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, g_rand_double_range (rand, -1.0, 1.0));
  return a;
}

/* Every candidate of the plan generates, compiles, and its outputs are within tol (abs and rel) of the
 * reference kernels run node by node on the same inputs; returns the number checked. */
static guint
check_plan (Fixture *f, FwPlan *plan, double tol)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  guint checked = 0;

  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      g_autoptr(FwSuperKernel) k = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(GRand) rand = g_rand_new_with_seed (11 + c);
      g_autoptr(GHashTable) given = g_hash_table_new (NULL, NULL);
      const FwKernelSource *src;
      FwGroupKernel *ref;
      g_autofree FwArray **ins = NULL, **rins = NULL, **outs = NULL, **routs = NULL;
      guint n_in, n_out;

      if (!fw_candidate_is_fused (cand))
        continue;
      k = build (f, plan, cand);
      src = fw_superkernel_get_kernel_source (k);
      n_in = fw_kernel_source_get_n_inputs (src);
      n_out = fw_kernel_source_get_n_outputs (src);
      ins = g_new0 (FwArray *, n_in + 1);
      outs = g_new0 (FwArray *, n_out + 1);
      for (guint i = 0; i < n_in; i++)
        {
          ins[i] = random_array (fw_kernel_source_get_input (src, i), rand);
          g_hash_table_insert (given, fw_kernel_source_get_input (src, i), ins[i]);
        }
      ref = fw_group_kernel_new_reference (plan, cand->index);
      rins = g_new0 (FwArray *, ref->n_inputs + 1);
      routs = g_new0 (FwArray *, ref->n_outputs + 1);
      for (guint i = 0; i < ref->n_inputs; i++)
        {
          rins[i] = g_hash_table_lookup (given, ref->inputs[i]);
          g_assert_nonnull (rins[i]);
        }
      g_assert_true (fw_superkernel_run (k, ins, outs, 2, &error));
      g_assert_no_error (error);
      g_assert_true (ref->run (ref->data, rins, routs, 2, &error));
      g_assert_no_error (error);
      for (guint o = 0; o < n_out; o++)
        {
          FwArray *want = NULL, *got = outs[o];
          for (guint r = 0; r < ref->n_outputs; r++)
            if (ref->outputs[r] == fw_kernel_source_get_output (src, o))
              want = routs[r];
          g_assert_nonnull (want);
          g_assert_cmpint (want->dtype, ==, got->dtype);
          for (gint64 i = 0; i < got->n_elements; i++)
            {
              double w = fw_array_get_double (want, i), x = fw_array_get_double (got, i);
              if (!(fabs (w - x) <= tol + tol * fabs (w)))
                g_error ("candidate %u (%s) output %u element %" G_GINT64_FORMAT ": %.9g, reference %.9g", c,
                         cand->kind, o, i, x, w);
            }
        }
      for (guint i = 0; i < n_in; i++)
        fw_array_unref (ins[i]);
      for (guint o = 0; o < n_out; o++)
        fw_array_unref (outs[o]);
      for (guint o = 0; o < ref->n_outputs; o++)
        g_clear_pointer (&routs[o], fw_array_unref);
      fw_group_kernel_reference_free (ref);
      checked++;
    }
  return checked;
}

/* Every fused group's root runs on oneDNN where it is built in (a Conv or product on half operands takes the
 * float32 primitive, the source widened each run and the constant weights once), else on sgemm, or on
 * `grouped` (the direct loop for a grouped Conv). */
static void
check_producers (Fixture *f, FwPlan *plan, const char *grouped)
{
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      g_autoptr(FwSuperKernel) k = NULL;

      if (!fw_candidate_is_fused (cand))
        continue;
      k = build (f, plan, cand);
      /* A 3x3 convolution on AVX2 may run on our Winograd kernel behind the oneDNN primitive's call. */
      if (g_strcmp0 (fw_superkernel_get_producer (k)->backend, "winograd") == 0)
        continue;
      g_assert_cmpstr (fw_superkernel_get_producer (k)->backend, ==,
                       fw_dnnl_library () != NULL ? "onednn" : cand->nodes->len > 0 &&
                       fw_node_get_attr_int (g_ptr_array_index (cand->nodes, 0), "group", 1) > 1 ? grouped : "openblas");
    }
}

static const FwDType half_types[] = { FW_DTYPE_FLOAT16, FW_DTYPE_BFLOAT16 };

/* The tolerance of a group against the reference: a few roundings of the type apart. */
static double
tol_for (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 ? 1e-2 : 4e-2;
}

/* ---- conversions ---- */

/* y = (x * 1) * 1 over every bit pattern: widening and narrowing are exact (NaN stays NaN), through the row
 * converters and the portable path alike. Then a Cast from float32 inside a group rounds ties to even,
 * overflows to infinity and flushes below the smallest subnormal to zero exactly as the library does. */
static void
check_convert (Fixture *f, FwDType dtype)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  gint64 dims[1] = { 65536 + 37 };
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwArray) x = NULL, xf = NULL;

  input (g, "x", dtype, 1, dims);
  input (g, "xf", FW_DTYPE_FLOAT, 1, dims);
  constant (g, "one", dtype, 1.0f);
  node (g, "Mul", "a", "x", "one", NULL);
  node (g, "Mul", "y", "a", "one", NULL);
  fw_node_set_attr_int (node (g, "Cast", "c", "xf", NULL, NULL), "to", dtype);
  node (g, "Mul", "d", "c", "one", NULL);
  node (g, "Add", "z", "d", "y", NULL);
  plan = finish (model, "z", "y", "d", NULL);
  x = fw_array_new (dtype, 1, dims, &error);
  xf = fw_array_new (FW_DTYPE_FLOAT, 1, dims, &error);
  for (gint64 i = 0; i < dims[0]; i++)
    {
      guint16 h = (guint16) (i & 0xffff);
      float lo, hi, m;
      ((guint16 *) x->data)[i] = h;
      /* float32 inputs: the midpoint of two neighbours (a tie), a random point, values past the range. */
      lo = dtype == FW_DTYPE_FLOAT16 ? fw_half_to_float (h) : fw_bfloat16_to_float (h);
      hi = dtype == FW_DTYPE_FLOAT16 ? fw_half_to_float ((guint16) (h + 1)) : fw_bfloat16_to_float ((guint16) (h + 1));
      m = i % 3 == 0 ? lo + (hi - lo) / 2 : i % 3 == 1 ? lo + (hi - lo) * (float) g_rand_double (rand) : lo * 70000.0f;
      ((float *) xf->data)[i] = m;
    }
  for (guint pass = 0; pass < 2; pass++)
    {
      guint kernels = 0;
      if (pass == 1)
        g_setenv ("FW_SK_PORTABLE", "1", TRUE);
      for (guint c = 0; c < plan->candidates->len; c++)
        {
          const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
          g_autoptr(FwSuperKernel) k = NULL;
          const FwKernelSource *src;
          g_autofree FwArray **ins = NULL, **outs = NULL;

          if (!fw_candidate_is_fused (cand))
            continue;
          k = build (f, plan, cand);
          src = fw_superkernel_get_kernel_source (k);
          ins = g_new0 (FwArray *, fw_kernel_source_get_n_inputs (src) + 1);
          outs = g_new0 (FwArray *, fw_kernel_source_get_n_outputs (src) + 1);
          for (guint i = 0; i < fw_kernel_source_get_n_inputs (src); i++)
            ins[i] = fw_kernel_source_get_input (src, i)->dtype == FW_DTYPE_FLOAT ? xf : x;
          g_assert_true (fw_superkernel_run (k, ins, outs, 2, &error));
          g_assert_no_error (error);
          for (guint o = 0; o < fw_kernel_source_get_n_outputs (src); o++)
            {
              const char *name = fw_kernel_source_get_output (src, o)->name;
              for (gint64 i = 0; i < dims[0]; i++)
                {
                  guint16 got = ((guint16 *) outs[o]->data)[i], want;
                  float wf;
                  if (strcmp (name, "y") == 0)
                    want = ((guint16 *) x->data)[i];
                  else if (strcmp (name, "d") == 0 || strcmp (name, "c") == 0)
                    want = to_half (((float *) xf->data)[i], dtype);
                  else
                    continue;
                  wf = dtype == FW_DTYPE_FLOAT16 ? fw_half_to_float (want) : fw_bfloat16_to_float (want);
                  if (isnan (wf))
                    g_assert_true ((dtype == FW_DTYPE_FLOAT16 ? (got & 0x7c00) == 0x7c00 && (got & 0x3ff)
                                                              : (got & 0x7f80) == 0x7f80 && (got & 0x7f)));
                  else if (got != want)
                    g_error ("%s %s, %s: element %" G_GINT64_FORMAT " is 0x%04x, want 0x%04x", fw_dtype_name (dtype),
                             name, pass ? "portable" : "dispatched", i, got, want);
                }
              fw_array_unref (outs[o]);
              kernels++;
            }
        }
      g_assert_cmpuint (kernels, >=, 1);
      g_unsetenv ("FW_SK_PORTABLE");
    }
}

static void
test_convert (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    check_convert (f, half_types[t]);
}

/* ---- groups ---- */

/* MatMul + bias + Relu and Gemm + Sigmoid: half operands, float32 accumulation, one rounding at the end. */
static void
test_matmul (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    {
      FwDType dt = half_types[t];
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (5);
      gint64 x[3] = { 2, 40, 96 }, w[2] = { 96, 130 }, b[1] = { 130 }, w2[2] = { 72, 130 }, rs[1] = { 2 };
      const gint64 shape[2] = { 80, 130 };
      g_autoptr(FwPlan) plan = NULL;
      FwNode *gemm;

      input (g, "x", dt, 3, x);
      weight (g, rand, "w", dt, 2, w, 0.2);
      weight (g, rand, "b", dt, 1, b, 1.0);
      weight (g, rand, "w2", dt, 2, w2, 0.2);
      node (g, "MatMul", "m", "x", "w", NULL);
      node (g, "Add", "a", "m", "b", NULL);
      node (g, "Relu", "r", "a", NULL, NULL);
      {
        g_autoptr(FwTensor) st = fw_tensor_new_int64 (1, rs, shape);
        g_assert_nonnull (fw_graph_add_initializer (g, "shape", st, NULL));
      }
      node (g, "Reshape", "r2", "r", "shape", NULL);
      gemm = node (g, "Gemm", "gm", "r2", "w2", NULL);
      fw_node_set_attr_int (gemm, "transB", 1);
      fw_node_set_attr_float (gemm, "alpha", 0.5f);
      node (g, "Sigmoid", "y", "gm", NULL, NULL);
      plan = finish (model, "y", NULL);
      g_assert_cmpuint (check_plan (f, plan, tol_for (dt)), >=, 2);
      check_producers (f, plan, "openblas");
    }
}

/* Scores Q·Kᵀ / 4 + mask, Softmax over the keys, · V, the heads merged after: one fused attention on half
 * operands, widened as they are loaded, its result rounded once: within a few roundings of the reference,
 * which rounds after every op. Before half attention the planner refused the chain (FW-NF-024) and no
 * attention candidate existed. */
static void
test_attention (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    {
      FwDType dt = half_types[t];
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      gint64 q[4] = { 1, 2, 40, 16 }, k[4] = { 1, 2, 72, 16 }, m[4] = { 1, 1, 1, 72 };
      const gint64 perm_k[4] = { 0, 1, 3, 2 }, perm_o[4] = { 0, 2, 1, 3 };
      g_autoptr(FwPlan) plan = NULL;
      guint attentions = 0;

      input (g, "q", dt, 4, q);
      input (g, "k", dt, 4, k);
      input (g, "v", dt, 4, k);
      input (g, "mask", dt, 4, m);
      constant (g, "scale", dt, 4.0f);
      fw_node_set_attr_ints (node (g, "Transpose", "kt", "k", NULL, NULL), "perm", 4, perm_k);
      node (g, "MatMul", "s", "q", "kt", NULL);
      node (g, "Div", "sd", "s", "scale", NULL);
      node (g, "Add", "sm", "sd", "mask", NULL);
      fw_node_set_attr_int (node (g, "Softmax", "p", "sm", NULL, NULL), "axis", -1);
      node (g, "MatMul", "o", "p", "v", NULL);
      fw_node_set_attr_ints (node (g, "Transpose", "y", "o", NULL, NULL), "perm", 4, perm_o);
      plan = finish (model, "y", NULL);
      for (guint c = 0; c < plan->candidates->len; c++)
        {
          const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
          attentions += fw_candidate_is_fused (cand) && strcmp (cand->kind, "attention") == 0;
        }
      g_assert_cmpuint (attentions, ==, 1);
      g_assert_cmpuint (check_plan (f, plan, tol_for (dt)), >=, 1);
    }
}

/* A residual Add and LayerNormalization over rows of 700 (over one conversion block, not a multiple of
 * the vector width), and the decomposed GELU of BERT. */
static void
test_layernorm_gelu (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    {
      FwDType dt = half_types[t];
      g_autoptr(FwModel) model = fw_test_model_new (17);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (9);
      gint64 x[3] = { 2, 6, 700 }, w[1] = { 700 };
      g_autoptr(FwPlan) plan = NULL;

      input (g, "x", dt, 3, x);
      input (g, "r", dt, 3, x);
      weight (g, rand, "gamma", dt, 1, w, 1.0);
      weight (g, rand, "beta", dt, 1, w, 1.0);
      constant (g, "isq", dt, (float) (1.0 / G_SQRT2));
      constant (g, "half", dt, 0.5f);
      constant (g, "one", dt, 1.0f);
      node (g, "Add", "s", "x", "r", NULL);
      fw_node_set_attr_float (node (g, "LayerNormalization", "ln", "s", "gamma", "beta"), "epsilon", 1e-5f);
      /* 0.5 x (1 + erf (x / sqrt 2)) */
      node (g, "Mul", "g0", "ln", "isq", NULL);
      node (g, "Erf", "g1", "g0", NULL, NULL);
      node (g, "Add", "g2", "g1", "one", NULL);
      node (g, "Mul", "g3", "ln", "g2", NULL);
      node (g, "Mul", "y", "g3", "half", NULL);
      plan = finish (model, "y", NULL);
      g_assert_cmpuint (check_plan (f, plan, tol_for (dt)), >=, 1);
    }
}

/* Conv + bias + Relu and a depthwise Conv: on oneDNN where it is built in (the source widened into a float32
 * panel, the constant weights widened once, the epilogue rounding the result), else by im2col and sgemm and
 * by the direct loop. */
static void
test_conv (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    {
      FwDType dt = half_types[t];
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (13);
      gint64 x[4] = { 1, 8, 20, 20 }, w[4] = { 16, 8, 3, 3 }, b[1] = { 16 }, dw[4] = { 16, 1, 3, 3 };
      g_autoptr(FwPlan) plan = NULL;
      FwNode *c1, *c2;
      const gint64 pads[4] = { 1, 1, 1, 1 };

      input (g, "x", dt, 4, x);
      weight (g, rand, "w", dt, 4, w, 0.3);
      weight (g, rand, "b", dt, 1, b, 0.5);
      weight (g, rand, "dw", dt, 4, dw, 0.3);
      c1 = node (g, "Conv", "c1", "x", "w", "b");
      fw_node_set_attr_ints (c1, "pads", 4, pads);
      node (g, "Relu", "r1", "c1", NULL, NULL);
      c2 = node (g, "Conv", "c2", "r1", "dw", NULL);
      fw_node_set_attr_ints (c2, "pads", 4, pads);
      fw_node_set_attr_int (c2, "group", 16);
      node (g, "Relu", "y", "c2", NULL, NULL);
      plan = finish (model, "y", NULL);
      g_assert_cmpuint (check_plan (f, plan, tol_for (dt)), >=, 2);
      check_producers (f, plan, "direct");
    }
}

/* A half Conv + bias + Relu is one oneDNN primitive (bias and Relu its post-ops), its float32 result rounded
 * once, so it reads and writes channels-last (FW_DNNL_NHWC forces that form on any CPU): two such kernels,
 * the first writing channels-last and the second reading it, give the very bytes of both run plain. */
static void
test_conv_channels_last (Fixture *f, gconstpointer data)
{
  NEED_TOOLCHAIN (f);
  if (fw_dnnl_library () == NULL)
    {
      g_test_skip ("built without oneDNN");
      return;
    }
  g_setenv ("FW_DNNL_NHWC", "1", TRUE);
  for (guint t = 0; t < G_N_ELEMENTS (half_types); t++)
    {
      FwDType dt = half_types[t];
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (17);
      gint64 x[4] = { 1, 8, 12, 12 }, w[4] = { 16, 8, 3, 3 }, b[1] = { 16 }, dw[4] = { 16, 1, 3, 3 };
      const gint64 pads[4] = { 1, 1, 1, 1 };
      g_autoptr(FwPlan) plan = NULL;
      g_autoptr(GError) error = NULL;
      FwSuperKernel *k[2] = { NULL, NULL };
      FwArray *in[2][4] = { { NULL } }, *plain[2][2] = { { NULL } }, *cl[2][2] = { { NULL } };
      g_autoptr(FwArray) back = NULL;
      FwNode *c2;
      guint n = 0;

      input (g, "x", dt, 4, x);
      weight (g, rand, "w", dt, 4, w, 0.3);
      weight (g, rand, "b", dt, 1, b, 0.5);
      weight (g, rand, "dw", dt, 4, dw, 0.3);
      weight (g, rand, "db", dt, 1, b, 0.5);
      fw_node_set_attr_ints (node (g, "Conv", "c1", "x", "w", "b"), "pads", 4, pads);
      node (g, "Relu", "r1", "c1", NULL, NULL);
      c2 = node (g, "Conv", "c2", "r1", "dw", "db");
      fw_node_set_attr_ints (c2, "pads", 4, pads);
      fw_node_set_attr_int (c2, "group", 16);
      node (g, "Relu", "y", "c2", NULL, NULL);
      plan = finish (model, "y", NULL);
      for (guint c = 0; c < plan->candidates->len && n < 2; c++)
        if (fw_candidate_is_fused (g_ptr_array_index (plan->candidates, c)))
          k[n++] = build (f, plan, g_ptr_array_index (plan->candidates, c));
      g_assert_cmpuint (n, ==, 2);
      for (guint i = 0; i < 2; i++)
        {
          const FwKernelSource *src = fw_superkernel_get_kernel_source (k[i]);
          guint32 allowed = 0;

          g_assert_true (fw_superkernel_channels_last (k[i], &allowed));
          g_assert_cmpuint (allowed & 1u, ==, 1u);
          for (guint j = 0; j < fw_kernel_source_get_n_inputs (src); j++)
            in[i][j] = random_array (fw_kernel_source_get_input (src, j), rand);
        }
      /* The second kernel's source is the first's result, both ways. */
      g_assert_true (fw_superkernel_run (k[0], in[0], plain[0], 2, &error));
      g_assert_no_error (error);
      g_assert_true (fw_superkernel_run_layout (k[0], in[0], cl[0], TRUE, 2, &error));
      g_assert_no_error (error);
      g_assert_true (cl[0][0]->nhwc);
      g_clear_pointer (&in[1][0], fw_array_unref);
      in[1][0] = plain[0][0];
      g_assert_true (fw_superkernel_run (k[1], in[1], plain[1], 2, &error));
      g_assert_no_error (error);
      in[1][0] = cl[0][0];
      g_assert_true (fw_superkernel_run_layout (k[1], in[1], cl[1], FALSE, 2, &error));
      g_assert_no_error (error);
      in[1][0] = NULL;
      g_assert_false (cl[1][0]->nhwc);
      g_assert_cmpmem (cl[1][0]->data, cl[1][0]->n_bytes, plain[1][0]->data, plain[1][0]->n_bytes);
      back = fw_array_to_plain (cl[0][0], &error);
      g_assert_no_error (error);
      g_assert_cmpmem (back->data, back->n_bytes, plain[0][0]->data, plain[0][0]->n_bytes);
      for (guint i = 0; i < 2; i++)
        {
          for (guint j = 0; j < 4; j++)
            g_clear_pointer (&in[i][j], fw_array_unref);
          g_clear_pointer (&plain[i][0], fw_array_unref);
          g_clear_pointer (&cl[i][0], fw_array_unref);
          fw_superkernel_free (k[i]);
        }
    }
  g_unsetenv ("FW_DNNL_NHWC");
}

/* A kernel's AVX2 body and its baseline body (FW_SK_PORTABLE) compute the same operations in the same
 * order, lane sums included, so they give the same bits: on a Softmax, a ReduceSum over 1,000 (neither a
 * multiple of the eight lanes nor of a conversion block) and the LayerNorm + GELU above, in a half type
 * (data: FW_DTYPE_FLOAT16) and in float32, whose kernels get the two bodies from 65,536 outputs (25 rows of
 * 1,000 per batch here). A wrong clobber or a lane out of place shows as a difference here before it shows
 * in a tolerance; a float32 kernel that kept one body shows as a source without fw_sk_entry_avx2. */
static void
test_bodies_agree (Fixture *f, gconstpointer data)
{
  const FwDType dt = (FwDType) GPOINTER_TO_INT (data);
  const gsize eb = dt == FW_DTYPE_FLOAT ? 4 : 2;
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (21);
  gint64 x[3] = { 3, dt == FW_DTYPE_FLOAT ? 25 : 5, 1000 }, w[1] = { 1000 }, axes[1] = { -1 };
  g_autoptr(FwPlan) plan = NULL;
  guint compared = 0;

  NEED_TOOLCHAIN (f);
  input (g, "x", dt, 3, x);
  weight (g, rand, "gamma", dt, 1, w, 1.0);
  weight (g, rand, "beta", dt, 1, w, 1.0);
  constant (g, "isq", dt, (float) (1.0 / G_SQRT2));
  constant (g, "one", dt, 1.0f);
  node (g, "Softmax", "s0", "x", NULL, NULL);
  node (g, "Mul", "sm", "s0", "isq", NULL);
  fw_node_set_attr_ints (node (g, "ReduceSum", "r0", "x", NULL, NULL), "axes", 1, axes);
  node (g, "Add", "rs", "r0", "one", NULL);
  node (g, "LayerNormalization", "ln", "x", "gamma", "beta");
  node (g, "Mul", "g0", "ln", "isq", NULL);
  node (g, "Erf", "g1", "g0", NULL, NULL);
  node (g, "Add", "y", "g1", "one", NULL);
  plan = finish (model, "sm", "rs", "y", NULL);
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      g_autoptr(FwSuperKernel) k = NULL;
      const FwKernelSource *src;
      g_autofree FwArray **ins = NULL, **wide = NULL, **base = NULL;
      g_autoptr(GError) error = NULL;
      guint n_in, n_out;

      if (!fw_candidate_is_fused (cand))
        continue;
      k = build (f, plan, cand);
      src = fw_superkernel_get_kernel_source (k);
      g_assert_nonnull (strstr (fw_kernel_source_get_main (src), "fw_sk_entry_avx2"));
      n_in = fw_kernel_source_get_n_inputs (src);
      n_out = fw_kernel_source_get_n_outputs (src);
      ins = g_new0 (FwArray *, n_in + 1);
      wide = g_new0 (FwArray *, n_out + 1);
      base = g_new0 (FwArray *, n_out + 1);
      for (guint i = 0; i < n_in; i++)
        ins[i] = random_array (fw_kernel_source_get_input (src, i), rand);
      g_assert_true (fw_superkernel_run (k, ins, wide, 2, &error));
      g_setenv ("FW_SK_PORTABLE", "1", TRUE);
      g_assert_true (fw_superkernel_run (k, ins, base, 2, &error));
      g_unsetenv ("FW_SK_PORTABLE");
      g_assert_no_error (error);
      for (guint o = 0; o < n_out; o++)
        {
          g_assert_cmpint (wide[o]->n_elements, ==, base[o]->n_elements);
          g_assert_cmpmem (wide[o]->data, wide[o]->n_elements * eb, base[o]->data, base[o]->n_elements * eb);
          fw_array_unref (wide[o]);
          fw_array_unref (base[o]);
          compared++;
        }
      for (guint i = 0; i < n_in; i++)
        fw_array_unref (ins[i]);
    }
  g_assert_cmpuint (compared, >=, 3);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/core/codegen/host/half/" path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("convert", test_convert);
  ADD ("matmul", test_matmul);
  ADD ("layernorm-gelu", test_layernorm_gelu);
  ADD ("conv", test_conv);
  ADD ("conv/channels-last", test_conv_channels_last);
  ADD ("attention", test_attention);
#undef ADD
  g_test_add ("/core/codegen/host/half/bodies-agree", Fixture, GINT_TO_POINTER (FW_DTYPE_FLOAT16), fixture_set_up,
              test_bodies_agree, fixture_tear_down);
  g_test_add ("/core/codegen/host/half/bodies-agree-float32", Fixture, GINT_TO_POINTER (FW_DTYPE_FLOAT),
              fixture_set_up, test_bodies_agree, fixture_tear_down);
  return g_test_run ();
}
