/* test-ascend-int8.c: integer (QDQ) groups on the Ascend target and its twin.
 *
 * The twin's side (tests/twin/int8.cpp): the Matmul API's int8 x int8 -> int32 product with the activation
 * zero point's correction, requantised through Cast float -> float CAST_RINT and float -> half -> int8, equals
 * the integer arithmetic exactly; CAST_ROUND in its place, or the correction left out, gives other numbers; a
 * uint8_t A, a float -> int8 Cast and a negative half cast to uint8_t are the diagnostics their pages imply.
 *
 * The generator's side (core/codegen/ascend/fw-ascend-int8.c): a QuantizeLinear → DequantizeLinear → MatMul
 * (per-channel int8 weights) → Add (bias) [→ Relu → QuantizeLinear] group is one cube + vector kernel whose
 * twin run equals the reference interpreter (float within the float tolerance, requantised within one step),
 * with no diagnostic, moving the bytes the plan priced; the same kernel with its rounding made CAST_ROUND or its
 * zero-point correction removed fails. A Conv group (C = W x im2col(x)) and a two-activation MatMul (attention's
 * products, batched) are kernels of their own forms, equal to the reference on the twin and failing when their
 * padding, offsets or zero-point corrections are broken. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/ascend/fw-ascend.h"
#include "codegen/fw-ascend-twin.h"
#include "codegen/fw-targets.h"
#include "export/fw-fused-model.h"
#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "fw-test-twin.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-plan-private.h"
#include "plan/fw-qdq.h"
#include "session/fw-package-twin.h"

static FwTestTwin shared;

static FwAscendTwin *
get_twin (void)
{
  return fw_test_twin_get (&shared);
}

static char *
fixture_text (const char *name, int variant)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "twin", name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  return g_strdup_printf ("#define BROKEN %d\n#line 1 \"%s\"\n%s", variant, name, text);
}

/* ---- the twin's contract ---- */

#define FM 32
#define FN 32
#define FK 64

/* tests/twin/int8.cpp after `#define BROKEN variant` on seeded A and B; *c its output, *want the integers. */
static FwTwinRun *
run_contract (int variant, FwArray **c, FwArray **want)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = fixture_text ("int8.cpp", variant);
  gint64 da[2] = { FM, FK }, db[2] = { FK, FN }, dn = FN, dc[2] = { FM, FN };
  g_autoptr(FwArray) a = fw_array_new (variant == 3 ? FW_DTYPE_UINT8 : FW_DTYPE_INT8, 2, da, &error);
  g_autoptr(FwArray) b = fw_array_new (FW_DTYPE_INT8, 2, db, &error);
  g_autoptr(FwArray) corr = fw_array_new (FW_DTYPE_INT32, 1, &dn, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  FwArray *in[3] = { a, b, corr };
  FwTwinKernel k = { "fixture", "int8.cpp", NULL, NULL, NULL, { 0 }, 1 };
  FwTwinRun *run;

  k.kernel_source = text;
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, g_rand_int_range (rand, variant == 3 ? 0 : -10, 11));
  /* Small weights: most sums stay inside int8 after the halving, so the ties are seen, not clamped. */
  for (gint64 i = 0; i < b->n_elements; i++)
    fw_array_set_double (b, i, g_rand_int_range (rand, -2, 3));
  for (gint64 j = 0; j < FN; j++)
    {
      gint64 sum = 0;
      for (gint64 q = 0; q < FK; q++)
        sum += (gint64) fw_array_get_double (b, q * FN + j);
      fw_array_set_double (corr, j, (double) (-3 * sum));
    }
  *c = fw_array_new0 (FW_DTYPE_INT8, 2, dc, &error);
  *want = fw_array_new0 (FW_DTYPE_INT8, 2, dc, &error);
  /* y = 0.5 sum (a - 3) b, rounded half to even, clamped to int8 less the zero point -2, plus it. */
  for (gint64 i = 0; i < FM; i++)
    for (gint64 j = 0; j < FN; j++)
      {
        gint64 s = 0;
        double v;
        for (gint64 q = 0; q < FK; q++)
          s += ((gint64) fw_array_get_double (a, i * FK + q) - 3) * (gint64) fw_array_get_double (b, q * FN + j);
        v = nearbyint (0.5 * (double) s);
        v = CLAMP (v, -126.0, 129.0) - 2.0;
        fw_array_set_double (*want, i * FN + j, v);
      }
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 3, c, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("int8 %d: %s %s:%d: %s", variant, e->code, e->file, e->line, e->message);
    }
  return run;
}

/* How many elements differ, and by how much at most. */
static gint64
differences (const FwArray *a, const FwArray *b, gdouble *most)
{
  gint64 n = 0;

  *most = 0;
  for (gint64 i = 0; i < a->n_elements; i++)
    {
      gdouble d = fabs (fw_array_get_double (a, i) - fw_array_get_double (b, i));
      n += d != 0;
      *most = MAX (*most, d);
    }
  return n;
}

static void
test_contract (void)
{
  static const struct { int variant; const char *code; } broken[] = {
    { 3, "FW-TWIN-MATMUL-TYPE" }, { 4, "FW-TWIN-CAST-MODE" }, { 5, "FW-TWIN-CAST-RANGE" },
  };
  gdouble most = 0;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  {
    g_autoptr(FwArray) c = NULL;
    g_autoptr(FwArray) want = NULL;
    g_autoptr(FwTwinRun) run = run_contract (0, &c, &want);
    const FwTwinBlockCounts *b = &g_array_index (fw_twin_run_get_blocks (run), FwTwinBlockCounts, 0);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_cmpint (differences (c, want, &most), ==, 0);
    /* The cube's share in int8: 32 x 32 x 64 multiply-adds on 1-byte inputs; A's two row blocks and B once. */
    g_assert_cmpuint (b->cube_macs, ==, FM * FN * FK);
    g_assert_cmpuint (b->cube_size, ==, 1);
    g_assert_cmpuint (b->cube_bytes, ==, FM * FK + FK * FN);
  }
  /* CAST_ROUND rounds the ties (every odd sum) away from zero: one step off there, which verification's
   * one-step rule would let pass: only an exact check catches the wrong mode. */
  {
    g_autoptr(FwArray) c = NULL;
    g_autoptr(FwArray) want = NULL;
    g_autoptr(FwTwinRun) run = run_contract (1, &c, &want);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_cmpint (differences (c, want, &most), >, FM * FN / 8);
    g_assert_cmpfloat (most, ==, 1.0);
  }
  /* Without the correction every element is off by 1.5 sum_k B[k][c] before the clamp. */
  {
    g_autoptr(FwArray) c = NULL;
    g_autoptr(FwArray) want = NULL;
    g_autoptr(FwTwinRun) run = run_contract (2, &c, &want);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_cmpint (differences (c, want, &most), >, FM * FN / 2);
    g_assert_cmpfloat (most, >, 1.0);
  }
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(FwArray) c = NULL;
      g_autoptr(FwArray) want = NULL;
      g_autoptr(FwTwinRun) run = run_contract (broken[i].variant, &c, &want);
      const FwTwinDiagnostic *d = fw_twin_run_find (run, broken[i].code);

      g_assert_nonnull (d);
      g_assert_cmpstr (d->file, ==, "int8.cpp");
    }
}

/* ---- the generator ---- */

static void
tensor (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims, const double *v, gint64 n)
{
  gsize size = dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_INT32 ? 4 : 1;
  g_autofree guint8 *buf = g_malloc0 (MAX (n, 1) * size);
  g_autoptr(GBytes) b = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (gint64 i = 0; i < n; i++)
    if (dtype == FW_DTYPE_FLOAT)
      ((float *) buf)[i] = (float) v[i];
    else if (dtype == FW_DTYPE_INT8)
      ((gint8 *) buf)[i] = (gint8) v[i];
    else
      buf[i] = (guint8) v[i];
  b = g_bytes_new (buf, n * size);
  t = fw_tensor_new (dtype, rank, dims, b);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static FwNode *
node (FwGraph *g, const char *op, const char *name, const char *a, const char *b, const char *c, const char *out)
{
  const char *ins[3] = { a, b, c }, *outs[1] = { out };
  FwNode *n = fw_graph_add_node (g, op, "", name, c ? 3 : b ? 2 : 1, ins, 1, outs, NULL);

  g_assert_nonnull (n);
  return n;
}

#define GM 40
#define GK 96
#define GN 48

/* x [40, 96] float quantised to uint8 (scale 0.5, zero point 140: x / 0.5 lands on .5 for x = k/4), int8
 * weights [96, 48] per column, + bias; requantised: Relu, then QuantizeLinear to uint8. conv: the same
 * wrapping around a 1x1 Conv (refused). shared: a second product reads the same dequantised weights, so
 * their DequantizeLinear belongs to neither group. */
static FwModel *
model_new_full (gboolean requantised, gboolean conv, gboolean shared_weights)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[4] = { FW_DIM_STATIC (conv ? 1 : GM), FW_DIM_STATIC (GK), FW_DIM_STATIC (conv ? 4 : 1), FW_DIM_STATIC (conv ? 4 : 1) };
  gint64 wd[4] = { conv ? GN : GK, conv ? GK : GN, 1, 1 }, nd[1] = { GN };
  g_autofree double *w = g_new (double, GK * GN);
  double ws[GN], wz[GN], bias[GN], xs = 0.5, xz = 140, ys = 0.25, yz = 10;
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);

  for (gint i = 0; i < GK * GN; i++)
    w[i] = g_rand_int_range (rand, -127, 128);
  for (gint i = 0; i < GN; i++)
    {
      ws[i] = 0.001 * (1 + i % 5);
      wz[i] = 0;
      bias[i] = 0.5 * (i - GN / 2);
    }
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, conv ? 4 : 2, xd, NULL);
  tensor (g, "xs", FW_DTYPE_FLOAT, 0, NULL, &xs, 1);
  tensor (g, "xz", FW_DTYPE_UINT8, 0, NULL, &xz, 1);
  tensor (g, "w_q", FW_DTYPE_INT8, conv ? 4 : 2, wd, w, GK * GN);
  tensor (g, "w_s", FW_DTYPE_FLOAT, 1, nd, ws, GN);
  tensor (g, "w_z", FW_DTYPE_INT8, 1, nd, wz, GN);
  tensor (g, "bias", FW_DTYPE_FLOAT, 1, nd, bias, GN);
  tensor (g, "ys", FW_DTYPE_FLOAT, 0, NULL, &ys, 1);
  tensor (g, "yz", FW_DTYPE_UINT8, 0, NULL, &yz, 1);
  node (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  fw_node_set_attr_int (node (g, "DequantizeLinear", "/dq_w", "w_q", "w_s", "w_z", "w_dq"), "axis", conv ? 0 : 1);
  if (conv)
    node (g, "Conv", "/mm", "x_dq", "w_dq", "bias", "biased");
  else
    {
      node (g, "MatMul", "/mm", "x_dq", "w_dq", NULL, "mm");
      node (g, "Add", "/add", "mm", "bias", NULL, "biased");
    }
  if (requantised)
    {
      node (g, "Relu", "/relu", "biased", NULL, NULL, "act");
      node (g, "QuantizeLinear", "/q_y", "act", "ys", "yz", "y");
      fw_graph_add_output (g, "y", NULL);
    }
  else
    fw_graph_add_output (g, "biased", NULL);
  if (shared_weights)
    {
      node (g, "MatMul", "/mm2", "x_dq", "w_dq", NULL, "mm2");
      node (g, "Relu", "/relu2", "mm2", NULL, NULL, "act2");
      fw_graph_add_output (g, "act2", NULL);
    }
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwModel *
model_new (gboolean requantised, gboolean conv)
{
  return model_new_full (requantised, conv, FALSE);
}

static FwPlan *
plan_for (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  options.arrange = fw_ascend_arrange;
  plan = fw_plan_new (model, shared.profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static const FwCandidate *
integer_candidate (FwPlan *plan)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    if (fw_candidate_is_integer (g_ptr_array_index (plan->candidates, i)))
      return g_ptr_array_index (plan->candidates, i);
  g_assert_not_reached ();
  return NULL;
}

/* x: multiples of 1/4 in [-40, 40): half of them ties of x / 0.5. */
static FwArray *
input_x (void)
{
  g_autoptr(GError) error = NULL;
  gint64 d[2] = { GM, GK };
  FwArray *x = fw_array_new (FW_DTYPE_FLOAT, 2, d, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);

  for (gint64 i = 0; i < x->n_elements; i++)
    fw_array_set_double (x, i, 0.25 * g_rand_int_range (rand, -160, 160));
  return x;
}

/* The kernel as generated, or with `from` replaced by `to` in its source, on the twin with x: the output. */
static FwTwinRun *
run_kernel_ab (FwAscendKernel *kernel, FwArray *x, FwArray *b, const char *from, const char *to, FwArray **out)
{
  g_autoptr(GError) error = NULL;
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);
  const char *name = fw_kernel_source_get_name (src);
  g_autofree char *file = g_strdup_printf ("%s.cpp", name), *tiling_name = g_strdup_printf ("%s_tiling.h", name);
  g_autofree char *text = NULL;
  FwValue *ov = fw_kernel_source_get_output (src, 0), *wv = fw_kernel_source_get_input (src, 1);
  gint64 dims[FW_MAX_RANK];
  g_autoptr(FwArray) w = b == NULL ? fw_array_new_from_tensor (wv->constant, &error) : fw_array_ref (b);
  FwArray *in[2] = { x, w };
  FwTwinKernel k = { name, file, NULL, tiling_name, fw_kernel_source_lookup_file (src, tiling_name),
                     { (guint64) t->total_length, (guint64) t->tile_length, (guint64) t->tile_num, (guint64) t->rows,
                       (guint64) t->row_length, (guint64) t->block_num, (guint64) t->tiles_per_block },
                     (guint) t->block_num, 7 };
  g_auto(GStrv) parts = NULL;
  FwTwinRun *run;

  g_assert_cmpuint (fw_kernel_source_get_n_inputs (src), ==, 2);
  parts = g_strsplit (fw_kernel_source_get_main (src), from ? from : "\x01", -1);
  g_assert_true (from == NULL || g_strv_length (parts) > 1);
  text = g_strjoinv (to ? to : "\x01", parts);
  k.kernel_source = text;
  for (guint i = 0; i < t->n_cube; i++)
    k.tiling[k.n_tiling++] = t->cube[i];
  k.workspace_bytes = (guint64) t->workspace_bytes;
  for (gint d = 0; d < ov->rank; d++)
    dims[d] = ov->dims[d].value;
  *out = fw_array_new0 (ov->dtype, (guint) ov->rank, dims, &error);
  run = fw_ascend_twin_run_kernel (shared.twin, &k, shared.profile, in, 2, out, 1, &error);
  g_assert_no_error (error);
  for (guint d = 0; d < fw_twin_run_get_n_diagnostics (run); d++)
    {
      const FwTwinDiagnostic *e = fw_twin_run_get_diagnostic (run, d);
      g_test_message ("%s: %s %s:%d: %s", name, e->code, e->file, e->line, e->message);
    }
  return run;
}

static FwTwinRun *
run_kernel (FwAscendKernel *kernel, FwArray *x, const char *from, const char *to, FwArray **out)
{
  return run_kernel_ab (kernel, x, NULL, from, to, out);
}

/* Whether got is the reference within verification's rule: one step for an 8-bit output, else float32's
 * tolerance widened by the kernel's product bound. */
static gboolean
within (FwAscendKernel *kernel, const FwArray *want, const FwArray *got, gdouble *worst)
{
  gboolean q = got->dtype == FW_DTYPE_UINT8 || got->dtype == FW_DTYPE_INT8;
  gdouble abs_tol = q ? 1.0 : 1e-5 + fw_ascend_kernel_product_tolerance (kernel, NULL), rel = q ? 0 : 1e-4;
  gboolean ok = TRUE;

  *worst = 0;
  for (gint64 i = 0; i < want->n_elements; i++)
    {
      gdouble w = fw_array_get_double (want, i), d = fabs (fw_array_get_double (got, i) - w);
      *worst = MAX (*worst, d);
      ok = ok && d <= abs_tol + rel * fabs (w);
    }
  return ok;
}

static void
check_generated (gboolean requantised)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = model_new (requantised, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model);
  const FwCandidate *cand = integer_candidate (plan);
  g_autoptr(FwAscendKernel) kernel = fw_ascend_kernel_generate (plan, cand, &error);
  g_autoptr(FwArray) x = input_x ();
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwArray *want[1] = { NULL };
  const FwCostEstimate *cost = fw_candidate_get_cost (cand);
  gdouble worst = 0;

  g_assert_no_error (error);
  g_assert_nonnull (kernel);
  g_assert_cmpint (fw_kernel_spec_get_form (cand->spec), ==, FW_KERNEL_FORM_CUBE_VECTOR);
  g_assert_cmpint (fw_ascend_kernel_get_tiling (kernel)->workspace_bytes, >, 0);
  g_assert_true (fw_exec_run_reference (ctx, fw_model_get_graph (model), &x, 1, want, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(FwArray) got = NULL;
    g_autoptr(FwTwinRun) run = run_kernel (kernel, x, NULL, NULL, &got);
    const FwTwinCounts *counts = fw_twin_run_get_counts (run);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_true (within (kernel, want[0], got, &worst));
    g_test_message ("requantised %d: worst %.3g", requantised, worst);
    /* The plan priced what the twin moved, to the byte. */
    g_assert_cmpfloat ((gdouble) counts->mte2_bytes, ==, cost->bytes_read_after);
    g_assert_cmpfloat ((gdouble) counts->mte3_bytes, ==, cost->bytes_written_after);
  }
  if (!requantised)
    {
      /* x / 0.5 lands on .5 for half the inputs: rounding them away from zero moves A, and the float result
       * by s_a s_b[c] b; without the correction every element is off by 140 - 128 times its column's sum. */
      static const char *const broken[][2] = {
        { "RoundMode::CAST_RINT, cnt)", "RoundMode::CAST_ROUND, cnt)" },
        { "    ColApply<COL_ADD>(acc, acc, corr[c0]", "    if (false) ColApply<COL_ADD>(acc, acc, corr[c0]" },
      };
      for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
        {
          g_autoptr(FwArray) got = NULL;
          g_autoptr(FwTwinRun) run = run_kernel (kernel, x, broken[i][0], broken[i][1], &got);

          g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
          g_assert_false (within (kernel, want[0], got, &worst));
          g_test_message ("broken %u: worst %.3g", i, worst);
        }
    }
  fw_array_unref (want[0]);
}

static void
test_generated_float (void)
{
  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  check_generated (FALSE);
}

static void
test_generated_requantised (void)
{
  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  check_generated (TRUE);
}

#define CC 8
#define CH 9
#define CW 11
#define COC 24

/* x [1, 8, 9, 11] float quantised to uint8 (the MatMul model's scale and zero point) → a 3x3 Conv, pad 1, of
 * int8 weights per output channel with a float bias → Mul by a per-channel [24, 1, 1] constant (a RowApply
 * operand) [→ Relu → QuantizeLinear to uint8]. */
static FwModel *
model_conv (gint64 stride, gboolean requantised)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[4] = { FW_DIM_STATIC (1), FW_DIM_STATIC (CC), FW_DIM_STATIC (CH), FW_DIM_STATIC (CW) };
  gint64 wd[4] = { COC, CC, 3, 3 }, nd[1] = { COC }, md[3] = { COC, 1, 1 };
  gint64 strides[2] = { stride, stride }, pads[4] = { 1, 1, 1, 1 };
  double w[COC * CC * 9], ws[COC], wz[COC], bias[COC], mul[COC], xs = 0.5, xz = 140, ys = 0.25, yz = 10;
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  FwNode *conv;

  for (gint i = 0; i < COC * CC * 9; i++)
    w[i] = g_rand_int_range (rand, -127, 128);
  for (gint i = 0; i < COC; i++)
    {
      ws[i] = 0.002 * (1 + i % 3);
      wz[i] = 0;
      bias[i] = 0.25 * (i - COC / 2);
      mul[i] = 0.5 + 0.125 * (i % 5);
    }
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4, xd, NULL);
  tensor (g, "xs", FW_DTYPE_FLOAT, 0, NULL, &xs, 1);
  tensor (g, "xz", FW_DTYPE_UINT8, 0, NULL, &xz, 1);
  tensor (g, "w_q", FW_DTYPE_INT8, 4, wd, w, COC * CC * 9);
  tensor (g, "w_s", FW_DTYPE_FLOAT, 1, nd, ws, COC);
  tensor (g, "w_z", FW_DTYPE_INT8, 1, nd, wz, COC);
  tensor (g, "bias", FW_DTYPE_FLOAT, 1, nd, bias, COC);
  tensor (g, "mul", FW_DTYPE_FLOAT, 3, md, mul, COC);
  tensor (g, "ys", FW_DTYPE_FLOAT, 0, NULL, &ys, 1);
  tensor (g, "yz", FW_DTYPE_UINT8, 0, NULL, &yz, 1);
  node (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  fw_node_set_attr_int (node (g, "DequantizeLinear", "/dq_w", "w_q", "w_s", "w_z", "w_dq"), "axis", 0);
  conv = node (g, "Conv", "/conv", "x_dq", "w_dq", "bias", "conv");
  fw_node_set_attr_ints (conv, "strides", 2, strides);
  fw_node_set_attr_ints (conv, "pads", 4, pads);
  node (g, "Mul", "/mul", "conv", "mul", NULL, "scaled");
  if (requantised)
    {
      node (g, "Relu", "/relu", "scaled", NULL, NULL, "act");
      node (g, "QuantizeLinear", "/q_y", "act", "ys", "yz", "y");
      fw_graph_add_output (g, "y", NULL);
    }
  else
    fw_graph_add_output (g, "scaled", NULL);
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwArray *
input_conv_x (void)
{
  g_autoptr(GError) error = NULL;
  gint64 d[4] = { 1, CC, CH, CW };
  FwArray *x = fw_array_new (FW_DTYPE_FLOAT, 4, d, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (13);

  for (gint64 i = 0; i < x->n_elements; i++)
    fw_array_set_double (x, i, 0.25 * g_rand_int_range (rand, -160, 160));
  return x;
}

/* A Conv group is one kernel (an im2col prepass, W x im2col(x) on the cube, RowApply's per-channel vectors)
 * whose twin run is the reference's, moving the plan's bytes; with the padding's zero point wrong above and
 * below the image (ZA) or beside it (PAD_SRC), or the offsets taking the stride twice, it is not. */
static void
check_conv (gint64 stride, gboolean requantised)
{
  static const char *const broken[][2] = {
    { "constexpr float ZA = 12.0f;", "constexpr float ZA = 0.0f;" },
    { "constexpr float PAD_SRC = 0.0f;", "constexpr float PAD_SRC = 1.0f;" },
    { "ow * SW) * sizeof(half)", "ow * SW * SW) * sizeof(half)" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = model_conv (stride, requantised);
  g_autoptr(FwPlan) plan = plan_for (model);
  const FwCandidate *cand = integer_candidate (plan);
  g_autoptr(FwAscendKernel) kernel = fw_ascend_kernel_generate (plan, cand, &error);
  g_autoptr(FwArray) x = input_conv_x ();
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwArray *want[1] = { NULL };
  const FwCostEstimate *cost = fw_candidate_get_cost (cand);
  gdouble worst = 0;

  g_assert_no_error (error);
  g_assert_nonnull (kernel);
  g_assert_cmpuint (cand->nodes->len, ==, requantised ? 7 : 5);
  g_assert_cmpint (fw_kernel_spec_get_form (cand->spec), ==, FW_KERNEL_FORM_CUBE_VECTOR);
  g_assert_true (fw_exec_run_reference (ctx, fw_model_get_graph (model), &x, 1, want, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(FwArray) got = NULL;
    g_autoptr(FwTwinRun) run = run_kernel (kernel, x, NULL, NULL, &got);
    const FwTwinCounts *counts = fw_twin_run_get_counts (run);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_true (within (kernel, want[0], got, &worst));
    g_test_message ("stride %" G_GINT64_FORMAT " requantised %d: worst %.3g", stride, requantised, worst);
    g_assert_cmpfloat ((gdouble) counts->mte2_bytes, ==, cost->bytes_read_after);
    g_assert_cmpfloat ((gdouble) counts->mte3_bytes, ==, cost->bytes_written_after);
  }
  /* The offsets' stride matters only where there is one. */
  for (guint i = 0; i < (stride > 1 ? 3u : 2u) && !requantised; i++)
    {
      g_autoptr(FwArray) got = NULL;
      g_autoptr(FwTwinRun) run = run_kernel (kernel, x, broken[i][0], broken[i][1], &got);

      g_assert_false (fw_twin_run_get_n_diagnostics (run) == 0 && within (kernel, want[0], got, &worst));
      g_test_message ("broken %u: %u diagnostics, worst %.3g", i, fw_twin_run_get_n_diagnostics (run), worst);
    }
  fw_array_unref (want[0]);
}

static void
test_conv (void)
{
  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  check_conv (1, FALSE);
  check_conv (2, FALSE);
  check_conv (2, TRUE);
}

/* Two activations, batched [2, 3]: x [.., 40, 32] quantised to uint8 (zero point 140), y [.., 32, 24]
 * quantised to int8 (zero point -7), MatMul, float result (attention's Q·Kᵀ in QDQ form). */
static FwModel *
model_two_activations (void)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[4] = { FW_DIM_STATIC (2), FW_DIM_STATIC (3), FW_DIM_STATIC (40), FW_DIM_STATIC (32) };
  FwDim yd[4] = { FW_DIM_STATIC (2), FW_DIM_STATIC (3), FW_DIM_STATIC (32), FW_DIM_STATIC (24) };
  double xs = 0.5, xz = 140, ys = 0.25, yz = -7;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4, xd, NULL);
  fw_graph_add_input (g, "y", FW_DTYPE_FLOAT, 4, yd, NULL);
  tensor (g, "xs", FW_DTYPE_FLOAT, 0, NULL, &xs, 1);
  tensor (g, "xz", FW_DTYPE_UINT8, 0, NULL, &xz, 1);
  tensor (g, "ys", FW_DTYPE_FLOAT, 0, NULL, &ys, 1);
  tensor (g, "yz", FW_DTYPE_INT8, 0, NULL, &yz, 1);
  node (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  node (g, "QuantizeLinear", "/q_y", "y", "ys", "yz", "y_q");
  node (g, "DequantizeLinear", "/dq_y", "y_q", "ys", "yz", "y_dq");
  node (g, "MatMul", "/mm", "x_dq", "y_dq", NULL, "z");
  fw_graph_add_output (g, "z", NULL);
  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwArray *
seeded (gint64 d0, gint64 d1, gint64 d2, gint64 d3, guint32 seed, gint range)
{
  g_autoptr(GError) error = NULL;
  gint64 d[4] = { d0, d1, d2, d3 };
  FwArray *a = fw_array_new (FW_DTYPE_FLOAT, 4, d, &error);
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, 0.25 * g_rand_int_range (rand, -range, range));
  return a;
}

/* The two-activation kernel (fw-ascend-int8-act.c) equals the reference on the twin, moving the plan's bytes;
 * without B's zero point's per-row correction, A's per-column one, or with x / 0.5's ties rounded away from
 * zero, it does not. */
static void
test_two_activations (void)
{
  static const char *const broken[][2] = {
    { "    RowApply<COL_ADD>(acc, acc, rowBuf", "    if (false) RowApply<COL_ADD>(acc, acc, rowBuf" },
    { "    ColApply<COL_ADD>(acc, acc, corr[c0]", "    if (false) ColApply<COL_ADD>(acc, acc, corr[c0]" },
    { "RoundMode::CAST_RINT, cnt)", "RoundMode::CAST_ROUND, cnt)" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwAscendKernel) kernel = NULL;
  g_autoptr(FwArray) x = seeded (2, 3, 40, 32, 17, 160), y = seeded (2, 3, 32, 24, 19, 120);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwArray *want[1] = { NULL }, *ins[2] = { x, y };
  const FwCandidate *cand;
  gdouble worst = 0;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  model = model_two_activations ();
  plan = plan_for (model);
  cand = integer_candidate (plan);
  kernel = fw_ascend_kernel_generate (plan, cand, &error);
  g_assert_no_error (error);
  g_assert_nonnull (kernel);
  g_assert_cmpuint (cand->nodes->len, ==, 5);
  g_assert_true (fw_exec_run_reference (ctx, fw_model_get_graph (model), ins, 2, want, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(FwArray) got = NULL;
    g_autoptr(FwTwinRun) run = run_kernel_ab (kernel, x, y, NULL, NULL, &got);
    const FwTwinCounts *counts = fw_twin_run_get_counts (run);
    const FwCostEstimate *cost = fw_candidate_get_cost (cand);

    g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
    g_assert_true (within (kernel, want[0], got, &worst));
    g_test_message ("two activations: worst %.3g", worst);
    g_assert_cmpfloat ((gdouble) counts->mte2_bytes, ==, cost->bytes_read_after);
    g_assert_cmpfloat ((gdouble) counts->mte3_bytes, ==, cost->bytes_written_after);
  }
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr(FwArray) got = NULL;
      g_autoptr(FwTwinRun) run = run_kernel_ab (kernel, x, y, broken[i][0], broken[i][1], &got);

      g_assert_cmpuint (fw_twin_run_get_n_diagnostics (run), ==, 0);
      g_assert_false (within (kernel, want[0], got, &worst));
      g_test_message ("broken %u: worst %.3g", i, worst);
    }
  fw_array_unref (want[0]);
}

/* An exported package re-run with --twin (fw_package_twin_run) when the weights' DequantizeLinear is shared
 * by two integer groups: each group.onnx computes that DequantizeLinear itself, its int8 weights among the
 * initializers, so both kernels run and pass (they were "not run" for want of the int8 weights). */
static void
test_package_shared_weights (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autoptr(FwPackageTwinResult) result = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  guint integer = 0;

  if (get_twin () == NULL)
    {
      g_test_skip ("no C++ compiler for the twin");
      return;
    }
  model = model_new_full (FALSE, FALSE, TRUE);
  plan = plan_for (model);
  for (guint i = 0; i < plan->candidates->len; i++)
    integer += fw_candidate_is_integer (g_ptr_array_index (plan->candidates, i));
  g_assert_cmpuint (integer, ==, 2);
  targets = fw_targets_build (plan, FALSE, TRUE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fw_fused_model_write_kernel_package (plan, targets, dir, &error));
  g_assert_no_error (error);
  result = fw_package_twin_run (dir, NULL, NULL, 1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (result);
  g_assert_cmpuint (result->kernels->len, ==, 2);
  for (guint i = 0; i < result->kernels->len; i++)
    {
      const FwPackageTwinKernel *k = g_ptr_array_index (result->kernels, i);

      g_test_message ("%s: %s", k->id, k->check->error ? k->check->error : (k->check->pass ? "pass" : "fail"));
      g_assert_null (k->check->error);
      g_assert_true (k->check->pass);
    }
  g_assert_true (fw_package_twin_result_pass (result));
  fw_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ascend-int8/twin-contract", test_contract);
  g_test_add_func ("/core/ascend-int8/generated-float", test_generated_float);
  g_test_add_func ("/core/ascend-int8/generated-requantised", test_generated_requantised);
  g_test_add_func ("/core/ascend-int8/conv", test_conv);
  g_test_add_func ("/core/ascend-int8/two-activations", test_two_activations);
  g_test_add_func ("/core/ascend-int8/package-shared-weights", test_package_shared_weights);
  status = g_test_run ();
  fw_test_twin_clear (&shared);
  return status;
}
