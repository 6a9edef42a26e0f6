/* test-qdq.c: integer (QDQ) groups. The planner makes one candidate of a QuantizeLinear → DequantizeLinear
 * → MatMul/Conv (weights through a per-channel DequantizeLinear) → epilogue → QuantizeLinear chain, refuses
 * with its codes (a per-K weight axis, a scale computed at run time), leaves a shared DequantizeLinear
 * standalone (FW-NF-022) and prices the group at the profile's int8 rate; the host kernel computes the
 * products in integers (exact where the arithmetic is integer, the VNNI and portable paths alike), its
 * requantised output within one step of the reference, and a kernel off by two steps is caught. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/fw-targets.h"
#include "exec/fw-exec.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-plan-private.h"
#include "plan/fw-qdq.h"

static void
tensor (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims, const double *v, gint64 n)
{
  gsize size = dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_INT32 ? 4 : 1;
  gboolean four = dtype == FW_DTYPE_INT4 || dtype == FW_DTYPE_UINT4;
  g_autofree guint8 *buf = g_malloc0 (MAX (n, 1) * size);
  g_autoptr(GBytes) b = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (gint64 i = 0; i < n; i++)
    switch (dtype)
      {
      case FW_DTYPE_FLOAT: ((float *) buf)[i] = (float) v[i]; break;
      case FW_DTYPE_INT32: ((gint32 *) buf)[i] = (gint32) v[i]; break;
      case FW_DTYPE_INT8: ((gint8 *) buf)[i] = (gint8) v[i]; break;
      /* the file's packing: two a byte, the low nibble first */
      case FW_DTYPE_INT4:
      case FW_DTYPE_UINT4: buf[i / 2] |= (guint8) (((gint) v[i] & 0xf) << (4 * (i % 2))); break;
      default: buf[i] = (guint8) v[i]; break;
      }
  b = g_bytes_new (buf, four ? (n + 1) / 2 : n * (gint64) size);
  t = fw_tensor_new (dtype, rank, dims, b);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
scalar (FwGraph *g, const char *name, FwDType dtype, double v)
{
  tensor (g, name, dtype, 0, NULL, &v, 1);
}

static FwNode *
node3 (FwGraph *g, const char *op, const char *name, const char *a, const char *b, const char *c, const char *out)
{
  const char *ins[3] = { a, b, c }, *outs[1] = { out };
  FwNode *n = fw_graph_add_node (g, op, "", name, c ? 3 : b ? 2 : 1, ins, 1, outs, NULL);
  g_assert_nonnull (n);
  return n;
}

/* model linked and inferred. */
static FwModel *
linked (FwModel *model)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_graph_link (fw_model_get_graph (model), &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* Random int8 weights in [-127, 127] of n elements. */
static double *
weights (gint64 n, guint32 seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  double *v = g_new (double, n);

  for (gint64 i = 0; i < n; i++)
    v[i] = (double) g_rand_int_range (rand, -127, 128);
  return v;
}

typedef enum {
  QDQ_PLAIN,        /* per-channel weights, bias, Relu, requantised */
  QDQ_EXACT,        /* scales 1, zero points 0, no epilogue: the float output is the integer sum */
  QDQ_AXIS_K,       /* the weight quantised along K: refused */
  QDQ_RUNTIME_SCALE,/* the activation's scale is a graph input: refused */
  QDQ_SHARED,       /* one weight DequantizeLinear read by two MatMuls */
} QdqCase;

#define M 6
#define K 70
#define N 9

static FwModel *
matmul_model (QdqCase which)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[2] = { FW_DIM_STATIC (M), FW_DIM_STATIC (K) };
  gint64 wd[2] = { K, N }, nd[1] = { N }, kd[1] = { K };
  g_autofree double *w = weights (K * N, 3);
  double ws[K], wz[K], bias[N];
  gboolean exact = which == QDQ_EXACT;

  for (gint i = 0; i < K; i++)
    {
      ws[i] = exact ? 1.0 : 0.002 + 0.0005 * (i % 7);
      wz[i] = 0;
    }
  for (gint i = 0; i < N; i++)
    bias[i] = 0.05 * (i - 4);
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, xd, NULL);
  if (which == QDQ_RUNTIME_SCALE)
    fw_graph_add_input (g, "xs", FW_DTYPE_FLOAT, 0, NULL, NULL);
  else
    scalar (g, "xs", FW_DTYPE_FLOAT, exact ? 1.0 : 2.0 / 255);
  scalar (g, "xz", FW_DTYPE_UINT8, exact ? 0 : 128);
  tensor (g, "w_q", FW_DTYPE_INT8, 2, wd, w, K * N);
  if (which == QDQ_AXIS_K)
    {
      tensor (g, "w_s", FW_DTYPE_FLOAT, 1, kd, ws, K);
      tensor (g, "w_z", FW_DTYPE_INT8, 1, kd, wz, K);
    }
  else
    {
      tensor (g, "w_s", FW_DTYPE_FLOAT, 1, nd, ws, N);
      tensor (g, "w_z", FW_DTYPE_INT8, 1, nd, wz, N);
    }
  tensor (g, "bias", FW_DTYPE_FLOAT, 1, nd, bias, N);
  scalar (g, "ys", FW_DTYPE_FLOAT, 0.01);
  scalar (g, "yz", FW_DTYPE_UINT8, 100);
  node3 (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node3 (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  fw_node_set_attr_int (node3 (g, "DequantizeLinear", "/dq_w", "w_q", "w_s", "w_z", "w_dq"), "axis",
                        which == QDQ_AXIS_K ? 0 : 1);
  node3 (g, "MatMul", "/mm", "x_dq", "w_dq", NULL, "mm");
  if (exact)
    {
      fw_graph_add_output (g, "mm", NULL);
    }
  else
    {
      node3 (g, "Add", "/add", "mm", "bias", NULL, "biased");
      node3 (g, "Relu", "/relu", "biased", NULL, NULL, "act");
      node3 (g, "QuantizeLinear", "/q_y", "act", "ys", "yz", "y");
      fw_graph_add_output (g, "y", NULL);
    }
  if (which == QDQ_SHARED)
    {
      /* A second layer on the same weights (an exporter sharing them): its own activation pair. */
      node3 (g, "QuantizeLinear", "/q_x2", "x", "xs", "xz", "x2_q");
      node3 (g, "DequantizeLinear", "/dq_x2", "x2_q", "xs", "xz", "x2_dq");
      node3 (g, "MatMul", "/mm2", "x2_dq", "w_dq", NULL, "mm2");
      node3 (g, "Relu", "/relu2", "mm2", NULL, NULL, "y2");
      fw_graph_add_output (g, "y2", NULL);
    }
  return linked (model);
}

/* Opset 21: x (uint8 per tensor) times int4 weights dequantised in blocks of 16 along K (the form 4-bit LLM
 * weights take), + bias, Relu. The integer kernel takes no 4-bit operand nor blocked scales. */
#define K4 40

static FwModel *
int4_matmul_model (gboolean gemm)
{
  FwModel *model = fw_test_model_new (21);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[2] = { FW_DIM_STATIC (M), FW_DIM_STATIC (K4) };
  gint64 wd[2] = { K4, N }, sd[2] = { 3, N }, nd[1] = { N };
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  double w[K4 * N], ws[3 * N], wz[3 * N], bias[N];
  FwNode *dq;

  for (gint i = 0; i < K4 * N; i++)
    w[i] = g_rand_int_range (rand, -8, 8);
  for (gint i = 0; i < 3 * N; i++)
    {
      ws[i] = 0.01 + 0.002 * (i % 5);
      wz[i] = g_rand_int_range (rand, -2, 3);
    }
  for (gint i = 0; i < N; i++)
    bias[i] = 0.05 * (i - 4);
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, xd, NULL);
  scalar (g, "xs", FW_DTYPE_FLOAT, 2.0 / 255);
  scalar (g, "xz", FW_DTYPE_UINT8, 128);
  tensor (g, "w_q", FW_DTYPE_INT4, 2, wd, w, K4 * N);
  tensor (g, "w_s", FW_DTYPE_FLOAT, 2, sd, ws, 3 * N);
  tensor (g, "w_z", FW_DTYPE_INT4, 2, sd, wz, 3 * N);
  tensor (g, "bias", FW_DTYPE_FLOAT, 1, nd, bias, N);
  node3 (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node3 (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  dq = node3 (g, "DequantizeLinear", "/dq_w", "w_q", "w_s", "w_z", "w_dq");
  fw_node_set_attr_int (dq, "axis", 0);
  fw_node_set_attr_int (dq, "block_size", 16);
  if (gemm)
    node3 (g, "Gemm", "/gemm", "x_dq", "w_dq", "bias", "biased");
  else
    {
      node3 (g, "MatMul", "/mm", "x_dq", "w_dq", NULL, "mm");
      node3 (g, "Add", "/add", "mm", "bias", NULL, "biased");
    }
  node3 (g, "Relu", "/relu", "biased", NULL, NULL, "y");
  fw_graph_add_output (g, "y", NULL);
  return linked (model);
}

/* A 3×3 Conv, stride 2, pads 1 (padded taps are the activation's zero point), uint8 activations with zero
 * point 131, per-channel int8 weights, an int32 bias through DequantizeLinear, Relu, requantised to int8. */
static FwModel *
conv_model_with (gboolean depthwise)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[4] = { FW_DIM_STATIC (2), FW_DIM_STATIC (5), FW_DIM_STATIC (9), FW_DIM_STATIC (8) };
  /* Depthwise: 5 groups of one channel each. */
  gint64 m = depthwise ? 5 : 7, wd[4] = { m, depthwise ? 1 : 5, 3, 3 }, cd[1] = { m };
  gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 };
  g_autofree double *w = weights (m * wd[1] * 9, 5);
  double ws[7], wz[7], b[7], bs[7], bz[7];
  FwNode *conv;

  for (gint i = 0; i < m; i++)
    {
      ws[i] = 0.003 + 0.001 * i;
      wz[i] = 0;
      b[i] = 40 * (i - 3);
      bs[i] = (2.0 / 255) * ws[i];
      bz[i] = 0;
    }
  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4, xd, NULL);
  scalar (g, "xs", FW_DTYPE_FLOAT, 2.0 / 255);
  scalar (g, "xz", FW_DTYPE_UINT8, 131);
  tensor (g, "w_q", FW_DTYPE_INT8, 4, wd, w, m * wd[1] * 9);
  tensor (g, "w_s", FW_DTYPE_FLOAT, 1, cd, ws, m);
  tensor (g, "w_z", FW_DTYPE_INT8, 1, cd, wz, m);
  tensor (g, "b_q", FW_DTYPE_INT32, 1, cd, b, m);
  tensor (g, "b_s", FW_DTYPE_FLOAT, 1, cd, bs, m);
  tensor (g, "b_z", FW_DTYPE_INT32, 1, cd, bz, m);
  scalar (g, "ys", FW_DTYPE_FLOAT, 0.004);
  scalar (g, "yz", FW_DTYPE_INT8, -20);
  node3 (g, "QuantizeLinear", "/q_x", "x", "xs", "xz", "x_q");
  node3 (g, "DequantizeLinear", "/dq_x", "x_q", "xs", "xz", "x_dq");
  fw_node_set_attr_int (node3 (g, "DequantizeLinear", "/dq_w", "w_q", "w_s", "w_z", "w_dq"), "axis", 0);
  fw_node_set_attr_int (node3 (g, "DequantizeLinear", "/dq_b", "b_q", "b_s", "b_z", "b_dq"), "axis", 0);
  conv = node3 (g, "Conv", "/conv", "x_dq", "w_dq", "b_dq", "c");
  fw_node_set_attr_ints (conv, "pads", 4, pads);
  fw_node_set_attr_ints (conv, "strides", 2, strides);
  if (depthwise)
    fw_node_set_attr_int (conv, "group", 5);
  node3 (g, "Relu", "/relu", "c", NULL, NULL, "act");
  node3 (g, "QuantizeLinear", "/q_y", "act", "ys", "yz", "y");
  fw_graph_add_output (g, "y", NULL);
  return linked (model);
}

static FwModel *
conv_model (void)
{
  return conv_model_with (FALSE);
}

static FwPlan *
plan_for (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static guint
count_integer (FwPlan *plan)
{
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    n += fw_candidate_is_integer (g_ptr_array_index (plan->candidates, i)) &&
         fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i));
  return n;
}

static guint
count_refusals (FwPlan *plan, FwReasonCode code)
{
  guint n = 0;

  for (guint i = 0; i < plan->refusals->len; i++)
    n += ((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code == code;
  return n;
}

static void
test_plan_matmul_group (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_PLAIN);
  g_autoptr(FwPlan) plan = plan_for (model);
  FwCandidate *c;
  FwQdqGroup q;

  g_assert_cmpuint (count_integer (plan), ==, 1);
  c = g_ptr_array_index (plan->candidates, 0);
  /* Every node of the chain, the Q/DQ ones included: nothing is left standalone. */
  g_assert_cmpuint (c->nodes->len, ==, fw_graph_get_n_nodes (fw_model_get_graph (model)));
  g_assert_true (fw_qdq_group_describe (c, &q));
  g_assert_nonnull (q.a.q.node);
  g_assert_true (q.a.member && q.b.member);
  g_assert_cmpuint (q.epilogue->len, ==, 2);
  g_assert_nonnull (q.out.node);
  g_assert_cmpint (q.k, ==, K);
  g_assert_cmpint (q.b.dq.axis, ==, 1);
  fw_qdq_group_clear (&q);
  for (FwReasonCode code = FW_NF_QDQ_AXIS; code <= FW_NF_QDQ_FORM; code++)
    g_assert_cmpuint (count_refusals (plan, code), ==, 0);
}

static void
test_plan_refused_axis (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_AXIS_K);
  g_autoptr(FwPlan) plan = plan_for (model);

  g_assert_cmpuint (count_integer (plan), ==, 0);
  g_assert_cmpuint (count_refusals (plan, FW_NF_QDQ_AXIS), ==, 1);
  g_assert_cmpstr (fw_reason_code_string (FW_NF_QDQ_AXIS), ==, "FW-NF-020");
}

static void
test_plan_refused_params (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_RUNTIME_SCALE);
  g_autoptr(FwPlan) plan = plan_for (model);

  g_assert_cmpuint (count_integer (plan), ==, 0);
  g_assert_cmpuint (count_refusals (plan, FW_NF_QDQ_PARAMS), ==, 1);
}

static void
test_plan_shared (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_SHARED);
  g_autoptr(FwPlan) plan = plan_for (model);

  /* Both layers compute in integers; the weight's DequantizeLinear stays, refused once. */
  g_assert_cmpuint (count_integer (plan), ==, 2);
  g_assert_cmpuint (count_refusals (plan, FW_NF_QDQ_SHARED), ==, 1);
}

static void
test_plan_priced_int8 (void)
{
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwModel) model = matmul_model (QDQ_PLAIN);
  g_autoptr(FwPlan) plan = plan_for (model);
  const FwCostEstimate *cost = fw_candidate_get_cost (g_ptr_array_index (plan->candidates, 0));

  /* The 910B's cube runs int8 at twice its fp16 rate (data/hw/ascend-910b.yaml, docs/hardware.md §1). */
  g_assert_cmpfloat (profile->cube_int8_ops_per_s, ==, 2 * profile->cube_flops_per_s);
  /* The kernel reads x as float (it quantises it), the weights as int8 and the bias: not the weights'
     float32 bytes. */
  g_assert_cmpfloat (cost->bytes_read_after, <=, M * K * 4 + K * N + N * 4 + 64 * 4);
  g_assert_cmpfloat (cost->bytes_written_after, ==, M * N);
  g_assert_cmpfloat (cost->saving_s, >, 0);
}

/* The host kernels of the plan, built and compiled. */
static FwTargets *
build (FwPlan *plan)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = g_dir_make_tmp ("fw-test-qdq-XXXXXX", NULL);
  FwTargets *t = fw_targets_build (plan, TRUE, FALSE, cache, NULL, &error);

  g_assert_no_error (error);
  for (guint i = 0; i < t->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (t->kernels, i);
      if (!k->host_compiled)
        g_error ("candidate %u: %s", k->candidate, k->errors[FW_TARGET_HOST]);
    }
  return t;
}

typedef struct
{
  FwGroupKernel *inner;
  gint           offset;   /* added to the first element of the int8 output, as a broken requantisation */
} Broken;

static gboolean
run_broken (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Broken *b = data;

  if (!b->inner->run (b->inner->data, inputs, outputs, n_threads, error))
    return FALSE;
  ((guint8 *) outputs[0]->data)[0] = (guint8) (((guint8 *) outputs[0]->data)[0] + b->offset);
  return TRUE;
}

static FwVerifyResult *
verify_with (FwPlan *plan, GPtrArray *kernels, FwVerifyPolicy policy)
{
  g_autoptr(GError) error = NULL;
  FwVerifyOptions options = { 0 };
  FwVerifyResult *r;

  options.seed = 1;
  options.n_threads = 2;
  options.policy = policy;
  r = fw_verify_run (plan, kernels, &options, &error);
  g_assert_no_error (error);
  return r;
}

static FwVerifyResult *
verify (FwPlan *plan, GPtrArray *kernels)
{
  return verify_with (plan, kernels, FW_VERIFY_POLICY_AUTO);
}

/* model planned, built and verified under policy. */
static FwVerifyResult *
verify_model (FwModel *model, FwVerifyPolicy policy)
{
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = build (plan);
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (t);

  return verify_with (plan, kernels, policy);
}

static void
check_verified (FwModel *model)
{
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = build (plan);
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (t);
  FwVerifyResult *r;
  const FwGroupCheck *g;

  g_assert_cmpuint (count_integer (plan), ==, 1);
  r = verify (plan, kernels);
  g_assert_cmpuint (r->groups->len, ==, 1);
  g = &g_array_index (r->groups, FwGroupCheck, 0);
  g_assert_true (g->integer);
  g_assert_cmpfloat (g->quant_step, >, 0);
  g_assert_cmpfloat (g->isolated.max_abs, <=, 1.0);
  g_assert_true (g->pass);
  g_assert_true (r->quantised);
  g_assert_true (r->pass);
  fw_verify_result_free (r);
}

/* int4 blocked weights: no integer group (FW-NF-023, naming the type), the MatMul or Gemm keeps its float
 * epilogue, and the host target builds it and verifies the model against the reference interpreter. */
static void
check_refused_int4 (gboolean gemm)
{
  g_autoptr(FwModel) model = int4_matmul_model (gemm);
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = NULL;
  g_autoptr(GPtrArray) kernels = NULL;
  FwVerifyResult *r;
  guint n_refused = 0, n_fused = 0;

  FwGraph *g = fw_model_get_graph (model);
  FwOpCost cost;

  /* Priced at 4 bits an element, as the file stores them (the interpreter's array holds a byte each): the
     standalone DequantizeLinear reads K4 × N / 2 weight bytes, and a group reading its output through it
     would too. */
  g_assert_true (fw_op_cost (fw_graph_lookup_value (g, "w_dq")->producer, &cost));
  g_assert_cmpfloat (cost.bytes_read, ==, K4 * N / 2 + 3 * N * 4 + (3 * N + 1) / 2);
  g_assert_cmpfloat (fw_qdq_read_bytes (fw_graph_lookup_value (g, "w_dq")), ==, K4 * N / 2);
  g_assert_cmpuint (count_integer (plan), ==, 0);
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      FwRefusal *f = g_ptr_array_index (plan->refusals, i);

      if (f->code != FW_NF_QDQ_FORM)
        continue;
      n_refused++;
      g_test_message ("%s: %s", fw_reason_code_string (f->code), f->message);
      g_assert_nonnull (strstr (f->message, "int4"));
    }
  g_assert_cmpuint (n_refused, ==, 1);
  g_assert_cmpstr (fw_reason_code_string (FW_NF_QDQ_FORM), ==, "FW-NF-023");
  for (guint i = 0; i < plan->candidates->len; i++)
    n_fused += fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i));
  g_assert_cmpuint (n_fused, >=, 1);
  t = build (plan);
  kernels = fw_targets_group_kernels (t);
  r = verify (plan, kernels);
  g_assert_cmpuint (r->groups->len, >=, 1);
  g_assert_true (r->pass);
  fw_verify_result_free (r);
}

static void
test_plan_refused_int4 (void)
{
  check_refused_int4 (FALSE);
  check_refused_int4 (TRUE);
}

static void
test_host_matmul_verified (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_PLAIN);
  check_verified (model);
}

static void
test_host_conv_verified (void)
{
  g_autoptr(FwModel) model = conv_model ();
  check_verified (model);
}

/* A depthwise Conv (group = channels) is one integer group too, verified like the others. */
static void
test_host_depthwise_verified (void)
{
  g_autoptr(FwModel) model = conv_model_with (TRUE);
  check_verified (model);
}

/* Scales 1 and zero points 0: every product and sum is a small integer, exact in float too, so the kernel
 * equals the reference exactly. */
static void
test_host_exact (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_EXACT);
  FwVerifyResult *r = verify_model (model, FW_VERIFY_POLICY_AUTO);

  g_assert_cmpuint (r->groups->len, ==, 1);
  g_assert_cmpfloat (g_array_index (r->groups, FwGroupCheck, 0).isolated.max_abs, ==, 0.0);
  g_assert_true (r->pass);
  fw_verify_result_free (r);
}

/* The VNNI path (where the CPU has it), the AVX2 path (FW_SK_NO_VNNI; where the CPU has AVX2) and the
 * portable path (FW_SK_PORTABLE) compute the same bytes. */
static void
check_paths_agree (FwModel *model)
{
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = build (plan);
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (t);
  g_autoptr(GError) error = NULL;
  FwGroupKernel *k = g_ptr_array_index (kernels, 0);
  g_autoptr(GPtrArray) inputs = fw_exec_make_inputs (model, 3, &error);
  g_autofree FwArray **in = g_new0 (FwArray *, k->n_inputs + 1);
  FwArray *out[3][2] = { { NULL } };

  g_assert_no_error (error);
  /* The group's first input is the model's float input x; the others are constants. */
  for (guint i = 0; i < k->n_inputs; i++)
    in[i] = k->inputs[i]->constant != NULL ? fw_array_new_from_tensor (k->inputs[i]->constant, &error)
                                           : fw_array_ref (g_ptr_array_index (inputs, 0));
  g_assert_no_error (error);
  for (guint pass = 0; pass < 3; pass++)
    {
      if (pass == 1)
        g_setenv ("FW_SK_NO_VNNI", "1", TRUE);
      if (pass == 2)
        g_setenv ("FW_SK_PORTABLE", "1", TRUE);
      g_assert_true (k->run (k->data, in, out[pass], 2, &error));
      g_assert_no_error (error);
    }
  g_unsetenv ("FW_SK_NO_VNNI");
  g_unsetenv ("FW_SK_PORTABLE");
  for (guint pass = 1; pass < 3; pass++)
    {
      g_assert_cmpint (out[0][0]->n_elements, ==, out[pass][0]->n_elements);
      g_assert_cmpint (memcmp (out[0][0]->data, out[pass][0]->data, out[0][0]->n_elements), ==, 0);
      fw_array_unref (out[pass][0]);
    }
  for (guint i = 0; i < k->n_inputs; i++)
    fw_array_unref (in[i]);
  fw_array_unref (out[0][0]);
}

static void
test_host_paths_agree (void)
{
  for (guint depthwise = 0; depthwise < 2; depthwise++)
    {
      g_autoptr(FwModel) model = conv_model_with (depthwise);
      check_paths_agree (model);
    }
}

/* A requantisation off by two steps at one element: outside the one-step tolerance, caught; by one step:
 * within it. */
static void
test_host_broken_requantisation (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_PLAIN);
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = build (plan);
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (t);
  FwGroupKernel *inner = g_ptr_array_index (kernels, 0);

  for (gint offset = 1; offset <= 2; offset++)
    {
      Broken b = { inner, offset };
      FwGroupKernel broken = *inner;
      g_autoptr(GPtrArray) list = g_ptr_array_new ();
      FwVerifyResult *r;

      broken.run = run_broken;
      broken.data = &b;
      g_ptr_array_add (list, &broken);
      r = verify (plan, list);
      g_assert_cmpuint (r->groups->len, ==, 1);
      if (offset == 2)
        {
          g_assert_false (g_array_index (r->groups, FwGroupCheck, 0).pass);
          g_assert_false (r->pass);
        }
      else
        g_assert_true (g_array_index (r->groups, FwGroupCheck, 0).pass);
      fw_verify_result_free (r);
    }
}

/* The golden policy on a float32 QDQ model: the float64 golden run keeps QuantizeLinear's and
 * DequantizeLinear's scales and zero points and their integer rounding, and widens only the float
 * arithmetic, so it runs and the fused integer kernel passes against it. */
static void
test_host_golden_policy (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_PLAIN);
  FwVerifyResult *r = verify_model (model, FW_VERIFY_POLICY_GOLDEN);

  g_assert_nonnull (r);
  g_assert_cmpint (r->golden, ==, FW_DTYPE_DOUBLE);
  g_assert_cmpuint (r->groups->len, ==, 1);
  g_assert_true (g_array_index (r->groups, FwGroupCheck, 0).pass);
  g_assert_true (r->pass);
  fw_verify_result_free (r);
}

/* The golden run's QuantizeLinear on a float64 input: the model's float32 scale and zero point, rounding
 * half to even and saturating as the model says, in float64 arithmetic. */
static void
test_golden_quantize_semantics (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim xd[1] = { FW_DIM_STATIC (6) };
  g_autoptr(GError) error = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  /* scale 0.5: x / 0.5 = 2.5 and 3.5 round to 2 and 4 (half to even); 1000 saturates to 255 − 10 + 10. */
  const double xv[6] = { 1.25, 1.75, -0.25, 1000.0, -1000.0, 0.1 };
  const gint64 dims[1] = { 6 };
  g_autoptr(FwArray) x = fw_array_new (FW_DTYPE_FLOAT, 1, dims, &error);
  FwArray *ins[1], *outs[2] = { NULL };

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, xd, NULL);
  scalar (g, "s", FW_DTYPE_FLOAT, 0.5);
  scalar (g, "z", FW_DTYPE_UINT8, 10);
  node3 (g, "QuantizeLinear", "/q", "x", "s", "z", "q");
  node3 (g, "DequantizeLinear", "/dq", "q", "s", "z", "y");
  fw_graph_add_output (g, "y", NULL);
  linked (model);
  g_assert_no_error (error);
  for (guint i = 0; i < 6; i++)
    fw_array_set_double (x, i, xv[i]);
  ins[0] = x;
  fw_exec_context_set_golden (ctx, FW_DTYPE_DOUBLE);
  g_assert_true (fw_exec_run_reference (ctx, g, ins, 1, outs, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (outs[0]->dtype, ==, FW_DTYPE_DOUBLE);
  {
    const double want[6] = { 1.0, 2.0, 0.0, 122.5, -5.0, 0.0 };
    for (guint i = 0; i < 6; i++)
      g_assert_cmpfloat (fw_array_get_double (outs[0], i), ==, want[i]);
  }
  fw_array_unref (outs[0]);
}

/* Two integer groups reading one shared weight DequantizeLinear through: verified in the fused program,
 * and run on reference kernels from their own boundary (what --measure and the golden policy do), the
 * DequantizeLinear computed there from the integer input the kernel reads. */
static void
test_host_shared_read_through (void)
{
  g_autoptr(FwModel) model = matmul_model (QDQ_SHARED);
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(FwTargets) t = build (plan);
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (t);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) inputs = fw_exec_make_inputs (model, 2, &error);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwVerifyResult *r = verify (plan, kernels);

  g_assert_cmpuint (r->groups->len, ==, 2);
  g_assert_true (r->pass);
  fw_verify_result_free (r);
  g_assert_no_error (error);
  for (guint k = 0; k < kernels->len; k++)
    {
      FwGroupKernel *kernel = g_ptr_array_index (kernels, k);
      FwCandidate *c = g_ptr_array_index (plan->candidates, kernel->candidate);
      g_autofree FwArray **in = g_new0 (FwArray *, kernel->n_inputs + 1);
      FwArray *ref[2] = { NULL }, *got[2] = { NULL };

      for (guint i = 0; i < kernel->n_inputs; i++)
        in[i] = kernel->inputs[i]->constant != NULL ? fw_array_new_from_tensor (kernel->inputs[i]->constant, &error)
                                                    : fw_array_ref (g_ptr_array_index (inputs, 0));
      g_assert_no_error (error);
      g_assert_true (fw_group_run_reference (ctx, kernel, c->nodes, in, ref, &error));
      g_assert_no_error (error);
      g_assert_true (kernel->run (kernel->data, in, got, 2, &error));
      for (gint64 e = 0; e < ref[0]->n_elements; e++)
        g_assert_cmpfloat (fabs (fw_array_get_double (ref[0], e) - fw_array_get_double (got[0], e)), <=,
                           1e-5 + 1e-4 * fabs (fw_array_get_double (ref[0], e)));
      for (guint i = 0; i < kernel->n_inputs; i++)
        fw_array_unref (in[i]);
      fw_array_unref (ref[0]);
      fw_array_unref (got[0]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/qdq/matmul-group", test_plan_matmul_group);
  g_test_add_func ("/core/plan/qdq/refused-axis", test_plan_refused_axis);
  g_test_add_func ("/core/plan/qdq/refused-params", test_plan_refused_params);
  g_test_add_func ("/core/plan/qdq/refused-int4", test_plan_refused_int4);
  g_test_add_func ("/core/plan/qdq/shared-dequantize", test_plan_shared);
  g_test_add_func ("/core/plan/qdq/priced-int8", test_plan_priced_int8);
  g_test_add_func ("/core/codegen/host/int8/matmul-verified", test_host_matmul_verified);
  g_test_add_func ("/core/codegen/host/int8/conv-verified", test_host_conv_verified);
  g_test_add_func ("/core/codegen/host/int8/depthwise-verified", test_host_depthwise_verified);
  g_test_add_func ("/core/codegen/host/int8/exact", test_host_exact);
  g_test_add_func ("/core/codegen/host/int8/paths-agree", test_host_paths_agree);
  g_test_add_func ("/core/codegen/host/int8/broken-requantisation", test_host_broken_requantisation);
  g_test_add_func ("/core/codegen/host/int8/shared-read-through", test_host_shared_read_through);
  g_test_add_func ("/core/codegen/host/int8/golden-policy", test_host_golden_policy);
  g_test_add_func ("/core/exec/golden/quantize-semantics", test_golden_quantize_semantics);
  return g_test_run ();
}
