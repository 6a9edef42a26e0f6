/* test-custom-ops.c: operator registry files (docs/custom-ops.md): good and bad files with their exact
 * messages, the host expression's parser and evaluator, and a model with custom operators planned, fused
 * with its neighbours, compiled for the host and verified against the registry's own evaluation; refused by
 * the host without an expression, by Ascend always, and opaque when the registry does not know it. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "codegen/fw-targets.h"
#include "exec/fw-fused.h"
#include "exec/fw-kernel.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "onnx/fw-onnx.h"
#include "ops/fw-custom-ops.h"
#include "ops/fw-op-registry.h"
#include "session/fw-open.h"

#define GELU_EXPR FW_TEST_GELU_EXPR

static const char registry[] = FW_TEST_CUSTOM_OPS_YAML;

static const char registry_no_expr[] =
  "ops:\n"
  "  - {domain: com.example, type: FastGelu, class: elementwise, inputs: 1}\n"
  "  - {domain: com.example, type: ScaledAdd, class: broadcast, inputs: 2, cost: none}\n";

static FwCustomOps *
load (const char *text, GError **error)
{
  g_autoptr(FwCustomOps) set = fw_custom_ops_new ();

  if (!fw_custom_ops_load_data (set, "ops.yaml", text, strlen (text), error))
    return NULL;
  return g_steal_pointer (&set);
}

static void
install (const char *text)
{
  g_autoptr(GError) error = NULL;
  FwCustomOps *set = text ? load (text, &error) : NULL;

  g_assert_no_error (error);
  fw_custom_ops_install (set);
}

/* ---- files ---- */

static void
test_load_good (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwCustomOps) set = load (registry, &error);
  const FwOpInfo *gelu, *add;

  g_assert_no_error (error);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (set), ==, 2);
  gelu = fw_custom_ops_find (set, "com.example", "FastGelu");
  add = fw_custom_ops_find (set, "com.example", "ScaledAdd");
  g_assert_nonnull (gelu);
  g_assert_nonnull (add);
  g_assert_true (fw_op_is_custom (gelu));
  g_assert_cmpint (gelu->op_class, ==, FW_OP_CLASS_ELEMENTWISE);
  g_assert_cmpint (add->op_class, ==, FW_OP_CLASS_BROADCAST);
  g_assert_cmpstr (fw_custom_op_get_name (gelu->custom), ==, "com.example:FastGelu");
  g_assert_cmpstr (fw_custom_op_get_origin (gelu->custom), ==, "ops.yaml:3:5");
  g_assert_cmpuint (fw_custom_op_get_n_inputs (add->custom), ==, 2);
  g_assert_nonnull (fw_custom_op_get_expr (gelu->custom));
  g_assert_null (fw_custom_ops_find (set, "com.example", "Other"));
  /* An empty file declares nothing. */
  g_clear_pointer (&set, fw_custom_ops_free);
  set = load ("", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (set), ==, 0);
}

static void
assert_bad (const char *text, const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwCustomOps) set = load (text, &error);

  g_assert_null (set);
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, message);
}

#define OP "ops:\n  - domain: com.example\n    type: T\n"

static void
test_load_bad (void)
{
  assert_bad ("version: 1\nopz: []\n", "ops.yaml:2:1: unknown key “opz” (did you mean “ops”?)");
  assert_bad ("version: 2\n", "ops.yaml:1:10: 2 is out of range (1 to 1)");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    shap: broadcast\n",
              "ops.yaml:6:5: unknown key “shap” (did you mean “shape”?)");
  assert_bad (OP "    class: elemwise\n    inputs: 1\n",
              "ops.yaml:4:12: unknown op class “elemwise” (allowed: elementwise, broadcast, opaque)");
  assert_bad (OP "    class: reduce\n    inputs: 1\n",
              "ops.yaml:4:12: class “reduce” cannot be declared for a custom operator (allowed: elementwise, "
              "broadcast, opaque)");
  assert_bad (OP "    inputs: 1\n", "ops.yaml:2:5: com.example:T needs “class”");
  assert_bad ("ops:\n  - {type: T, class: opaque, inputs: 1}\n", "ops.yaml:2:5: an operator needs “domain”");
  assert_bad ("ops:\n  - {domain: ai.onnx, type: Relu, class: opaque, inputs: 1}\n",
              "ops.yaml:2:14: “ai.onnx” is ONNX's own domain; a custom operator needs a domain of its own, such as "
              "com.example");
  assert_bad (OP "    class: elementwise\n    inputs: 0\n", "ops.yaml:5:13: 0 is out of range (1 to 16)");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    shape: same\n",
              "ops.yaml:6:12: unknown shape rule “same”: “shape” must be broadcast, {same_as: N} or "
              "{attribute: NAME}");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    shape: {same_as: 1}\n",
              "ops.yaml:6:22: input 1 is out of range: the operator has 1 input(s), 0 to 0");
  assert_bad (OP "    class: elementwise\n    inputs: 2\n    dtype: {same_as: 5}\n",
              "ops.yaml:6:22: input 5 is out of range: the operator has 2 input(s), 0 to 1");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    dtype: float99\n",
              "ops.yaml:6:12: unknown dtype “float99” (a dtype such as float32, or {same_as: N})");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    cost: cheap\n",
              "ops.yaml:6:11: “cost” must be none or {flops_per_element: N}, not “cheap”");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    host_expression: x0 * expp(x0)\n",
              "ops.yaml:6:27: host_expression: unknown function “expp” (did you mean “expf”?)");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    host_expression: \"x0 + x1\"\n",
              "ops.yaml:6:28: host_expression: input x1 is out of range: the operator has 1 input(s), x0 to x0");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    host_expression: (x0 + 1\n",
              "ops.yaml:6:29: host_expression: “)” expected");
  assert_bad (OP "    class: elementwise\n    inputs: 1\n    host_expression: x0; system(x0)\n",
              "ops.yaml:6:24: host_expression: unexpected “;” after the expression");
  assert_bad (OP "    class: opaque\n    inputs: 1\n    host_expression: x0\n",
              "ops.yaml:6:22: an opaque operator is never fused, so it takes no host_expression");
  assert_bad (OP "    class: opaque\n    inputs: 1\n  - {domain: com.example, type: T, class: opaque, inputs: 2}\n",
              "ops.yaml:6:5: com.example:T is declared twice (first at ops.yaml:2:5)");
}

/* A folder loads its *.yaml files in name order, all or none; a name in two files is an error at the second. */
static void
test_load_dir (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *a = g_build_filename (dir, "a.yaml", NULL);
  g_autofree char *b = g_build_filename (dir, "b.yaml", NULL);
  g_autofree char *c = g_build_filename (dir, "c.txt", NULL);
  g_autofree char *want = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwCustomOps) set = fw_custom_ops_new ();

  g_assert_true (g_file_set_contents (b, "ops: [{domain: com.example, type: B, class: opaque, inputs: 1}]\n", -1, NULL));
  g_assert_true (g_file_set_contents (a, "ops: [{domain: com.example, type: A, class: opaque, inputs: 1}]\n", -1, NULL));
  g_assert_true (g_file_set_contents (c, "not yaml: [\n", -1, NULL));
  g_assert_true (fw_custom_ops_load_path (set, dir, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (set), ==, 2);
  g_assert_cmpstr (fw_custom_ops_get_op (set, 0)->op_type, ==, "A");
  g_assert_cmpstr (fw_custom_ops_get_op (set, 1)->op_type, ==, "B");
  g_assert_true (g_file_set_contents (b, "ops: [{domain: com.example, type: A, class: opaque, inputs: 1}]\n", -1, NULL));
  g_clear_pointer (&set, fw_custom_ops_free);
  set = fw_custom_ops_new ();
  g_assert_false (fw_custom_ops_load_path (set, dir, &error));
  want = g_strdup_printf ("%s:1:7: com.example:A is declared twice (first at %s:1:7)", b, a);
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, want);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (set), ==, 0);
  fw_test_remove_dir (dir);
}

/* The documented example and the fuzz seeds load (a folder: its *.yaml only). */
static void
test_example (void)
{
  g_autofree char *example = g_test_build_filename (G_TEST_DIST, "..", "data", "examples", "custom-ops.yaml", NULL);
  g_autofree char *seeds = g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", "ops", NULL);
  g_autoptr(FwCustomOps) set = fw_custom_ops_new ();
  g_autoptr(FwCustomOps) fuzz = fw_custom_ops_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_custom_ops_load_path (set, example, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (set), ==, 4);
  g_assert_null (fw_custom_op_get_expr (fw_custom_ops_find (set, "com.example", "Decode")->custom));
  g_assert_true (fw_custom_ops_load_path (fuzz, seeds, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_custom_ops_get_n_ops (fuzz), ==, 7);
}

/* ---- the expression ---- */

static void
test_expr (void)
{
  static const struct { const char *text; float x0, x1, want; } cases[] = {
    { "x0 + x1 * 2", 1, 3, 7 },
    { "(x0 + x1) * 2", 1, 3, 8 },
    { "-x0 - -x1", 1, 3, 2 },
    { "x0 < x1 ? fmaxf(x0, 10) : fminf(x1, -10)", 1, 3, 10 },
    { "x0 >= x1 || !(x1 == 3)", 1, 3, 0 },
    { "x0 != x1 && x1 <= 3", 1, 3, 1 },
    { "powf(x1, 2.0f) / 4.5e-1f", 1, 3, 9.0f / 0.45f },
    { "1 / 2", 0, 0, 0.5f },
    { "fabsf(-x1) + sqrtf(x0 * 4) + floorf(.5) + ceilf(0.5)", 1, 3, 6 },
  };
  g_autoptr(FwCustomExpr) gelu = NULL;
  g_autofree char *c = NULL;
  char *message = NULL;
  gsize offset = 0;
  const char *operands[] = { "a", "b", NULL };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwCustomExpr) e = fw_custom_expr_parse (cases[i].text, 2, &offset, &message);
      float x[2] = { cases[i].x0, cases[i].x1 };

      g_assert_null (message);
      g_assert_nonnull (e);
      g_assert_cmpfloat_with_epsilon (fw_custom_expr_eval (e, x), cases[i].want, 1e-6);
    }
  gelu = fw_custom_expr_parse (GELU_EXPR, 1, &offset, &message);
  g_assert_nonnull (gelu);
  {
    float x = 0.75f;
    float want = x * 0.5f * (1.0f + tanhf (0.7978845608f * (x + 0.044715f * x * x * x)));
    g_assert_cmpfloat (fw_custom_expr_eval (gelu, &x), ==, want);
  }
  g_assert_cmpuint (fw_custom_expr_count_ops (gelu), ==, 9);
  c = fw_custom_expr_to_c (gelu, operands);
  g_assert_cmpstr (c, ==, "(((a) * (0.5f)) * ((1.0f) + tanhf (((0.7978846f) * ((a) + ((((0.044715f) * (a)) * (a)) * "
                          "(a)))))))");
  g_clear_pointer (&c, g_free);
  {
    g_autoptr(FwCustomExpr) e = fw_custom_expr_parse ("x0 > 1 ? !x0 : x0 && x1", 2, &offset, &message);
    c = fw_custom_expr_to_c (e, operands);
    g_assert_cmpstr (c, ==, "(((float) ((a) > (1.0f))) != 0.0f ? ((float) ((a) == 0.0f)) : ((float) ((a) != 0.0f && "
                            "(b) != 0.0f)))");
  }
  /* Hostile shapes: too deep, hexadecimal, a literal out of float's range. */
  {
    GString *deep = g_string_new (NULL);
    for (guint i = 0; i < 200; i++)
      g_string_append_c (deep, '(');
    g_string_append (deep, "x0");
    g_assert_null (fw_custom_expr_parse (deep->str, 1, &offset, &message));
    g_assert_cmpstr (message, ==, "the expression is nested too deeply (at most 64 levels)");
    g_clear_pointer (&message, g_free);
    g_string_free (deep, TRUE);
  }
  g_assert_null (fw_custom_expr_parse ("0x10", 1, &offset, &message));
  g_assert_cmpstr (message, ==, "a malformed number");
  g_clear_pointer (&message, g_free);
  g_assert_null (fw_custom_expr_parse ("x0 * 1e99", 1, &offset, &message));
  g_assert_cmpstr (message, ==, "the number is out of float's range");
  g_assert_cmpuint (offset, ==, 5);
  g_clear_pointer (&message, g_free);
  g_assert_null (fw_custom_expr_parse ("expf(x0, x0)", 1, &offset, &message));
  g_assert_cmpstr (message, ==, "expf takes 1 argument(s)");
  g_clear_pointer (&message, g_free);
  g_assert_null (fw_custom_expr_parse ("y", 1, &offset, &message));
  g_assert_cmpstr (message, ==, "unknown name “y” (inputs are x0, x1…; functions are called with parentheses)");
  g_clear_pointer (&message, g_free);
}

/* ---- the model ---- */

static FwModel *
custom_model (void)
{
  FwModel *model = fw_test_custom_op_model (4, 256);
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
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

static const FwCandidate *
only_candidate (FwPlan *plan)
{
  g_assert_cmpuint (plan->candidates->len, ==, 1);
  return g_ptr_array_index (plan->candidates, 0);
}

static void
test_fused_verified (void)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargets) targets = NULL;
  g_autoptr(GPtrArray) kernels = NULL;
  g_autoptr(FwVerifyResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *cache = g_build_filename (dir, "kernels", NULL);
  FwVerifyOptions vopts = { .seed = 5, .n_threads = 2 };
  const FwCandidate *cand;
  FwTargetKernel *k;
  FwNode *gelu, *sa;
  FwOpCost cost;

  install (registry);
  model = custom_model ();
  gelu = fw_graph_get_node (fw_model_get_graph (model), 1);
  sa = fw_graph_get_node (fw_model_get_graph (model), 2);
  g_assert_true (fw_op_is_custom (gelu->op));
  g_assert_cmpint (fw_node_get_op_class (gelu), ==, FW_OP_CLASS_ELEMENTWISE);
  g_assert_cmpint (fw_node_get_op_class (sa), ==, FW_OP_CLASS_BROADCAST);
  /* Shapes and costs by the registry's rules. */
  g_assert_cmpint (sa->outputs[0]->rank, ==, 2);
  g_assert_cmpint (sa->outputs[0]->dims[1].value, ==, 256);
  g_assert_cmpint (sa->outputs[0]->dtype, ==, FW_DTYPE_FLOAT);
  g_assert_true (fw_op_cost (gelu, &cost));
  g_assert_cmpfloat (cost.flops, ==, 9.0 * 4 * 256);
  g_assert_true (fw_op_cost (sa, &cost));
  g_assert_cmpfloat (cost.flops, ==, 2.0 * 4 * 256);   /* the expression's own two operations */

  plan = plan_for (model);
  cand = only_candidate (plan);
  g_assert_cmpuint (cand->nodes->len, ==, 3);
  targets = fw_targets_build (plan, TRUE, TRUE, cache, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (targets->kernels->len, ==, 1);
  k = g_ptr_array_index (targets->kernels, 0);
  g_assert_nonnull (k->errors[FW_TARGET_ASCEND]);
  g_assert_nonnull (strstr (k->errors[FW_TARGET_ASCEND], "[FW-TG-002] custom operator com.example:FastGelu "
                                                         "(ops.yaml:3:5) has no Ascend C implementation"));
  if (targets->toolchain == NULL)
    {
      g_test_skip ("no C compiler");
      fw_test_remove_dir (dir);
      return;
    }
  g_assert_cmpstr (k->errors[FW_TARGET_HOST], ==, NULL);
  g_assert_true (k->host_compiled);
  g_assert_nonnull (strstr (fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]), "tanhf ("));
  kernels = fw_targets_group_kernels (targets);
  /* Another registry installed since (another window's open) leaves this model's nodes their own rows. */
  install (registry_no_expr);
  result = fw_verify_run (plan, kernels, &vopts, &error);
  g_assert_no_error (error);
  g_assert_true (result->pass);
  g_assert_cmpuint (result->groups->len, ==, 1);
  g_assert_true (g_array_index (result->groups, FwGroupCheck, 0).has_kernel);
  g_assert_cmpfloat (g_array_index (result->groups, FwGroupCheck, 0).isolated.max_abs, <, 1e-5);
  fw_test_remove_dir (dir);
  install (NULL);
}

/* Without an expression the planner still fuses the ops by class, but the host refuses the group. */
static void
test_host_refuses (void)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  g_autoptr(FwTargetKernel) k = NULL;
  const gboolean enabled[FW_N_TARGETS] = { TRUE, TRUE };

  install (registry_no_expr);
  model = custom_model ();
  plan = plan_for (model);
  g_assert_cmpuint (only_candidate (plan)->nodes->len, ==, 3);
  k = fw_target_kernel_generate (plan, 0, enabled);
  g_assert_null (k->sources[FW_TARGET_HOST]);
  g_assert_cmpstr (k->errors[FW_TARGET_HOST], ==, "host SuperKernel: [FW-TG-001] custom operator com.example:FastGelu "
                                                  "(ops.yaml:2:5) has no host_expression, so the host target cannot "
                                                  "compute it");
  g_assert_cmpstr (k->errors[FW_TARGET_ASCEND], ==, "Ascend target: [FW-TG-002] custom operator com.example:FastGelu "
                                                    "(ops.yaml:2:5) has no Ascend C implementation");
  /* Nor is there a reference kernel: the interpreter has nothing to evaluate. */
  g_assert_null (fw_kernel_lookup ("com.example", "FastGelu"));
  install (NULL);
}

/* Not in the registry: opaque as before. The registry knows FastGelu only: Add and FastGelu fuse,
 * ScaledAdd stays out. */
static void
test_unknown_opaque (void)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwPlan) plan = NULL;
  FwNode *sa;
  const FwCandidate *cand;

  install ("ops: [{domain: com.example, type: FastGelu, class: elementwise, inputs: 1, host_expression: x0}]\n");
  model = custom_model ();
  sa = fw_graph_get_node (fw_model_get_graph (model), 2);
  g_assert_null (sa->op);
  g_assert_cmpint (fw_node_get_op_class (sa), ==, FW_OP_CLASS_OPAQUE);
  plan = plan_for (model);
  cand = only_candidate (plan);
  g_assert_cmpuint (cand->nodes->len, ==, 2);
  g_assert_false (g_ptr_array_find (cand->nodes, sa, NULL));
  g_assert_null (fw_kernel_lookup ("com.example", "ScaledAdd"));
  g_assert_nonnull (fw_kernel_lookup ("com.example", "FastGelu"));
  install (NULL);
}

/* Through FwOpen, as batch mode and the window open a model: the registry is installed before the rules, so
 * a rule naming the custom op by DOMAIN:TYPE names the candidate; a bad registry stops the open. */
static void
test_open (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *model_path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *ops_path = g_build_filename (dir, "ops.yaml", NULL);
  g_autofree char *bad_path = g_build_filename (dir, "bad.yaml", NULL);
  g_autofree char *rules_path = g_build_filename (dir, "rules.yaml", NULL);
  g_autofree char *want = NULL;
  const char *ops[] = { ops_path, NULL }, *bad[] = { bad_path, NULL }, *rules[] = { rules_path, NULL };
  g_autoptr(FwModel) built = NULL;
  g_autoptr(FwOpen) job = NULL;
  g_autoptr(FwProject) project = NULL;
  g_autoptr(GError) error = NULL;
  FwOpenOptions options;
  FwPlan *plan;

  install (registry);
  built = custom_model ();
  g_assert_true (fw_onnx_write (built, model_path, FW_ONNX_WRITE_DEFAULT, NULL));
  install (NULL);
  g_assert_true (g_file_set_contents (ops_path, registry, -1, NULL));
  g_assert_true (g_file_set_contents (bad_path, "ops: [{domain: com.example, type: X, class: fancy, inputs: 1}]\n",
                                      -1, NULL));
  g_assert_true (g_file_set_contents (rules_path,
                                      "version: 1\nrules:\n  - name: bias_fast_gelu\n    pattern: [Add, "
                                      "\"com.example:FastGelu\", \"com.example:ScaledAdd\"]\n    priority: 50\n",
                                      -1, NULL));
  fw_open_options_init (&options);
  options.ops = ops;
  options.rules = rules;
  job = fw_open_new (model_path, &options);
  project = fw_open_run (job, NULL, &error);
  g_assert_no_error (error);
  plan = fw_project_get_plan (project);
  g_assert_cmpuint (plan->candidates->len, ==, 1);
  g_assert_cmpstr (((FwCandidate *) g_ptr_array_index (plan->candidates, 0))->pattern, ==, "bias_fast_gelu");
  g_clear_object (&project);
  g_clear_object (&job);
  options.ops = bad;
  job = fw_open_new (model_path, &options);
  g_assert_null (fw_open_run (job, NULL, &error));
  want = g_strdup_printf ("%s:1:45: unknown op class “fancy” (allowed: elementwise, broadcast, opaque)", bad_path);
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_cmpstr (error->message, ==, want);
  install (NULL);
  fw_test_remove_dir (dir);
}

static const char bias_gelu_rule[] =
  "version: 1\nrules:\n  - name: bias_fast_gelu\n    pattern: [Add, \"com.example:FastGelu\", \"com.example:ScaledAdd\"]\n"
  "    priority: 50\n";

static const char *
named_pattern (FwRuleSet *rules)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwModel) model = custom_model ();
  g_autoptr(FwPlan) plan = NULL;
  FwPlanOptions options;

  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  return g_intern_string (only_candidate (plan)->pattern);
}

/* A rule names a custom op by DOMAIN:TYPE whether it was read before any registry (a literal name) or with
 * another registry than the model's nodes got (rows of the same name). */
static void
test_rules_by_name (void)
{
  g_autoptr(GError) error = NULL;
  FwRuleSet *before = fw_rule_set_new ();
  FwRuleSet *other = fw_rule_set_new ();

  install (NULL);
  g_assert_true (fw_rule_set_load_data (before, "rules.yaml", bias_gelu_rule, strlen (bias_gelu_rule), &error));
  g_assert_no_error (error);
  install (registry);
  g_assert_true (fw_rule_set_load_data (other, "rules.yaml", bias_gelu_rule, strlen (bias_gelu_rule), &error));
  g_assert_no_error (error);
  install (registry);
  g_assert_cmpstr (named_pattern (before), ==, "bias_fast_gelu");
  g_assert_cmpstr (named_pattern (other), ==, "bias_fast_gelu");
  fw_rule_set_free (before);
  fw_rule_set_free (other);
  install (NULL);
}

/* The shape and dtype rules an opaque entry can declare: its output from an attribute, in a fixed dtype;
 * a node without the attribute is an error naming the entry. */
static void
test_shape_rules (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  g_autoptr(FwModel) lacking = fw_test_model_new (17);
  FwDim d[1] = { FW_DIM_STATIC (8) };
  const char *in[1] = { "x" }, *out[1] = { "y" };
  const gint64 shape[3] = { 2, 3, 4 };
  g_autoptr(GError) error = NULL;
  FwNode *node;

  install ("ops:\n  - {domain: com.example, type: Decode, class: opaque, inputs: 1, shape: {attribute: out_shape},\n"
           "     dtype: int64, cost: none}\n");
  for (guint m = 0; m < 2; m++)
    {
      FwGraph *g = fw_model_get_graph (m == 0 ? model : lacking);
      g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, d, NULL));
      node = fw_graph_add_node (g, "Decode", "com.example", "/decode", 1, in, 1, out, NULL);
      if (m == 0)
        fw_node_set_attr_ints (node, "out_shape", 3, shape);
      g_assert_true (fw_graph_add_output (g, "y", NULL));
      g_assert_true (fw_graph_link (g, &error));
      g_assert_no_error (error);
    }
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  {
    g_autofree char *y = fw_test_shape_of (model, "y");
    node = fw_graph_get_node (fw_model_get_graph (model), 0);
    g_assert_cmpstr (y, ==, "[2,3,4]");
    g_assert_cmpint (node->outputs[0]->dtype, ==, FW_DTYPE_INT64);
    g_assert_cmpint (fw_node_get_op_class (node), ==, FW_OP_CLASS_OPAQUE);
  }
  g_assert_false (fw_test_infer (lacking, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "the operator registry (ops.yaml:2:5) takes the output shape from "
                                            "attribute “out_shape”, which the node lacks"));
  install (NULL);
}

/* A node whose input count differs from the entry's is an error naming both. */
static void
test_wrong_arity (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d[1] = { FW_DIM_STATIC (8) };
  const char *in[2] = { "x", "x" }, *out[1] = { "y" };
  g_autoptr(GError) error = NULL;

  install (registry);
  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, d, NULL));
  g_assert_nonnull (fw_graph_add_node (g, "FastGelu", "com.example", "/gelu", 2, in, 1, out, NULL));
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_false (fw_test_infer (model, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "2 input(s), but the operator registry (ops.yaml:3:5) declares 1"));
  install (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/ops/registry/load-good", test_load_good);
  g_test_add_func ("/core/ops/registry/load-bad", test_load_bad);
  g_test_add_func ("/core/ops/registry/load-dir", test_load_dir);
  g_test_add_func ("/core/ops/registry/example", test_example);
  g_test_add_func ("/core/ops/registry/expression", test_expr);
  g_test_add_func ("/core/ops/registry/fused-verified", test_fused_verified);
  g_test_add_func ("/core/ops/registry/host-refuses", test_host_refuses);
  g_test_add_func ("/core/ops/registry/unknown-opaque", test_unknown_opaque);
  g_test_add_func ("/core/ops/registry/wrong-arity", test_wrong_arity);
  g_test_add_func ("/core/ops/registry/shape-rules", test_shape_rules);
  g_test_add_func ("/core/ops/registry/open", test_open);
  g_test_add_func ("/core/ops/registry/rules-by-name", test_rules_by_name);
  return g_test_run ();
}
