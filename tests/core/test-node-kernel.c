/* test-node-kernel.c: the host kernels of single ops in the fused executor (fw-host-node-kernel.h): which
 * ops get one, that each matches its node's reference kernel, and that verification catches one that does
 * not. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-node-kernel.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"

static void
add_input (FwGraph *g, const char *name, FwDType dtype, guint rank, const gint64 *dims)
{
  FwDim d[FW_MAX_RANK];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, dtype, rank, d, NULL));
}

/* A constant of dtype with values in [-1, 1]. */
static void
add_weight (FwGraph *g, GRand *rand, const char *name, FwDType dtype, guint rank, const gint64 *dims)
{
  gint64 n = 1;
  g_autofree guint16 *h = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(FwTensor) t = NULL;

  if (dtype == FW_DTYPE_FLOAT)
    {
      fw_test_add_random_weight (g, rand, name, rank, dims, 1.0f);
      return;
    }
  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  h = g_new (guint16, n);
  for (gint64 i = 0; i < n; i++)
    {
      float v = (float) g_rand_double_range (rand, -1.0, 1.0);
      h[i] = dtype == FW_DTYPE_FLOAT16 ? fw_float_to_half (v) : fw_float_to_bfloat16 (v);
    }
  bytes = g_bytes_new (h, sizeof (guint16) * (gsize) n);
  t = fw_tensor_new (dtype, rank, dims, bytes);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* Ops with nothing to fuse them with, each a graph output: Conv (bias, pads, stride 2), Gemm (transB, bias),
 * MatMul of batched activations by a constant matrix, MaxPool (3×3, stride 2, pads, a partial last window
 * from ceil_mode), GlobalAveragePool, a Mul by that per-channel gate, and a Conv by activation weights and
 * a Mul of two activations, which no kernel takes, and MatMuls of two activations: batched (attention's
 * P·V), with B broadcast over A's leading batch dim, and of one batch matrix; an average and a gate again
 * over planes wider than the half kernels' runs of 1,024. In dtype: float32, or a half type (inputs and constants
 * all of it), whose kernels are the float32 ones on widened inputs with the result rounded once. */
static FwModel *
single_ops_model_typed (FwDType dtype)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  gint64 x[4] = { 1, 32, 13, 13 }, w[4] = { 16, 32, 3, 3 }, b[1] = { 16 }, xw[4] = { 16, 32, 3, 3 };
  gint64 gx[2] = { 5, 48 }, gw[2] = { 30, 48 }, gb[1] = { 30 }, mx[3] = { 2, 7, 48 }, mw[2] = { 48, 20 };
  gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 }, ks[2] = { 3, 3 };
  gint64 xb[4] = { 1, 16, 40, 30 }, pa[4] = { 2, 3, 7, 16 }, pv[4] = { 2, 3, 16, 9 }, pb[3] = { 3, 16, 5 }, p1[3] = { 1, 7, 16 };
  FwNode *n;

  add_input (g, "x", dtype, 4, x);
  add_input (g, "xw", dtype, 4, xw);
  add_input (g, "gx", dtype, 2, gx);
  add_input (g, "mx", dtype, 3, mx);
  add_input (g, "xb", dtype, 4, xb);
  add_input (g, "pa", dtype, 4, pa);
  add_input (g, "pv", dtype, 4, pv);
  add_input (g, "pb", dtype, 3, pb);
  add_input (g, "p1", dtype, 3, p1);
  add_weight (g, rand, "w", dtype, 4, w);
  add_weight (g, rand, "b", dtype, 1, b);
  add_weight (g, rand, "gw", dtype, 2, gw);
  add_weight (g, rand, "gb", dtype, 1, gb);
  add_weight (g, rand, "mw", dtype, 2, mw);
  n = fw_test_add_node3 (g, "Conv", "conv", "y0", "x", "w", "b");
  fw_node_set_attr_ints (n, "pads", 4, pads);
  fw_node_set_attr_ints (n, "strides", 2, strides);
  n = fw_test_add_node3 (g, "Gemm", "gemm", "y1", "gx", "gw", "gb");
  fw_node_set_attr_int (n, "transB", 1);
  fw_test_add_node3 (g, "MatMul", "mm", "y2", "mx", "mw", NULL);
  n = fw_test_add_node3 (g, "MaxPool", "pool", "y3", "x", NULL, NULL);
  fw_node_set_attr_ints (n, "kernel_shape", 2, ks);
  fw_node_set_attr_ints (n, "pads", 4, pads);
  fw_node_set_attr_ints (n, "strides", 2, strides);
  fw_node_set_attr_int (n, "ceil_mode", 1);
  fw_test_add_node3 (g, "Conv", "conv_act", "y4", "x", "xw", NULL);
  fw_test_add_node3 (g, "GlobalAveragePool", "gap", "y5", "x", NULL, NULL);
  fw_test_add_node3 (g, "Mul", "gate", "y6", "y5", "x", NULL);
  fw_test_add_node3 (g, "Mul", "mul_act", "y7", "x", "x", NULL);
  fw_test_add_node3 (g, "MatMul", "mm_act", "y8", "pa", "pv", NULL);
  fw_test_add_node3 (g, "MatMul", "mm_bcast", "y9", "pa", "pb", NULL);
  fw_test_add_node3 (g, "MatMul", "mm_one", "y10", "p1", "pb", NULL);
  fw_test_add_node3 (g, "GlobalAveragePool", "gap_wide", "y11", "xb", NULL, NULL);
  fw_test_add_node3 (g, "Mul", "gate_wide", "y12", "xb", "y11", NULL);
  for (guint i = 0; i < 13; i++)
    {
      g_autofree char *name = g_strdup_printf ("y%u", i);
      g_assert_true (fw_graph_add_output (g, name, NULL));
    }
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

static FwModel *
single_ops_model (void)
{
  return single_ops_model_typed (FW_DTYPE_FLOAT);
}

typedef struct
{
  FwModel   *model;
  FwPlan    *plan;
  GPtrArray *kernels;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;

  f->model = single_ops_model_typed (data != NULL ? (FwDType) GPOINTER_TO_INT (data) : FW_DTYPE_FLOAT);
  fw_plan_options_init (&options);
  f->plan = fw_plan_new (f->model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  f->kernels = fw_host_node_kernels_new (f->plan, NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_ptr_array_unref (f->kernels);
  fw_plan_free (f->plan);
  g_object_unref (f->model);
}

static const FwNodeKernel *
kernel_of (Fixture *f, const char *node)
{
  for (guint i = 0; i < f->kernels->len; i++)
    {
      const FwNodeKernel *k = g_ptr_array_index (f->kernels, i);
      if (strcmp (k->node->name, node) == 0)
        return k;
    }
  return NULL;
}

static void
test_chosen (Fixture *f, gconstpointer data)
{
  gboolean dnnl = fw_dnnl_library () != NULL;

  for (guint i = 0; i < f->kernels->len; i++)
    {
      const FwNodeKernel *k = g_ptr_array_index (f->kernels, i);
      g_test_message ("%s: %s", k->node->name, k->producer);
    }
  g_assert_nonnull (kernel_of (f, "pool"));
  g_assert_cmpstr (kernel_of (f, "pool")->producer, ==, "host max-pool");
  /* The product ops only through oneDNN; activation weights never. */
  g_assert_true ((kernel_of (f, "conv") != NULL) == dnnl);
  g_assert_true ((kernel_of (f, "gemm") != NULL) == dnnl);
  g_assert_true ((kernel_of (f, "mm") != NULL) == dnnl);
  g_assert_true ((kernel_of (f, "mm_act") != NULL) == dnnl);
  g_assert_true ((kernel_of (f, "mm_bcast") != NULL) == dnnl);
  g_assert_true ((kernel_of (f, "mm_one") != NULL) == dnnl);
  if (dnnl)
    g_assert_true (g_str_has_prefix (kernel_of (f, "conv")->producer, "onednn "));
  g_assert_null (kernel_of (f, "conv_act"));
  g_assert_cmpstr (kernel_of (f, "gap")->producer, ==, "host global-average");
  g_assert_cmpstr (kernel_of (f, "gate")->producer, ==, "host channel-scale");
  g_assert_null (kernel_of (f, "mul_act"));
  g_assert_cmpstr (kernel_of (f, "gate_wide")->producer, ==, "host channel-scale");
  g_assert_cmpuint (f->kernels->len, ==, dnnl ? 11 : 5);
}

static void
test_refused (void)
{
  g_autoptr(FwModel) model = single_ops_model ();
  FwGraph *g = fw_model_get_graph (model);

  for (guint i = 0; i < g->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->nodes, i);
      g_autofree char *why = NULL;
      FwNodeKernel *k;

      if (strcmp (node->name, "conv_act") != 0)
        continue;
      k = fw_host_node_kernel_new (node, &why);
      g_assert_null (k);
      g_assert_nonnull (why);
      g_test_message ("conv_act: %s", why);
    }
}

/* Verification with the node kernels: each checked by itself and the outputs through the fused run. */
static FwVerifyResult *
verify (Fixture *f, GPtrArray *kernels)
{
  g_autoptr(GError) error = NULL;
  FwVerifyOptions vopts = { .seed = 7, .n_threads = 2, .policy = FW_VERIFY_POLICY_STRICT };
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  FwVerifyResult *result;

  vopts.node_kernels = kernels;
  result = fw_verify_run (f->plan, groups, &vopts, &error);
  g_assert_no_error (error);
  return result;
}

static void
test_matches_reference (Fixture *f, gconstpointer data)
{
  /* Twice: the second run reads the weights and bias the first prepared. */
  for (guint r = 0; r < 2; r++)
    {
      g_autoptr(FwVerifyResult) result = verify (f, f->kernels);

      g_assert_cmpuint (result->nodes->len, ==, f->kernels->len);
      for (guint i = 0; i < result->nodes->len; i++)
        {
          const FwNodeCheck *c = &g_array_index (result->nodes, FwNodeCheck, i);

          g_test_message ("%s: max abs %g (tolerance abs %g)", c->kernel->node->name, c->compare.max_abs,
                          c->tolerance.abs);
          g_assert_true (c->pass);
          g_assert_cmpint (c->compare.n_elements, >, 0);
          /* A maximum is exact in any order, and so is one product. */
          if (strcmp (c->kernel->node->op_type, "MaxPool") == 0 || strcmp (c->kernel->node->op_type, "Mul") == 0)
            g_assert_cmpfloat (c->compare.max_abs, ==, 0.0);
        }
      for (guint o = 0; o < result->outputs->len; o++)
        g_assert_true (g_array_index (result->outputs, FwOutputCheck, o).pass);
      g_assert_true (result->pass);
    }
}

/* Each kernel that takes channels-last arrays gives, from its inputs channels-last, the very bytes of its
 * plain run (in the other layout): the pools' and the gate's loops, and a Conv on an NHWC primitive (made so
 * on any CPU by FW_DNNL_NHWC), or all of them in blocks of 16 or 8 channels (nChw16c, nChw8c: FW_DNNL_BLOCK). */
static void
check_channels_last (guint block)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(GPtrArray) kernels = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (4);
  FwPlanOptions options;
  guint checked = 0;

  g_autofree char *value = g_strdup_printf ("%u", block != 0 ? block : 1);

  g_setenv (block != 0 ? "FW_DNNL_BLOCK" : "FW_DNNL_NHWC", value, TRUE);
  model = single_ops_model ();
  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, NULL, &options, NULL);
  g_assert_nonnull (plan);
  kernels = fw_host_node_kernels_new (plan, NULL);
  g_unsetenv (block != 0 ? "FW_DNNL_BLOCK" : "FW_DNNL_NHWC");
  for (guint i = 0; i < kernels->len; i++)
    {
      const FwNodeKernel *k = g_ptr_array_index (kernels, i);
      const FwGroupKernel *gk = &k->kernel;
      g_autofree FwArray **in = g_new0 (FwArray *, gk->n_inputs + 1);
      g_autofree FwArray **cl = g_new0 (FwArray *, gk->n_inputs + 1);
      FwArray *plain_out[2] = { NULL, NULL }, *cl_out[2] = { NULL, NULL };
      g_autoptr(FwArray) back = NULL;
      g_autoptr(GError) error = NULL;

      if (gk->run_nhwc == NULL)
        continue;
      for (guint j = 0; j < gk->n_inputs; j++)
        {
          FwValue *v = gk->inputs[j];
          gint64 dims[FW_MAX_RANK];

          if (v == NULL)
            continue;
          if (v->constant != NULL)
            in[j] = fw_array_new_from_tensor (v->constant, &error);
          else
            {
              for (gint d = 0; d < v->rank; d++)
                dims[d] = v->dims[d].value;
              in[j] = fw_array_new (FW_DTYPE_FLOAT, v->rank, dims, &error);
              for (gint64 e = 0; e < in[j]->n_elements; e++)
                ((float *) in[j]->data)[e] = (float) g_rand_double_range (rand, -1.0, 1.0);
            }
          g_assert_no_error (error);
          cl[j] = (gk->nhwc_inputs & (1u << j)) && v->constant == NULL ? fw_array_to_nhwc (in[j], block, &error)
                                                                        : fw_array_ref (in[j]);
          g_assert_no_error (error);
        }
      g_assert_true (gk->run (gk->data, in, plain_out, 2, &error));
      g_assert_no_error (error);
      g_assert_true (gk->run_nhwc (gk->data, cl, cl_out, TRUE, 2, &error));
      g_assert_no_error (error);
      g_assert_true (cl_out[0]->nhwc);
      g_assert_cmpuint (cl_out[0]->block, ==, block);
      back = fw_array_to_plain (cl_out[0], &error);
      g_assert_no_error (error);
      g_test_message ("%s: %s", k->node->name, k->producer);
      g_assert_cmpmem (back->data, back->n_bytes, plain_out[0]->data, plain_out[0]->n_bytes);
      checked++;
      for (guint j = 0; j < gk->n_inputs; j++)
        {
          g_clear_pointer (&in[j], fw_array_unref);
          g_clear_pointer (&cl[j], fw_array_unref);
        }
      fw_array_unref (plain_out[0]);
      fw_array_unref (cl_out[0]);
    }
  /* The pool, both averages, both gates, and the Conv where oneDNN is built in. */
  g_assert_cmpuint (checked, ==, fw_dnnl_library () != NULL ? 6 : 5);
}

static void
test_channels_last (void)
{
  check_channels_last (0);
}

static void
test_channels_last_blocked (void)
{
  check_channels_last (16);
}

static void
test_channels_last_blocked8 (void)
{
  check_channels_last (8);
}

/* A float16 or bfloat16 MaxPool (resnet18_float16's: 5 ms a run on the reference kernel) runs on the host
 * kernel widened and rounded back, which changes no value: the very bits of the reference, padding, a NaN
 * and infinities included. */
static void
test_half_pool (void)
{
  static const FwDType types[2] = { FW_DTYPE_FLOAT16, FW_DTYPE_BFLOAT16 };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      g_autoptr(GRand) rand = g_rand_new_with_seed (5);
      g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *why = NULL;
      FwDim dims[4] = { FW_DIM_STATIC (1), FW_DIM_STATIC (6), FW_DIM_STATIC (15), FW_DIM_STATIC (15) };
      const gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 }, ks[2] = { 3, 3 }, d[4] = { 1, 6, 15, 15 };
      const char *in_names[1] = { "x" }, *out_names[1] = { "y" };
      FwNodeKernel *nk;
      FwArray *x, *ref[2] = { NULL, NULL }, *got[2] = { NULL, NULL };
      FwNode *n;

      fw_graph_add_input (g, "x", types[t], 4, dims, NULL);
      n = fw_graph_add_node (g, "MaxPool", "", "pool", 1, in_names, 1, out_names, NULL);
      fw_node_set_attr_ints (n, "kernel_shape", 2, ks);
      fw_node_set_attr_ints (n, "pads", 4, pads);
      fw_node_set_attr_ints (n, "strides", 2, strides);
      g_assert_true (fw_graph_add_output (g, "y", NULL));
      g_assert_true (fw_graph_link (g, NULL));
      g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
      nk = fw_host_node_kernel_new (n, &why);
      g_assert_nonnull (nk);
      g_assert_null (nk->kernel.run_nhwc);
      x = fw_array_new (types[t], 4, d, &error);
      g_assert_no_error (error);
      for (gint64 e = 0; e < x->n_elements; e++)
        {
          float v = (float) g_rand_double_range (rand, -4.0, 4.0);
          v = e == 7 ? NAN : e == 40 ? INFINITY : e == 41 ? -INFINITY : v;
          ((guint16 *) x->data)[e] = types[t] == FW_DTYPE_FLOAT16 ? fw_float_to_half (v) : fw_float_to_bfloat16 (v);
        }
      g_assert_true (fw_exec_run_node (ctx, n, &x, ref, &error));
      g_assert_no_error (error);
      g_assert_true (nk->kernel.run (nk->kernel.data, &x, got, 2, &error));
      g_assert_no_error (error);
      g_assert_cmpint (got[0]->dtype, ==, types[t]);
      g_assert_cmpmem (got[0]->data, got[0]->n_bytes, ref[0]->data, ref[0]->n_bytes);
      fw_array_unref (ref[0]);
      fw_array_unref (got[0]);
      fw_array_unref (x);
      fw_host_node_kernel_free (nk);
    }
}

/* A kernel that computes its node and then spoils one element. */
typedef struct
{
  const FwNodeKernel *real;
  FwNodeKernel        spoiled;
} Spoiler;

static gboolean
run_spoiled (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Spoiler *s = data;

  if (!s->real->kernel.run (s->real->kernel.data, inputs, outputs, n_threads, error))
    return FALSE;
  ((float *) outputs[0]->data)[outputs[0]->n_elements / 2] += 0.5f;
  return TRUE;
}

static void
test_spoiled_fails (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  g_autoptr(FwVerifyResult) result = NULL;
  Spoiler s;
  guint failed = 0;

  s.real = kernel_of (f, "pool");
  s.spoiled = *s.real;
  s.spoiled.kernel.run = run_spoiled;
  s.spoiled.kernel.data = &s;
  g_ptr_array_add (kernels, &s.spoiled);
  result = verify (f, kernels);
  g_assert_false (result->pass);
  g_assert_cmpuint (result->nodes->len, ==, 1);
  g_assert_false (g_array_index (result->nodes, FwNodeCheck, 0).pass);
  g_assert_cmpint (g_array_index (result->nodes, FwNodeCheck, 0).compare.n_failed, ==, 1);
  /* The fused run used it too: the model's output y3 is wrong. */
  for (guint o = 0; o < result->outputs->len; o++)
    failed += !g_array_index (result->outputs, FwOutputCheck, o).pass;
  g_assert_cmpuint (failed, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/core/exec/node-kernel/chosen", Fixture, NULL, fixture_set_up, test_chosen, fixture_tear_down);
  g_test_add_func ("/core/exec/node-kernel/refused", test_refused);
  g_test_add_func ("/core/exec/node-kernel/channels-last", test_channels_last);
  g_test_add_func ("/core/exec/node-kernel/channels-last/blocked16", test_channels_last_blocked);
  g_test_add_func ("/core/exec/node-kernel/channels-last/blocked8", test_channels_last_blocked8);
  g_test_add_func ("/core/exec/node-kernel/half-pool", test_half_pool);
  g_test_add ("/core/exec/node-kernel/matches-reference", Fixture, NULL, fixture_set_up, test_matches_reference,
              fixture_tear_down);
  g_test_add ("/core/exec/node-kernel/half/chosen", Fixture, GINT_TO_POINTER (FW_DTYPE_FLOAT16), fixture_set_up,
              test_chosen, fixture_tear_down);
  g_test_add ("/core/exec/node-kernel/half/matches-reference", Fixture, GINT_TO_POINTER (FW_DTYPE_FLOAT16),
              fixture_set_up, test_matches_reference, fixture_tear_down);
  g_test_add ("/core/exec/node-kernel/bfloat16/matches-reference", Fixture, GINT_TO_POINTER (FW_DTYPE_BFLOAT16),
              fixture_set_up, test_matches_reference, fixture_tear_down);
  g_test_add ("/core/exec/node-kernel/spoiled-fails", Fixture, NULL, fixture_set_up, test_spoiled_fails,
              fixture_tear_down);
  return g_test_run ();
}
