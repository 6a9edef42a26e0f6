/* The planner: what it proposes on the small models, what it refuses and why, strategies, limits, rules. */
#include "config.h"

#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-plan.h"
#include "report/fw-model-report.h"
#include "report/fw-plan-report.h"

static FwPlan *
plan_for (FwModel *model, FwProfile *profile, FwRuleSet *rules, FwStrategy strategy)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  FwPlan *plan;

  fw_plan_options_init (&options);
  options.strategy = strategy;
  plan = fw_plan_new (model, profile, rules, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static FwModel *
inferred (FwModel *model)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  return model;
}

/* "MatMul,Add,Div" for a candidate. */
static char *
ops_of (const FwCandidate *c)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (s, "%s%s", i ? "," : "", ((FwNode *) g_ptr_array_index (c->nodes, i))->op_type);
  return g_string_free (s, FALSE);
}

static const FwCandidate *
find_candidate (const FwPlan *plan, const char *ops)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *got = ops_of (c);
      if (strcmp (got, ops) == 0)
        return c;
    }
  return NULL;
}

static guint
count_code (const FwPlan *plan, FwReasonCode code)
{
  guint n = 0;

  for (guint i = 0; i < plan->refusals->len; i++)
    if (((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code == code)
      n++;
  return n;
}

static const FwRefusal *
first_refusal (const FwPlan *plan, FwReasonCode code)
{
  for (guint i = 0; i < plan->refusals->len; i++)
    if (((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code == code)
      return g_ptr_array_index (plan->refusals, i);
  return NULL;
}

static void
dump (const FwPlan *plan)
{
  if (!g_test_verbose ())
    return;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *ops = ops_of (c);
      g_test_message ("candidate %u %s [%s] %s", c->index, c->pattern, ops, fw_candidate_status_name (c->status));
    }
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      g_test_message ("refusal %s %s", fw_reason_code_string (r->code), r->message);
    }
}

static void
test_transformer_balanced (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules, FW_STRATEGY_BALANCED);
  const FwCandidate *ln, *gelu, *scores;

  dump (plan);
  ln = find_candidate (plan, "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add");
  g_assert_nonnull (ln);
  g_assert_cmpstr (ln->kind, ==, "reduce_broadcast");
  g_assert_cmpstr (ln->pattern, ==, "layernorm");
  g_assert_cmpint (fw_candidate_get_resource (ln)->tile_rows, >=, 1);
  g_assert_cmpint (fw_candidate_get_resource (ln)->tile_elements % 64, ==, 0);
  gelu = find_candidate (plan, "MatMul,Add,Div,Erf,Add,Mul,Mul");
  g_assert_nonnull (gelu);
  g_assert_cmpstr (gelu->pattern, ==, "matmul_bias_gelu");
  g_assert_cmpint (fw_candidate_get_cost (gelu)->launches_before, ==, 7);
  g_assert_cmpint (fw_candidate_get_cost (gelu)->launches_after, ==, 1);
  g_assert_cmpfloat (fw_candidate_get_cost (gelu)->bytes_read_after, <, fw_candidate_get_cost (gelu)->bytes_read_before);
  g_assert_cmpfloat (fw_candidate_get_cost (gelu)->saving_s, >, 0);
  g_assert_true (gelu->root != NULL && strcmp (gelu->root->op_type, "MatMul") == 0);
  /* The attention (scores, scale, mask, Softmax, the product with V and the views around it) is one
   * kernel from balanced on (test-attention has the details). */
  scores = NULL;
  for (guint i = 0; i < plan->candidates->len; i++)
    if (strcmp (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->kind, "attention") == 0)
      scores = g_ptr_array_index (plan->candidates, i);
  g_assert_nonnull (scores);
  g_assert_cmpint (fw_candidate_get_cost (scores)->launches_after, ==, 1);
  /* The head split (a reshape that cuts the projections' last axis in two, which their epilogues' tiles
   * cannot follow) is the attention's operands' prologue, computed as it loads them. */
  {
    g_autofree char *ops = ops_of (scores);
    g_assert_nonnull (strstr (ops, "Reshape"));
    g_assert_nonnull (strstr (ops, "Transpose"));
  }
  /* Totals: fewer launches and bytes after. */
  g_assert_cmpuint (plan->after.launches, <, plan->before.launches);
  g_assert_cmpfloat (plan->after.time_s, <, plan->before.time_s);
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

static void
test_transformer_aggressive (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules, FW_STRATEGY_AGGRESSIVE);
  const FwCandidate *scores;

  dump (plan);
  /* The whole attention is one kernel here as under balanced; the scores alone with their Softmax would be
   * an aggressive MatMul epilogue (attention_scores) only where no product with V follows. */
  scores = find_candidate (plan, "MatMul,Div,Add,Softmax");
  g_assert_null (scores);
  for (guint i = 0; i < plan->candidates->len; i++)
    if (strcmp (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->kind, "attention") == 0)
      scores = g_ptr_array_index (plan->candidates, i);
  g_assert_nonnull (scores);
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

/* Every pair of nodes fused by a weaker strategy is fused together by a stronger one. */
static void
assert_refines (const FwPlan *weak, const FwPlan *strong)
{
  for (guint i = 0; i < weak->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (weak->candidates, i);
      guint group = 0;

      if (c->status == FW_CANDIDATE_REFUSED)
        continue;
      for (guint n = 0; n < c->nodes->len; n++)
        {
          FwNode *node = g_ptr_array_index (c->nodes, n);
          guint g = strong->group_of[node->index];
          g_assert_cmpuint (g, !=, 0);
          if (n == 0)
            group = g;
          g_assert_cmpuint (g, ==, group);
        }
    }
}

static void
test_strategies_nest (void)
{
  FwModel *models[3] = { inferred (fw_test_transformer_block (16, 64, 4, FALSE)), inferred (fw_test_conv_block ()),
                         inferred (fw_test_elementwise_chain (12, 64, FALSE)) };
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();

  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autoptr(FwPlan) c = plan_for (models[m], profile, NULL, FW_STRATEGY_CONSERVATIVE);
      g_autoptr(FwPlan) b = plan_for (models[m], profile, NULL, FW_STRATEGY_BALANCED);
      g_autoptr(FwPlan) a = plan_for (models[m], profile, NULL, FW_STRATEGY_AGGRESSIVE);

      g_assert_cmpuint (c->candidates->len, >, 0);
      assert_refines (c, b);
      assert_refines (b, a);
      g_object_unref (models[m]);
    }
}

static void
test_conservative_no_reduce (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, NULL, FW_STRATEGY_CONSERVATIVE);

  g_assert_null (find_candidate (plan, "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add"));
  g_assert_nonnull (find_candidate (plan, "MatMul,Add,Div,Erf,Add,Mul,Mul"));
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        g_assert_cmpint (((FwNode *) g_ptr_array_index (c->nodes, n))->op->op_class, !=, FW_OP_CLASS_REDUCE);
    }
}

static void
test_conv_block (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_conv_block ());
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, rules, FW_STRATEGY_BALANCED);
  const FwCandidate *first, *residual;

  dump (plan);
  first = find_candidate (plan, "Conv,BatchNormalization,Relu");
  g_assert_nonnull (first);
  g_assert_cmpstr (first->pattern, ==, "conv_bn_relu");
  /* The input, the weight and BatchNormalization's four vectors: six tensors read. */
  g_assert_cmpuint (fw_candidate_get_resource (first)->kernel_inputs, ==, 6);
  residual = find_candidate (plan, "Conv,BatchNormalization,Add,Relu");
  g_assert_nonnull (residual);
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

/* A 16 KiB Unified Buffer cannot hold a whole LayerNorm row set: refused with the numbers. */
static void
test_small_ub (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_transformer_block (16, 1024, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = NULL;
  const FwRefusal *r;

  profile->ub_bytes = 16 * 1024;
  plan = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  dump (plan);
  g_assert_null (find_candidate (plan, "ReduceMean,Sub,Pow,ReduceMean,Add,Sqrt,Div,Mul,Add"));
  r = first_refusal (plan, FW_NF_UB);
  g_assert_nonnull (r);
  g_assert_nonnull (strstr (r->message, "KiB"));
  g_assert_nonnull (strstr (r->message, "budget 12.6 KiB"));
}

static void
test_max_inputs (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_conv_block ());
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = NULL;

  profile->max_kernel_inputs = 3;
  plan = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  g_assert_cmpuint (count_code (plan, FW_NF_MAX_INPUTS), >, 0);
  for (guint i = 0; i < plan->candidates->len; i++)
    g_assert_cmpuint (fw_candidate_get_resource (g_ptr_array_index (plan->candidates, i))->kernel_inputs, <=, 3);
}

static void
test_max_size_and_depth (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_elementwise_chain (20, 64, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  g_autoptr(FwPlan) sized = NULL;
  g_autoptr(FwPlan) deep = NULL;

  fw_plan_options_init (&options);
  options.max_fusion_size = 5;
  sized = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_code (sized, FW_NF_MAX_SIZE), >, 0);
  for (guint i = 0; i < sized->candidates->len; i++)
    g_assert_cmpuint (((FwCandidate *) g_ptr_array_index (sized->candidates, i))->nodes->len, <=, 5);

  fw_plan_options_init (&options);
  options.max_depth = 4;
  deep = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_cmpuint (count_code (deep, FW_NF_MAX_DEPTH), >, 0);
  for (guint i = 0; i < deep->candidates->len; i++)
    g_assert_cmpuint (((FwCandidate *) g_ptr_array_index (deep->candidates, i))->depth, <=, 4);
}

/* MatMul → Add, and a Trilu of that Add (data movement no index map follows) feeding a second Add with it:
 * fusing the second Add would make the kernel wait on the Trilu, which waits on the kernel. */
static void
test_cycle (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (64), FW_DIM_STATIC (64) };
  gint64 wd[2] = { 64, 64 };
  g_autofree float *w = g_new0 (float, 64 * 64);
  g_autoptr(FwTensor) wt = fw_tensor_new_float (2, wd, w);
  g_autoptr(FwTensor) bt = fw_tensor_new_float (2, wd, w);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = NULL;
  const char *mm_in[2] = { "a", "w" }, *mm_out[1] = { "m" };
  const char *e1_in[2] = { "m", "b" }, *e1_out[1] = { "e1" };
  const char *t_in[1] = { "e1" }, *t_out[1] = { "t" };
  const char *e2_in[2] = { "e1", "t" }, *e2_out[1] = { "y" };

  fw_graph_add_input (g, "a", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_graph_add_initializer (g, "w", wt, NULL);
  fw_graph_add_initializer (g, "b", bt, NULL);
  fw_graph_add_node (g, "MatMul", "", "/mm", 2, mm_in, 1, mm_out, NULL);
  fw_graph_add_node (g, "Add", "", "/bias", 2, e1_in, 1, e1_out, NULL);
  fw_graph_add_node (g, "Trilu", "", "/t", 1, t_in, 1, t_out, NULL);
  fw_graph_add_node (g, "Add", "", "/sum", 2, e2_in, 1, e2_out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  inferred (model);
  plan = plan_for (model, profile, NULL, FW_STRATEGY_AGGRESSIVE);
  dump (plan);
  g_assert_nonnull (first_refusal (plan, FW_NF_CYCLE));
  g_assert_nonnull (find_candidate (plan, "MatMul,Add"));
}

/* Two chains reading the same tensor: separate under balanced, one horizontal kernel (one load of the
 * shared input) under aggressive. */
static void
test_horizontal (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (32), FW_DIM_STATIC (256) };
  gint64 cd[1] = { 256 };
  g_autofree float *cv = g_new0 (float, 256);
  g_autoptr(FwTensor) ct = fw_tensor_new_float (1, cd, cv);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) balanced = NULL;
  g_autoptr(FwPlan) aggressive = NULL;
  const char *r_in[1] = { "x" }, *r_out[1] = { "r" };
  const char *a_in[1] = { "r" }, *a_out[1] = { "a" };
  const char *b_in[1] = { "r" }, *b_out[1] = { "b" };
  const char *y1_in[2] = { "a", "c" }, *y1_out[1] = { "y1" };
  const char *y2_in[2] = { "b", "c" }, *y2_out[1] = { "y2" };
  const FwCandidate *h = NULL;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL);
  fw_graph_add_initializer (g, "c", ct, NULL);
  fw_graph_add_node (g, "Relu", "", "/relu", 1, r_in, 1, r_out, NULL);
  fw_graph_add_node (g, "Exp", "", "/left/Exp", 1, a_in, 1, a_out, NULL);
  fw_graph_add_node (g, "Neg", "", "/right/Neg", 1, b_in, 1, b_out, NULL);
  fw_graph_add_node (g, "Add", "", "/left/Add", 2, y1_in, 1, y1_out, NULL);
  fw_graph_add_node (g, "Mul", "", "/right/Mul", 2, y2_in, 1, y2_out, NULL);
  fw_graph_add_output (g, "y1", NULL);
  fw_graph_add_output (g, "y2", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  inferred (model);
  balanced = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  aggressive = plan_for (model, profile, NULL, FW_STRATEGY_AGGRESSIVE);
  dump (aggressive);
  g_assert_nonnull (find_candidate (balanced, "Exp,Add"));
  g_assert_nonnull (find_candidate (balanced, "Neg,Mul"));
  for (guint i = 0; i < aggressive->candidates->len; i++)
    if (strcmp (((FwCandidate *) g_ptr_array_index (aggressive->candidates, i))->kind, "horizontal") == 0)
      h = g_ptr_array_index (aggressive->candidates, i);
  g_assert_nonnull (h);
  g_assert_cmpuint (h->nodes->len, ==, 4);
  /* The shared input is read once: less than the two kernels read together. */
  g_assert_cmpfloat (fw_candidate_get_cost (h)->bytes_read_after, <, fw_candidate_get_cost (h)->bytes_read_before);
  assert_refines (balanced, aggressive);
}

/* Add → Relu → Reshape → Sigmoid → Mul: the reshape keeps the elements' order, a free view: from the
 * balanced strategy on it is index arithmetic inside one kernel (an index map that is the space's own
 * layout), and the kernel reads x alone. */
static void
test_through_view (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[3] = { FW_DIM_STATIC (4), FW_DIM_STATIC (16), FW_DIM_STATIC (64) };
  gint64 sd[1] = { 2 }, shape[2] = { 64, 64 };
  float one = 1.0f;
  g_autoptr(FwTensor) st = fw_tensor_new_int64 (1, sd, shape);
  g_autoptr(FwTensor) ct = fw_tensor_new_float (0, NULL, &one);
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) balanced = NULL;
  g_autoptr(FwPlan) aggressive = NULL;
  const char *a_in[2] = { "x", "c" }, *a_out[1] = { "a" };
  const char *r_in[1] = { "a" }, *r_out[1] = { "r" };
  const char *v_in[2] = { "r", "shape" }, *v_out[1] = { "v" };
  const char *s_in[1] = { "v" }, *s_out[1] = { "s" };
  const char *m_in[2] = { "s", "c" }, *m_out[1] = { "y" };
  const FwCandidate *all;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 3, dims, NULL);
  fw_graph_add_initializer (g, "shape", st, NULL);
  fw_graph_add_initializer (g, "c", ct, NULL);
  fw_graph_add_node (g, "Add", "", "/add", 2, a_in, 1, a_out, NULL);
  fw_graph_add_node (g, "Relu", "", "/relu", 1, r_in, 1, r_out, NULL);
  fw_graph_add_node (g, "Reshape", "", "/reshape", 2, v_in, 1, v_out, NULL);
  fw_graph_add_node (g, "Sigmoid", "", "/sigmoid", 1, s_in, 1, s_out, NULL);
  fw_graph_add_node (g, "Mul", "", "/mul", 2, m_in, 1, m_out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  inferred (model);
  balanced = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  aggressive = plan_for (model, profile, NULL, FW_STRATEGY_AGGRESSIVE);
  dump (aggressive);
  all = find_candidate (balanced, "Add,Relu,Reshape,Sigmoid,Mul");
  g_assert_nonnull (all);
  g_assert_cmpstr (all->kind, ==, "elementwise_chain");
  g_assert_true (fw_kernel_spec_has_index_maps (all->spec, FALSE));
  g_assert_false (fw_kernel_spec_has_index_maps (all->spec, TRUE));
  /* The shape tensor is compiled in: the kernel reads x alone. */
  g_assert_cmpuint (fw_candidate_get_resource (all)->kernel_inputs, ==, 1);
  g_assert_nonnull (find_candidate (aggressive, "Add,Relu,Reshape,Sigmoid,Mul"));
  assert_refines (balanced, aggressive);
}

static void
test_dynamic_dims (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_elementwise_chain (6, 64, TRUE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  g_autoptr(FwModel) bound = fw_test_elementwise_chain (6, 64, TRUE);
  const char *binds[] = { "batch=4", NULL };
  g_autoptr(FwPlan) plan2 = NULL;

  g_assert_cmpuint (plan->candidates->len, ==, 0);
  g_assert_cmpuint (count_code (plan, FW_NF_DYNAMIC), >, 0);
  g_assert_true (fw_test_infer (bound, binds, NULL, NULL));
  plan2 = plan_for (bound, profile, NULL, FW_STRATEGY_BALANCED);
  g_assert_nonnull (find_candidate (plan2, "Add,Relu,Mul,Sigmoid,Sub,Tanh"));
}

static void
test_forbid_rule (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  static const char text[] =
    "version: 1\n"
    "rules:\n"
    "  - name: no_erf\n"
    "    action: forbid\n"
    "    pattern: [Erf]\n";
  const FwCandidate *gelu;
  const FwRefusal *r;

  g_assert_true (fw_rule_set_load_data (rules, "team.yaml", text, sizeof text - 1, &error));
  g_assert_no_error (error);
  plan = plan_for (model, profile, rules, FW_STRATEGY_BALANCED);
  gelu = find_candidate (plan, "MatMul,Add,Div,Erf,Add,Mul,Mul");
  g_assert_nonnull (gelu);
  g_assert_cmpint (gelu->status, ==, FW_CANDIDATE_REFUSED);
  r = first_refusal (plan, FW_NF_FORBIDDEN);
  g_assert_nonnull (r);
  g_assert_nonnull (strstr (r->message, "no_erf"));
  g_assert_nonnull (strstr (r->message, "team.yaml"));
  g_clear_pointer (&plan, fw_plan_free);
  fw_rule_set_free (rules);
}

static void
test_env (void)
{
  FwPlanOptions options;
  g_autoptr(GError) error = NULL;

  fw_plan_options_init (&options);
  g_setenv ("AUTOFUSION_STRATEGY", "aggressive", TRUE);
  g_setenv ("AUTOFUSION_MAX_DEPTH", "7", TRUE);
  g_setenv ("AUTOFUSION_ENABLE", "0", TRUE);
  g_setenv ("AUTOFUSION_LOG_LEVEL", "INFO", TRUE);
  g_assert_true (fw_plan_options_from_env (&options, &error));
  g_assert_cmpint (options.strategy, ==, FW_STRATEGY_AGGRESSIVE);
  g_assert_cmpuint (options.max_depth, ==, 7);
  g_assert_false (options.enabled);
  g_setenv ("AUTOFUSION_STRATEGY", "greedy", TRUE);
  g_assert_false (fw_plan_options_from_env (&options, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "AUTOFUSION_STRATEGY"));
  g_unsetenv ("AUTOFUSION_STRATEGY");
  g_unsetenv ("AUTOFUSION_MAX_DEPTH");
  g_unsetenv ("AUTOFUSION_ENABLE");
  g_unsetenv ("AUTOFUSION_LOG_LEVEL");
}

static void
test_disabled (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_conv_block ());
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;
  g_autoptr(FwPlan) plan = NULL;

  fw_plan_options_init (&options);
  options.enabled = FALSE;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_cmpuint (plan->candidates->len, ==, 0);
  g_assert_cmpuint (plan->after.launches, ==, plan->before.launches);
}

static void
test_report_deterministic (void)
{
  g_autoptr(FwModel) a = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwModel) b = inferred (fw_test_transformer_block (16, 64, 4, FALSE));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  g_autoptr(FwPlan) pa = plan_for (a, profile, rules, FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) pb = plan_for (b, profile, rules, FW_STRATEGY_BALANCED);
  g_autofree char *ja = fw_test_plan_report (a, pa, FW_REPORT_JSON);
  g_autofree char *jb = fw_test_plan_report (b, pb, FW_REPORT_JSON);
  g_autofree char *md = fw_test_plan_report (a, pa, FW_REPORT_MARKDOWN);

  g_assert_cmpstr (ja, ==, jb);
  g_assert_nonnull (strstr (ja, "\"pattern\" : \"layernorm\""));
  g_assert_nonnull (strstr (md, "## Fusion plan"));
  g_assert_nonnull (strstr (md, "| layernorm |"));
  /* The attention fuses from balanced on (test-attention); refusals are still listed with their codes. */
  g_assert_nonnull (strstr (md, "| attention |"));
  g_assert_nonnull (strstr (md, "FW-NF-0"));
  g_clear_pointer (&pa, fw_plan_free);
  g_clear_pointer (&pb, fw_plan_free);
  fw_rule_set_free (rules);
}

static void
test_long_graph (void)
{
  g_autoptr(FwModel) model = inferred (fw_test_long_chain (20000));
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwPlan) plan = plan_for (model, profile, NULL, FW_STRATEGY_BALANCED);
  guint covered = 0;

  /* A 20,000-node Add/Relu chain splits into groups of at most 64, covering every node. */
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_assert_cmpuint (c->nodes->len, <=, 64);
      covered += c->nodes->len;
    }
  g_assert_cmpuint (covered, ==, 20000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_test_add_func ("/core/plan/transformer/balanced", test_transformer_balanced);
  g_test_add_func ("/core/plan/transformer/aggressive", test_transformer_aggressive);
  g_test_add_func ("/core/plan/strategies-nest", test_strategies_nest);
  g_test_add_func ("/core/plan/conservative-no-reduce", test_conservative_no_reduce);
  g_test_add_func ("/core/plan/conv-block", test_conv_block);
  g_test_add_func ("/core/plan/refuse/ub", test_small_ub);
  g_test_add_func ("/core/plan/refuse/max-inputs", test_max_inputs);
  g_test_add_func ("/core/plan/refuse/max-size-and-depth", test_max_size_and_depth);
  g_test_add_func ("/core/plan/refuse/cycle", test_cycle);
  g_test_add_func ("/core/plan/refuse/dynamic", test_dynamic_dims);
  g_test_add_func ("/core/plan/aggressive/horizontal", test_horizontal);
  g_test_add_func ("/core/plan/aggressive/through-view", test_through_view);
  g_test_add_func ("/core/plan/refuse/forbid-rule", test_forbid_rule);
  g_test_add_func ("/core/plan/env", test_env);
  g_test_add_func ("/core/plan/disabled", test_disabled);
  g_test_add_func ("/core/plan/report-deterministic", test_report_deterministic);
  g_test_add_func ("/core/plan/long-graph", test_long_graph);
  return g_test_run ();
}
