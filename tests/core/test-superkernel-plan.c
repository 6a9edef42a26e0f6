/* SuperKernel scopes (core/plan/fw-superkernel-plan.c): runs of the plan's kernels in execution order, broken
 * where a kernel cannot join (each FW-SK code), and the barrier decided between two kernels. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "codegen/ascend/fw-ascend.h"
#include "plan/fw-schedule.h"
#include "plan/fw-superkernel-plan.h"
#include "report/fw-superkernel-report.h"

#define add fw_test_add_node

static void
add_weight (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  gint64 n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  values = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    values[i] = (float) ((i % 7) - 3) * 0.125f;
  t = fw_tensor_new_float (rank, dims, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

typedef struct
{
  FwModel   *model;
  FwProfile *profile;
  FwPlan    *plan;
} Planned;

static void
plan_model_arranged (Planned *p, FwModel *model, guint max_fusion_size, const char * const *binds,
                     FwUbArrangeFunc arrange)
{
  g_autoptr(GError) error = NULL;
  FwPlanOptions options;

  p->model = model;
  p->profile = fw_test_profile_910b ();
  g_assert_true (fw_test_infer (model, binds, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.max_fusion_size = max_fusion_size;
  options.arrange = arrange;
  p->plan = fw_plan_new (model, p->profile, NULL, &options, &error);
  g_assert_no_error (error);
  fw_plan_options_clear (&options);
}

static void
plan_model (Planned *p, FwModel *model, guint max_fusion_size, const char * const *binds)
{
  plan_model_arranged (p, model, max_fusion_size, binds, NULL);
}

static void
planned_clear (Planned *p)
{
  fw_plan_free (p->plan);
  fw_profile_unref (p->profile);
  g_object_unref (p->model);
}

static FwSkPlan *
build (Planned *p, const FwSkOptions *options)
{
  g_autoptr(GError) error = NULL;
  FwSkPlan *sk = fw_sk_plan_build (p->plan, options, &error);

  g_assert_no_error (error);
  g_assert_nonnull (sk);
  return sk;
}

static const FwSkKernel *
kernel_named (const FwSkPlan *sk, const char *node)
{
  for (guint s = 0; s < sk->scopes->len; s++)
    {
      const FwSkScope *scope = g_ptr_array_index (sk->scopes, s);

      for (guint i = 0; i < scope->kernels->len; i++)
        {
          const FwSkKernel *k = &g_array_index (scope->kernels, FwSkKernel, i);
          if (strcmp (k->node->name, node) == 0)
            return k;
        }
    }
  return NULL;
}

/* Every running kernel of an encoder layer joins, scopes are runs of the schedule, and the totals follow:
 * N kernels in a scope save N−1 launches, and each boundary is a barrier kept or removed. */
static void
test_auto (void)
{
  Planned p;
  g_autoptr(FwSkPlan) sk = NULL;
  g_autoptr(GArray) schedule = NULL;
  guint in_scopes = 0, saved = 0;
  gdouble saving = 0;

  plan_model (&p, fw_test_transformer_block (16, 64, 4, FALSE), 0, NULL);
  sk = build (&p, NULL);
  schedule = fw_schedule_build (p.plan, NULL, 0, NULL);
  g_assert_nonnull (schedule);
  g_assert_cmpuint (sk->n_kernels, ==, p.plan->after.launches);
  g_assert_cmpuint (sk->refusals->len, ==, 0);
  g_assert_cmpuint (sk->scopes->len, ==, 1);
  for (guint s = 0; s < sk->scopes->len; s++)
    {
      const FwSkScope *scope = g_ptr_array_index (sk->scopes, s);
      guint last = 0;

      g_assert_cmpuint (scope->kernels->len, >=, 2);
      g_assert_cmpuint (scope->syncs_kept + scope->syncs_removed, ==, scope->kernels->len - 1);
      g_assert_cmpint (scope->end, ==, FW_SK_END);
      g_assert_cmpstr (scope->end_message, ==, "the model ended");
      g_assert_cmpfloat_with_epsilon (scope->saving_s,
                                      (scope->kernels->len - 1) * p.profile->launch_overhead_s +
                                      scope->syncs_removed * p.profile->sync_overhead_s, 1e-12);
      for (guint i = 0; i < scope->kernels->len; i++)
        {
          const FwSkKernel *k = &g_array_index (scope->kernels, FwSkKernel, i);

          g_assert_cmpuint (k->step, >=, last);
          last = k->step;
          g_assert_cmpuint (k->cores, <=, scope->cores);
          if (i == 0)
            g_assert_cmpint (k->sync, ==, FW_SK_SYNC_NONE);
          if (k->sync != FW_SK_SYNC_NONE)
            g_assert_nonnull (k->sync_value);
        }
      in_scopes += scope->kernels->len;
      saved += scope->kernels->len - 1;
      saving += scope->saving_s;
    }
  g_assert_cmpuint (in_scopes, ==, sk->n_kernels);
  g_assert_cmpuint (sk->launches_after, ==, p.plan->after.launches - saved);
  g_assert_cmpfloat_with_epsilon (sk->saving_s, saving, 1e-12);

  /* Off: the plan as it is. */
  {
    FwSkOptions off;
    g_autoptr(FwSkPlan) none = NULL;

    fw_sk_options_init (&off);
    off.mode = FW_SK_OFF;
    none = build (&p, &off);
    g_assert_cmpuint (none->scopes->len, ==, 0);
    g_assert_cmpuint (none->launches_after, ==, p.plan->after.launches);
  }
  planned_clear (&p);
}

/* x → Add → Relu → Mul → Tanh → Sigmoid → ReduceSum(last axis) → MatMul, fused two ops at a time: the
 * second elementwise group reads the first's output block for block (no barrier), the reduction's group
 * tiles rows differently (a vector barrier), the MatMul runs on the cube cores (a barrier over all). */
static FwModel *
narrowing_model (void)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[2] = { FW_DIM_STATIC (256), FW_DIM_STATIC (1024) };
  gint64 c_dims[1] = { 1 }, w_dims[2] = { 1, 64 };
  FwNode *n;
  gint64 axes[1] = { -1 };

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL));
  add_weight (g, "c", 1, c_dims);
  add_weight (g, "w", 2, w_dims);
  add (g, "Add", "/a/Add", "x", "c", "t0");
  add (g, "Relu", "/a/Relu", "t0", NULL, "t1");
  add (g, "Mul", "/b/Mul", "t1", "c", "t2");
  add (g, "Tanh", "/b/Tanh", "t2", NULL, "t3");
  add (g, "Sigmoid", "/c/Sigmoid", "t3", NULL, "t4");
  n = add (g, "ReduceSum", "/c/ReduceSum", "t4", NULL, "s");
  fw_node_set_attr_ints (n, "axes", 1, axes);
  add (g, "MatMul", "/d/MatMul", "s", "w", "y");
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  return model;
}

static void
test_narrowing (void)
{
  Planned p;
  g_autoptr(FwSkPlan) sk = NULL;
  const FwSkKernel *k;

  plan_model (&p, narrowing_model (), 2, NULL);
  sk = build (&p, NULL);
  g_assert_cmpuint (sk->scopes->len, ==, 1);
  k = kernel_named (sk, "/a/Add");
  g_assert_nonnull (k);
  g_assert_cmpint (k->type, ==, FW_SK_AIV);
  g_assert_cmpuint (k->candidate, !=, G_MAXUINT);
  k = kernel_named (sk, "/b/Mul");
  g_assert_nonnull (k);
  g_assert_cmpint (k->sync, ==, FW_SK_SYNC_NONE);
  k = kernel_named (sk, "/c/Sigmoid");   /* with the ReduceSum */
  g_assert_nonnull (k);
  g_assert_cmpint (k->sync, ==, FW_SK_SYNC_VECTOR);
  g_assert_cmpstr (k->sync_value->name, ==, "t3");
  k = kernel_named (sk, "/d/MatMul");
  g_assert_nonnull (k);
  g_assert_cmpint (k->type, ==, FW_SK_AIC);
  g_assert_cmpint (k->sync, ==, FW_SK_SYNC_ALL);
  g_assert_cmpuint (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->syncs_removed, ==, 1);
  planned_clear (&p);
}

/* Where a kernel cannot join, the scope ends before it with its code, and the kernel is listed. */
static void
test_breaks (void)
{
  Planned p;

  plan_model (&p, narrowing_model (), 2, NULL);
  /* The user's "no SuperKernel" mark, by name scope (a boundary: "/b" does not hold "/bb"). */
  {
    FwSkOptions o;
    const char *excluded[] = { "/b", NULL };
    g_autoptr(FwSkPlan) sk = NULL;
    const FwSkRefusal *r;
    const FwSkScope *first;

    fw_sk_options_init (&o);
    o.excluded = (char **) excluded;
    sk = build (&p, &o);
    g_assert_cmpuint (sk->refusals->len, ==, 1);
    r = g_ptr_array_index (sk->refusals, 0);
    g_assert_cmpint (r->code, ==, FW_SK_EXCLUDED);
    g_assert_cmpstr (fw_sk_code_name (r->code), ==, "FW-SK-005");
    g_assert_cmpstr (fw_sk_code_cann_name (r->code), ==, "NOT_IN_SCOPE");
    g_assert_nonnull (strstr (r->message, "is marked “no SuperKernel” (/b)"));
    /* Add+Relu alone before it is no scope; Sigmoid+ReduceSum and MatMul after it are one. */
    g_assert_cmpuint (sk->scopes->len, ==, 1);
    first = g_ptr_array_index (sk->scopes, 0);
    g_assert_cmpuint (first->kernels->len, ==, 2);
    g_assert_cmpstr (g_array_index (first->kernels, FwSkKernel, 0).node->name, ==, "/c/Sigmoid");
  }
  /* The size limit. */
  {
    FwSkOptions o;
    g_autoptr(FwSkPlan) sk = NULL;
    const FwSkScope *first;

    fw_sk_options_init (&o);
    o.max_kernels = 2;
    sk = build (&p, &o);
    g_assert_cmpuint (sk->scopes->len, ==, 2);
    first = g_ptr_array_index (sk->scopes, 0);
    g_assert_cmpint (first->end, ==, FW_SK_SIZE);
    g_assert_cmpstr (first->end_node->name, ==, "/c/Sigmoid");
    g_assert_cmpstr (first->end_message, ==, "the scope reached its limit of 2 kernels");
    g_assert_cmpstr (first->name, ==, "sk_000");
    g_assert_cmpstr (((FwSkScope *) g_ptr_array_index (sk->scopes, 1))->name, ==, "sk_001");
  }
  /* More cores than the scope may launch on: the elementwise groups take all 48 vector cores. */
  {
    FwSkOptions o;
    g_autoptr(FwSkPlan) sk = NULL;

    fw_sk_options_init (&o);
    o.max_cores = 24;
    sk = build (&p, &o);
    g_assert_cmpuint (sk->refusals->len, >=, 2);
    g_assert_cmpint (((FwSkRefusal *) g_ptr_array_index (sk->refusals, 0))->code, ==, FW_SK_CORES);
    g_assert_nonnull (strstr (((FwSkRefusal *) g_ptr_array_index (sk->refusals, 0))->message,
                              "launches 48 blocks, more than the 24 cores a scope may use"));
  }
  planned_clear (&p);

  /* Control flow or an unknown op cannot join. */
  {
    FwModel *model = fw_test_model_new (13);
    FwGraph *g = fw_model_get_graph (model);
    FwDim dims[1] = { FW_DIM_STATIC (4096) };
    g_autoptr(FwSkPlan) sk = NULL;
    const FwSkRefusal *r;

    g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
    add (g, "Relu", "r0", "x", NULL, "t0");
    add (g, "Exp", "r1", "t0", NULL, "t1");
    add (g, "MysteryOp", "odd", "t1", NULL, "t2");
    add (g, "Relu", "r2", "t2", NULL, "t3");
    add (g, "Exp", "r3", "t3", NULL, "y");
    fw_graph_add_output (g, "y", NULL);
    g_assert_true (fw_graph_link (g, NULL));
    plan_model (&p, model, 1, NULL);
    sk = build (&p, NULL);
    /* What follows it has no static shape either (an unknown op's outputs are not inferred). */
    g_assert_cmpuint (sk->refusals->len, ==, 3);
    r = g_ptr_array_index (sk->refusals, 0);
    g_assert_cmpint (r->code, ==, FW_SK_OPAQUE);
    g_assert_cmpstr (r->node->name, ==, "odd");
    g_assert_cmpint (((FwSkRefusal *) g_ptr_array_index (sk->refusals, 1))->code, ==, FW_SK_DYNAMIC);
    g_assert_cmpuint (sk->scopes->len, ==, 1);
    g_assert_cmpint (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->end, ==, FW_SK_OPAQUE);
    g_assert_cmpstr (((FwSkScope *) g_ptr_array_index (sk->scopes, 0))->end_node->name, ==, "odd");
    planned_clear (&p);
  }

  /* A shape known only at run time. */
  {
    g_autoptr(FwSkPlan) sk = NULL;

    plan_model (&p, fw_test_elementwise_chain (4, 64, TRUE), 1, NULL);
    sk = build (&p, NULL);
    g_assert_cmpuint (sk->scopes->len, ==, 0);
    g_assert_cmpuint (sk->refusals->len, ==, sk->n_kernels);
    g_assert_cmpint (((FwSkRefusal *) g_ptr_array_index (sk->refusals, 0))->code, ==, FW_SK_DYNAMIC);
    planned_clear (&p);
  }
}

/* The user's name scopes: only the kernels under them; a scope interrupted by a kernel outside it that
 * reads what it wrote (and continued after) would deadlock, so it is split there and named again. */
static void
test_user_scopes (void)
{
  Planned p;
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (4096) };
  const char *scopes[] = { "/enc", NULL };
  FwSkOptions o;
  g_autoptr(FwSkPlan) sk = NULL;
  const FwSkScope *a, *b;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, dims, NULL));
  add (g, "Relu", "/enc/r0", "x", NULL, "t0");
  add (g, "Exp", "/enc/r1", "t0", NULL, "t1");
  add (g, "Neg", "/other/n", "t1", NULL, "t2");
  add (g, "Relu", "/enc/r2", "t2", NULL, "t3");
  add (g, "Exp", "/enc/r3", "t3", NULL, "t4");
  add (g, "Relu", "/encoder/r4", "t4", NULL, "y");
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  plan_model (&p, model, 1, NULL);
  fw_sk_options_init (&o);
  o.scopes = (char **) scopes;
  sk = build (&p, &o);
  g_assert_cmpuint (sk->scopes->len, ==, 2);
  a = g_ptr_array_index (sk->scopes, 0);
  b = g_ptr_array_index (sk->scopes, 1);
  g_assert_cmpstr (a->name, ==, "/enc");
  g_assert_cmpstr (b->name, ==, "/enc#2");
  g_assert_cmpint (a->end, ==, FW_SK_DEADLOCK);
  g_assert_cmpstr (a->end_node->name, ==, "/other/n");
  g_assert_nonnull (strstr (a->end_message, "would have to run inside the scope"));
  /* "/encoder/r4" is not under "/enc": the second part simply ends. */
  g_assert_cmpint (b->end, ==, FW_SK_END);
  g_assert_cmpstr (b->end_message, ==, "the name scope ended");
  g_assert_cmpuint (a->kernels->len + b->kernels->len, ==, 4);
  planned_clear (&p);
}

/* A Conv group in the epilogue form is two launches on Ascend (the vendor's convolution, then our epilogue
 * reading its result back): two sub-kernels in a scope, a barrier over all cores between them, and the
 * scope's kernels are the plan's launches. */
static void
test_epilogue_two_launches (void)
{
  Planned p;
  g_autoptr(FwSkPlan) sk = NULL;
  guint epilogues = 0;

  plan_model_arranged (&p, fw_test_conv_block (), 0, NULL, fw_ascend_arrange);
  sk = build (&p, NULL);
  g_assert_cmpuint (sk->n_kernels, ==, p.plan->after.launches);
  for (guint s = 0; s < sk->scopes->len; s++)
    {
      const FwSkScope *scope = g_ptr_array_index (sk->scopes, s);

      for (guint i = 1; i < scope->kernels->len; i++)
        {
          const FwSkKernel *root = &g_array_index (scope->kernels, FwSkKernel, i - 1);
          const FwSkKernel *k = &g_array_index (scope->kernels, FwSkKernel, i);

          if (k->candidate == G_MAXUINT || root->candidate != G_MAXUINT || root->type != FW_SK_AIC ||
              k->sync_value != root->node->outputs[0])
            continue;
          g_assert_cmpint (k->type, ==, FW_SK_AIV);
          g_assert_cmpint (k->sync, ==, FW_SK_SYNC_ALL);
          g_assert_cmpstr (root->node->op_type, ==, "Conv");
          epilogues++;
        }
    }
  g_assert_cmpuint (epilogues, >, 0);
  planned_clear (&p);
}

/* The report member carries every scope with its kernels, barriers and reason. */
static void
test_report (void)
{
  Planned p;
  g_autoptr(FwSkPlan) sk = NULL;
  g_autoptr(JsonNode) report = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GString) md = g_string_new (NULL);
  JsonObject *member, *scope, *k;

  json_node_take_object (report, json_object_new ());
  plan_model (&p, narrowing_model (), 2, NULL);
  sk = build (&p, NULL);
  fw_superkernel_report_add (report, sk);
  member = json_object_get_object_member (json_node_get_object (report), "superkernel");
  g_assert_cmpstr (json_object_get_string_member (member, "mode"), ==, "auto");
  g_assert_cmpint (json_object_get_int_member (member, "kernels"), ==, sk->n_kernels);
  g_assert_cmpint (json_object_get_int_member (member, "launches_after"), ==, sk->launches_after);
  scope = json_array_get_object_element (json_object_get_array_member (member, "scopes"), 0);
  g_assert_cmpint (json_object_get_int_member (scope, "syncs_removed"), ==, 1);
  g_assert_true (json_object_has_member (scope, "estimated_saving_us"));
  g_assert_true (json_node_is_null (json_object_get_member (
    json_object_get_object_member (scope, "break_reason"), "code")));
  k = json_array_get_object_element (json_object_get_array_member (scope, "kernels"), 0);
  g_assert_cmpstr (json_object_get_string_member (k, "type"), ==, "aiv");
  fw_superkernel_report_markdown (md, json_node_get_object (report));
  g_assert_nonnull (strstr (md->str, "## SuperKernel scopes"));
  g_assert_nonnull (strstr (md->str, "| sk_000 |"));
  planned_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/superkernel/auto", test_auto);
  g_test_add_func ("/core/plan/superkernel/narrowing", test_narrowing);
  g_test_add_func ("/core/plan/superkernel/breaks", test_breaks);
  g_test_add_func ("/core/plan/superkernel/user-scopes", test_user_scopes);
  g_test_add_func ("/core/plan/superkernel/report", test_report);
  g_test_add_func ("/core/plan/superkernel/epilogue-two-launches", test_epilogue_two_launches);
  return g_test_run ();
}
