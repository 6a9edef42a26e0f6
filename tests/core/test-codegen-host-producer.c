/* test-codegen-host-producer.c: which library computes a host SuperKernel's compute root (oneDNN, else
 * OpenBLAS or the direct grouped Conv), as decided once when the kernel is generated and reported, and the
 * kernels verifying against the reference interpreter either way. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/fw-targets.h"
#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-winograd.h"
#include "exec/fw-fused.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"

/* Conv (bias, pads, stride 2) + Add + Relu; a 1×1 stride-2 Conv (its far padding negative as ONNX counts
 * it) + Add; a depthwise Conv + HardSigmoid·x; Gemm (transB, alpha, beta, bias) + Relu; MatMul of batched
 * activations by a constant matrix + Sigmoid; a batched MatMul of two activations + Sigmoid. */
static FwModel *
producer_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  gint64 x[4] = { 1, 4, 10, 10 }, w[4] = { 6, 4, 3, 3 }, b[1] = { 6 }, r[4] = { 1, 6, 5, 5 };
  gint64 w1[4] = { 6, 4, 1, 1 }, dw[4] = { 4, 1, 3, 3 };
  gint64 gx[2] = { 70, 24 }, gw[2] = { 40, 24 }, gb[1] = { 40 }, mx[3] = { 2, 9, 24 }, mw[2] = { 24, 40 };
  gint64 q[4] = { 1, 3, 9, 8 }, kt[4] = { 1, 3, 8, 9 };
  gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 };
  FwNode *c;

  fw_test_add_float_input (g, "x", 4, x);
  fw_test_add_float_input (g, "res", 4, r);
  fw_test_add_float_input (g, "gx", 2, gx);
  fw_test_add_float_input (g, "mx", 3, mx);
  fw_test_add_float_input (g, "q", 4, q);
  fw_test_add_float_input (g, "k", 4, kt);
  fw_test_add_random_weight (g, rand, "w", 4, w, 1.0f);
  fw_test_add_random_weight (g, rand, "b", 1, b, 1.0f);
  fw_test_add_random_weight (g, rand, "w1", 4, w1, 1.0f);
  fw_test_add_random_weight (g, rand, "dw", 4, dw, 1.0f);
  fw_test_add_random_weight (g, rand, "gw", 2, gw, 1.0f);
  fw_test_add_random_weight (g, rand, "gb", 1, gb, 1.0f);
  fw_test_add_random_weight (g, rand, "mw", 2, mw, 1.0f);
  c = fw_test_add_node3 (g, "Conv", "conv", "t0", "x", "w", "b");
  fw_node_set_attr_ints (c, "pads", 4, pads);
  fw_node_set_attr_ints (c, "strides", 2, strides);
  fw_test_add_node3 (g, "Add", "add", "t1", "t0", "res", NULL);
  fw_test_add_node3 (g, "Relu", "relu", "y0", "t1", NULL, NULL);
  c = fw_test_add_node3 (g, "Conv", "conv1x1", "t2", "x", "w1", NULL);
  fw_node_set_attr_ints (c, "strides", 2, strides);
  fw_test_add_node3 (g, "Add", "add1", "y1", "t2", "res", NULL);
  c = fw_test_add_node3 (g, "Conv", "dwconv", "t3", "x", "dw", NULL);
  fw_node_set_attr_ints (c, "pads", 4, pads);
  fw_node_set_attr_int (c, "group", 4);
  fw_test_add_node3 (g, "HardSigmoid", "hs", "t4", "t3", NULL, NULL);
  fw_test_add_node3 (g, "Mul", "hswish", "y2", "t3", "t4", NULL);
  c = fw_test_add_node3 (g, "Gemm", "gemm", "t5", "gx", "gw", "gb");
  fw_node_set_attr_int (c, "transB", 1);
  fw_node_set_attr_float (c, "alpha", 0.5f);
  fw_node_set_attr_float (c, "beta", 2.0f);
  fw_test_add_node3 (g, "Relu", "grelu", "y3", "t5", NULL, NULL);
  fw_test_add_node3 (g, "MatMul", "mm", "t6", "mx", "mw", NULL);
  fw_test_add_node3 (g, "Sigmoid", "msig", "y4", "t6", NULL, NULL);
  fw_test_add_node3 (g, "MatMul", "qk", "t7", "q", "k", NULL);
  fw_test_add_node3 (g, "Sigmoid", "qsig", "y5", "t7", NULL, NULL);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *name = g_strdup_printf ("y%u", i);
      g_assert_true (fw_graph_add_output (g, name, NULL));
    }
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

/* The plan of model on the 910B profile and its host kernels, cached under dir; NULL targets (skipped) when
 * there is no C compiler. */
static FwTargets *
build_targets (FwModel *model, const char *dir, FwPlan **plan)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autofree char *cache = g_build_filename (dir, "kernels", NULL);
  FwPlanOptions options;
  FwTargets *targets;

  fw_plan_options_init (&options);
  *plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  targets = fw_targets_build (*plan, TRUE, FALSE, cache, NULL, &error);
  g_assert_no_error (error);
  if (targets->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      g_clear_pointer (&targets, fw_targets_free);
    }
  return targets;
}

/* Every group's kernel verifies against the reference under the strict policy. */
static void
verify_all (FwPlan *plan, FwTargets *targets)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) kernels = fw_targets_group_kernels (targets);
  g_autoptr(FwVerifyResult) result = NULL;
  FwVerifyOptions vopts = { .seed = 3, .n_threads = 2, .policy = FW_VERIFY_POLICY_STRICT };

  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < result->groups->len; i++)
    {
      const FwGroupCheck *gc = &g_array_index (result->groups, FwGroupCheck, i);
      g_test_message ("candidate %u: max abs %g", gc->candidate, gc->isolated.max_abs);
      g_assert_true (gc->has_kernel);
      g_assert_true (gc->pass);
    }
  for (guint o = 0; o < result->outputs->len; o++)
    {
      const FwOutputCheck *oc = &g_array_index (result->outputs, FwOutputCheck, o);
      g_test_message ("output %u: %s max abs %g", o, oc->pass ? "pass" : "FAIL", oc->compare.max_abs);
    }
  g_test_message ("unverified %u", result->unverified->len);
  g_assert_true (result->pass);
}

/* Builds the host kernels of every fused group and verifies them; `forced`: FW_HOST_PRODUCER=openblas. */
static void
check_producers (gboolean forced)
{
  g_autoptr(FwModel) model = producer_model ();
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  guint roots = 0, convs = 0;

  if (forced)
    g_setenv ("FW_HOST_PRODUCER", "openblas", TRUE);
  targets = build_targets (model, dir, &plan);
  g_unsetenv ("FW_HOST_PRODUCER");
  if (targets == NULL)
    {
      fw_test_remove_dir (dir);
      return;
    }
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, k->candidate);
      const FwSuperKernelProducer *p;

      g_assert_cmpstr (k->errors[FW_TARGET_HOST], ==, NULL);
      g_assert_true (k->host_compiled);
      p = fw_superkernel_get_producer (k->host);
      if (cand->root == NULL)
        {
          g_assert_null (p->backend);
          continue;
        }
      roots++;
      convs += strcmp (cand->root->op_type, "Conv") == 0;
      g_test_message ("candidate %u (%s root): %s %s %s %s", k->candidate, cand->root->op_type, p->backend,
                      p->library ? p->library : "", p->implementation ? p->implementation : "",
                      p->fallback ? p->fallback : "");
      if (!forced && fw_dnnl_library () != NULL && g_strcmp0 (p->backend, "winograd") == 0)
        {
          /* A 3x3 stride-1 convolution on AVX2: our Winograd kernel, called as oneDNN's primitive is. */
          g_assert_cmpstr (cand->root->op_type, ==, "Conv");
          g_assert_cmpstr (p->implementation, ==, FW_WINOGRAD_IMPL);
          g_assert_null (p->library);
          g_assert_nonnull (strstr (fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]), "rt->producer_run ("));
        }
      else if (!forced && fw_dnnl_library () != NULL)
        {
          /* oneDNN takes every root of this model, and says which implementation it chose. */
          g_assert_cmpstr (p->backend, ==, "onednn");
          g_assert_cmpstr (p->library, ==, fw_dnnl_library ());
          g_assert_nonnull (p->isa);
          g_assert_nonnull (p->implementation);
          g_assert_null (p->fallback);
          g_assert_nonnull (strstr (fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]), "rt->producer_run ("));
        }
      else
        {
          gboolean grouped = fw_node_get_attr_int (cand->root, "group", 1) > 1;

          g_assert_cmpstr (p->backend, ==, grouped ? "direct" : "openblas");
          g_assert_null (p->library);
          g_assert_nonnull (p->fallback);
          g_assert_cmpstr (p->fallback, ==,
                           fw_dnnl_library () == NULL ? "built without oneDNN" : "FW_HOST_PRODUCER=openblas");
          g_assert_null (strstr (fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]), "rt->producer_run ("));
        }
    }
  /* Conv + Add + Relu, Conv + Add, the depthwise Conv's epilogue, Gemm + Relu and both MatMul + Sigmoid. */
  g_assert_cmpuint (convs, >=, 2);
  g_assert_cmpuint (roots, >=, 4);
  /* Twice: the second run reads the weights the first prepared. */
  for (guint r = 0; r < 2; r++)
    verify_all (plan, targets);
  fw_test_remove_dir (dir);
}

/* MatMul + bias + erf-GELU as torch writes it, MatMul + bias + Relu, Conv + a per-channel bias Add + Relu,
 * a Conv with a bias input of its own + Relu, one + a residual Add + Relu (a ResNet block's end), one +
 * x · HardSigmoid (x) (MobileNetV3's hardswish) and one + a HardSigmoid of other constants: the whole
 * epilogue oneDNN's bias, sum and eltwise post-ops; MatMul + bias + Tanh, and a Conv with its own bias
 * then a bias Add (two biases): a pass of generated C after the primitive. */
static FwModel *
absorbed_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (9);
  gint64 mx[3] = { 2, 9, 24 }, mw[2] = { 24, 40 }, mb[1] = { 40 }, x[4] = { 1, 4, 10, 10 }, w[4] = { 6, 4, 3, 3 };
  gint64 b[1] = { 6 }, cb[3] = { 6, 1, 1 }, r[4] = { 1, 6, 8, 8 };
  const float consts[3] = { 1.41421353816986083984375f, 1.0f, 0.5f };
  const char *const names[3] = { "sqrt2", "one", "half" };
  FwNode *n;

  fw_test_add_float_input (g, "mx", 3, mx);
  fw_test_add_float_input (g, "x", 4, x);
  fw_test_add_float_input (g, "r", 4, r);
  fw_test_add_random_weight (g, rand, "mw", 2, mw, 1.0f);
  fw_test_add_random_weight (g, rand, "mb", 1, mb, 1.0f);
  fw_test_add_random_weight (g, rand, "w", 4, w, 1.0f);
  fw_test_add_random_weight (g, rand, "b", 1, b, 1.0f);
  fw_test_add_random_weight (g, rand, "cb", 3, cb, 1.0f);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &consts[i]);
      g_assert_nonnull (fw_graph_add_initializer (g, names[i], t, NULL));
    }
  fw_test_add_node3 (g, "MatMul", "mm0", "a0", "mx", "mw", NULL);
  fw_test_add_node3 (g, "Add", "bias0", "a1", "a0", "mb", NULL);
  fw_test_add_node3 (g, "Div", "g0", "a2", "a1", "sqrt2", NULL);
  fw_test_add_node3 (g, "Erf", "g1", "a3", "a2", NULL, NULL);
  fw_test_add_node3 (g, "Add", "g2", "a4", "a3", "one", NULL);
  fw_test_add_node3 (g, "Mul", "g3", "a5", "a1", "a4", NULL);
  fw_test_add_node3 (g, "Mul", "g4", "y0", "a5", "half", NULL);
  fw_test_add_node3 (g, "MatMul", "mm1", "b0", "mx", "mw", NULL);
  fw_test_add_node3 (g, "Add", "bias1", "b1", "mb", "b0", NULL);
  fw_test_add_node3 (g, "Relu", "relu1", "y1", "b1", NULL, NULL);
  fw_test_add_node3 (g, "Conv", "conv", "c0", "x", "w", NULL);
  fw_test_add_node3 (g, "Add", "cbias", "c1", "c0", "cb", NULL);
  fw_test_add_node3 (g, "Relu", "relu2", "y2", "c1", NULL, NULL);
  fw_test_add_node3 (g, "MatMul", "mm3", "d0", "mx", "mw", NULL);
  fw_test_add_node3 (g, "Add", "bias3", "d1", "d0", "mb", NULL);
  fw_test_add_node3 (g, "Tanh", "tanh3", "y3", "d1", NULL, NULL);
  fw_test_add_node3 (g, "Conv", "convb", "e0", "x", "w", "b");
  fw_test_add_node3 (g, "Relu", "relu4", "y4", "e0", NULL, NULL);
  fw_test_add_node3 (g, "Conv", "convr", "f0", "x", "w", "b");
  fw_test_add_node3 (g, "Add", "res5", "f1", "f0", "r", NULL);
  fw_test_add_node3 (g, "Relu", "relu5", "y5", "f1", NULL, NULL);
  fw_test_add_node3 (g, "Conv", "convbb", "h0", "x", "w", "b");
  fw_test_add_node3 (g, "Add", "cbias6", "h1", "h0", "cb", NULL);
  fw_test_add_node3 (g, "Relu", "relu6", "y6", "h1", NULL, NULL);
  fw_test_add_node3 (g, "Conv", "convhs", "k0", "x", "w", "b");
  n = fw_test_add_node3 (g, "HardSigmoid", "hsig7", "k1", "k0", NULL, NULL);
  fw_node_set_attr_float (n, "alpha", 1.0f / 6.0f);
  fw_test_add_node3 (g, "Mul", "hswish7", "y7", "k0", "k1", NULL);
  fw_test_add_node3 (g, "Conv", "convsig", "l0", "x", "w", "b");
  n = fw_test_add_node3 (g, "HardSigmoid", "hsig8", "y8", "l0", NULL, NULL);
  fw_node_set_attr_float (n, "alpha", 0.25f);
  fw_node_set_attr_float (n, "beta", 0.4f);
  for (guint i = 0; i < 9; i++)
    {
      g_autofree char *name = g_strdup_printf ("y%u", i);
      g_assert_true (fw_graph_add_output (g, name, NULL));
    }
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

/* The kernels whose whole epilogue oneDNN computes are the primitive alone (no parallel region of generated
 * C; the residual one passes its residual input to the primitive), the one with a Tanh and the Conv with two
 * biases keep their pass, and all verify against the reference under the strict policy. */
static void
test_absorbed (void)
{
  g_autoptr(FwModel) model = absorbed_model ();
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  guint absorbed = 0, kept = 0;

  if (fw_dnnl_library () == NULL)
    {
      g_test_skip ("built without oneDNN");
      fw_test_remove_dir (dir);
      return;
    }
  if ((targets = build_targets (model, dir, &plan)) == NULL)
    {
      fw_test_remove_dir (dir);
      return;
    }
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, k->candidate);
      const char *src = fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]);
      gboolean keep = FALSE, residual = FALSE, pass = strstr (src, "#pragma omp parallel") != NULL;

      g_assert_true (k->host_compiled);
      for (guint n = 0; n < cand->nodes->len; n++)
        {
          const FwNode *node = g_ptr_array_index (cand->nodes, n);
          keep |= strcmp (node->op_type, "Tanh") == 0 || strcmp (node->name, "cbias6") == 0;
          residual |= strcmp (node->name, "res5") == 0;
        }
      /* The residual is the kernel's input the call passes; every other call passes none. */
      g_assert_true (residual == (strstr (src, ", dst, NULL, rt->layout, nt)") == NULL && !pass));
      g_test_message ("candidate %u (%u nodes): %s", k->candidate, cand->nodes->len, pass ? "a pass" : "absorbed");
      g_assert_cmpint (pass, ==, keep);
      absorbed += !pass;
      kept += pass;
    }
  g_assert_cmpuint (absorbed, ==, 7);
  g_assert_cmpuint (kept, ==, 2);
  verify_all (plan, targets);
  fw_test_remove_dir (dir);
}

/* A ResNet stage in small: Conv + Relu (a), Conv + a + Relu (b: the residual is the conv's source too),
 * Conv + Relu (d), Conv + b + Relu (c: a basic block's second conv, the residual read by it alone), a
 * MaxPool (a single op), Conv + Relu to the output. Between them a, b, d, c and m can lie channels-last. */
static FwModel *
channels_last_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (21);
  gint64 x[4] = { 1, 4, 16, 16 }, w1[4] = { 16, 4, 3, 3 }, w[4] = { 16, 16, 3, 3 }, b[1] = { 16 };
  gint64 pads[4] = { 1, 1, 1, 1 }, strides[2] = { 2, 2 }, ks[2] = { 3, 3 };
  const char *const convs[5][5] = { { "conv1", "a0", "x", "w1", "b1" },
                                    { "conv2", "b0", "a", "w2", "b2" },
                                    { "conv3", "d0", "b", "w3", "b3" },
                                    { "conv4", "c0", "d", "w4", "b4" },
                                    { "conv5", "y0", "m", "w5", "b5" } };
  FwNode *n;

  fw_test_add_float_input (g, "x", 4, x);
  /* Weights of about 1/√fan-in, as trained ones are: three layers of unit weights sum terms in the
     thousands, whose float rounding alone exceeds the strict output tolerance near zero. */
  fw_test_add_random_weight (g, rand, "w1", 4, w1, 0.2f);
  for (guint i = 2; i <= 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("w%u", i);
      fw_test_add_random_weight (g, rand, name, 4, w, 0.1f);
    }
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("b%u", i + 1);
      fw_test_add_random_weight (g, rand, name, 1, b, 1.0f);
    }
  for (guint i = 0; i < 5; i++)
    {
      n = fw_test_add_node3 (g, "Conv", convs[i][0], convs[i][1], convs[i][2], convs[i][3], convs[i][4]);
      fw_node_set_attr_ints (n, "pads", 4, pads);
    }
  fw_test_add_node3 (g, "Relu", "relu1", "a", "a0", NULL, NULL);
  fw_test_add_node3 (g, "Add", "res1", "b1s", "b0", "a", NULL);
  fw_test_add_node3 (g, "Relu", "relu2", "b", "b1s", NULL, NULL);
  fw_test_add_node3 (g, "Relu", "relu3", "d", "d0", NULL, NULL);
  fw_test_add_node3 (g, "Add", "res2", "c1", "c0", "b", NULL);
  fw_test_add_node3 (g, "Relu", "relu4", "c", "c1", NULL, NULL);
  n = fw_test_add_node3 (g, "MaxPool", "pool", "m", "c", NULL, NULL);
  fw_node_set_attr_ints (n, "kernel_shape", 2, ks);
  fw_node_set_attr_ints (n, "pads", 4, pads);
  fw_node_set_attr_ints (n, "strides", 2, strides);
  fw_test_add_node3 (g, "Relu", "relu5", "y", "y0", NULL, NULL);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

static FwArray *
run_fused (FwFusedProgram *program, GPtrArray *inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwArray *out[2] = { NULL, NULL };

  g_assert_true (fw_fused_program_run (program, ctx, (FwArray *const *) inputs->pdata, inputs->len, out, NULL,
                                       &error));
  g_assert_no_error (error);
  g_assert_false (out[0]->nhwc);
  return out[0];
}

/* The fused executor keeps a, b, d, c and m channels-last (the convolutions' primitives made to compute so
 * on any CPU by FW_DNNL_NHWC; the MaxPool's node kernel pools either way), and its result is the very bytes
 * of the same run with every value plain (FW_FUSED_PLAIN), within tolerance of the reference, and every group
 * verifies. A kernel that took a channels-last input for a plain one would give other bytes. Only conv4's
 * kernel may take its residual's storage for its output (conv2's residual is its source as well); both runs
 * hand it over, and a residual written over while still needed would show against the reference. */
static void
check_channels_last (const char *env, const char *value)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autoptr(GPtrArray) kernels = NULL, inputs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autoptr(FwArray) nhwc = NULL, plain = NULL, ref = NULL;
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  FwFusedProgram *program;
  gdouble max_abs = 0;

  if (fw_dnnl_library () == NULL)
    {
      g_test_skip ("built without oneDNN");
      fw_test_remove_dir (dir);
      return;
    }
  g_setenv (env, value, TRUE);
  model = channels_last_model ();
  targets = build_targets (model, dir, &plan);
  g_unsetenv (env);
  if (targets == NULL)
    {
      fw_test_remove_dir (dir);
      return;
    }
  verify_all (plan, targets);
  kernels = fw_targets_group_kernels (targets);
  program = fw_fused_program_new (plan, kernels, &error);
  g_assert_no_error (error);
  fw_fused_program_set_node_kernels (program, targets->node_kernels);
  g_assert_cmpuint (fw_fused_program_get_n_channels_last (program), ==, 5);
  {
    guint n_inplace = 0;

    for (guint i = 0; i < kernels->len; i++)
      n_inplace += ((FwGroupKernel *) g_ptr_array_index (kernels, i))->inplace_inputs != 0;
    g_assert_cmpuint (n_inplace, ==, 1);
  }
  /* In blocks: the 16x16 3x3 convolutions on Winograd where oneDNN has it (AVX-512). */
  if (strcmp (value, "16") == 0 && fw_dnnl_isa () != NULL && g_str_has_prefix (fw_dnnl_isa (), "avx512_core"))
    {
      guint n_winograd = 0;

      for (guint i = 0; i < targets->kernels->len; i++)
        {
          FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
          const FwSuperKernelProducer *pr = k->host != NULL ? fw_superkernel_get_producer (k->host) : NULL;
          const char *impl = pr != NULL ? pr->implementation : NULL;
          n_winograd += impl != NULL && strstr (impl, "wino") != NULL;
        }
      g_assert_cmpuint (n_winograd, >=, 3);
    }
  inputs = fw_exec_make_inputs (model, 5, &error);
  g_assert_no_error (error);
  nhwc = run_fused (program, inputs);
  g_setenv ("FW_FUSED_PLAIN", "1", TRUE);
  g_assert_cmpuint (fw_fused_program_get_n_channels_last (program), ==, 0);
  plain = run_fused (program, inputs);
  g_unsetenv ("FW_FUSED_PLAIN");
  g_assert_cmpmem (nhwc->data, nhwc->n_bytes, plain->data, plain->n_bytes);
  {
    FwArray *out[2] = { NULL, NULL };

    g_assert_true (fw_exec_run_reference (ctx, fw_model_get_graph (model), (FwArray *const *) inputs->pdata,
                                          inputs->len, out, NULL, &error));
    g_assert_no_error (error);
    ref = out[0];
  }
  for (gint64 i = 0; i < ref->n_elements; i++)
    max_abs = MAX (max_abs, fabs (((float *) ref->data)[i] - ((float *) nhwc->data)[i]));
  g_test_message ("max abs against the reference %g", max_abs);
  g_assert_cmpfloat (max_abs, <, 1e-3);
  fw_fused_program_free (program);
  fw_test_remove_dir (dir);
}

static void
test_chosen (void)
{
  check_producers (FALSE);
}

static void
test_forced_openblas (void)
{
  check_producers (TRUE);
}

/* The form oneDNN picks on AVX-512, forced on any CPU. */
static void
test_channels_last (void)
{
  check_channels_last ("FW_DNNL_NHWC", "1");
}

/* The form of a model most of whose work is Winograd-able 3x3 convolutions (fw_host_activation_block):
 * nChw16c, the first conv's 4-channel source plain. */
static void
test_channels_last_blocked (void)
{
  check_channels_last ("FW_DNNL_BLOCK", "16");
}

/* The form every convolution takes on AVX2 (fw_host_activation_block): nChw8c. */
static void
test_channels_last_blocked8 (void)
{
  check_channels_last ("FW_DNNL_BLOCK", "8");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/codegen/host/producer/chosen", test_chosen);
  g_test_add_func ("/core/codegen/host/producer/forced-openblas", test_forced_openblas);
  g_test_add_func ("/core/codegen/host/producer/absorbed", test_absorbed);
  g_test_add_func ("/core/codegen/host/producer/channels-last", test_channels_last);
  g_test_add_func ("/core/codegen/host/producer/channels-last/blocked16", test_channels_last_blocked);
  g_test_add_func ("/core/codegen/host/producer/channels-last/blocked8", test_channels_last_blocked8);
  return g_test_run ();
}
