/* Control-flow bodies as regions of their own (issue 14): the If and Loop bodies of a Silero-VAD-like model
 * (tests/data/control-flow/cflow_vad.onnx, written by tests/real/make-control-flow-model.py) are planned
 * with their static shapes, their candidates carry the body's path, run inside the bodies on the fused
 * executor, verify against the reference, export into the body subgraphs and survive decisions, whitelists
 * and sessions. */
#include "config.h"

#include <string.h>

#include "exec/fw-fused.h"
#include "export/fw-fused-model.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "onnx/fw-onnx.h"
#include "onnx/fw-onnx-rewrite.h"
#include "plan/fw-decisions.h"
#include "session/fw-session.h"

static FwModel *
load_vad (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "control-flow", "cflow_vad.onnx", NULL);
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_onnx_load (path, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

static FwPlan *
plan_vad (FwModel *model)
{
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(GError) error = NULL;
  FwPlan *plan = fw_plan_new (model, profile, NULL, NULL, &error);

  g_assert_no_error (error);
  return plan;
}

static guint
count_in (const FwPlan *plan, const char *body)
{
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      n += fw_candidate_is_fused (c) && g_strcmp0 (c->body, body) == 0;
    }
  return n;
}

static const FwCandidate *
first_in (const FwPlan *plan, const char *body)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (fw_candidate_is_fused (c) && g_strcmp0 (c->body, body) == 0)
        return c;
    }
  return NULL;
}

/* Every body is a region with its path (nested: the Loop's If), and each holds fused candidates whose nodes
 * are its own. */
static void
test_regions (void)
{
  g_autoptr(FwModel) model = load_vad ();
  g_autoptr(FwPlan) plan = plan_vad (model);
  static const char *const bodies[] = { "/Loop_0/body", "/Loop_0/body/If_1/then_branch",
                                        "/Loop_0/body/If_1/else_branch", "/If_0/then_branch",
                                        "/If_0/else_branch" };

  g_assert_cmpuint (plan->regions->len, ==, 1 + G_N_ELEMENTS (bodies));
  g_assert_null (((FwPlanRegion *) g_ptr_array_index (plan->regions, 0))->path);
  for (guint b = 0; b < G_N_ELEMENTS (bodies); b++)
    {
      const FwCandidate *c = first_in (plan, bodies[b]);
      const FwPlanRegion *region;
      FwGraph *graph;

      g_assert_cmpuint (count_in (plan, bodies[b]), >, 0);
      g_assert_nonnull (c);
      graph = ((FwNode *) g_ptr_array_index (c->nodes, 0))->graph;
      g_assert_nonnull (graph->parent);
      region = fw_plan_get_region (plan, graph);
      g_assert_nonnull (region);
      g_assert_cmpstr (region->path, ==, bodies[b]);
      g_assert_true (region->owner == graph->parent_node);
      for (guint n = 0; n < c->nodes->len; n++)
        {
          FwNode *node = g_ptr_array_index (c->nodes, n);
          g_assert_true (node->graph == graph);
          g_assert_cmpuint (fw_plan_group_of (plan, node), ==, c->index + 1);
        }
    }
  /* The body's nodes count in the totals; the main graph's node counts leave them out. */
  g_assert_cmpuint (plan->after.launches, <, plan->before.launches);
  {
    guint before, after;
    fw_plan_get_node_counts (plan, &before, &after);
    g_assert_cmpuint (before, ==, fw_graph_get_n_nodes (fw_model_get_graph (model)));
  }
}

/* The carried state's body input has no shape in the file: it takes the initial value's, which the body
 * keeps, so the body is static; the scan output has the constant trip count as its first dim. */
static void
test_static_carried (void)
{
  g_autoptr(FwModel) model = load_vad ();
  FwGraph *graph = fw_model_get_graph (model);
  FwValue *states = fw_graph_lookup_value (graph, "states");
  FwNode *loop = states->producer;
  FwGraph *body = fw_node_get_attr (loop, "body")->g;
  FwValue *h_in = fw_graph_get_input (body, 2);

  g_assert_true (fw_value_is_static (h_in));
  g_assert_cmpint (fw_value_get_n_elements (h_in), ==, 32);
  g_assert_true (fw_value_is_static (states));
  g_assert_cmpint (states->dims[0].value, ==, 6);
  for (guint i = 0; i < body->values->len; i++)
    {
      FwValue *v = g_ptr_array_index (body->values, i);
      if (v->producer != NULL)
        g_assert_true (fw_value_is_static (v));
    }
}

/* A carried value that grows each iteration: inference takes the grown dim back (it is unknown in the
 * body), and the body's chain on it gets the dynamic-shape refusal, not a candidate. */
static void
test_dynamic_body (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model), *body = fw_graph_new (g);
  FwDim d2 = FW_DIM_STATIC (2);
  g_autoptr(FwTensor) trip = fw_tensor_new_int64 (0, NULL, (const gint64[]) { 3 });
  g_autoptr(FwTensor) one = fw_tensor_new_float (1, (const gint64[]) { 1 }, (const float[]) { 1 });
  g_autoptr(GError) error = NULL;
  g_autoptr(FwPlan) plan = NULL;
  FwNode *loop;
  gboolean refused = FALSE;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, &d2, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "trip", trip, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "i", FW_DTYPE_INT64, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "c", FW_DTYPE_BOOL, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "acc", FW_DTYPE_FLOAT, FW_RANK_UNKNOWN, NULL, NULL));
  g_assert_nonnull (fw_graph_add_initializer (body, "one", one, NULL));
  fw_node_set_attr_int (fw_test_add_node (body, "Concat", "Concat", "acc", "one", "grown"), "axis", 0);
  fw_test_add_node (body, "Relu", "Relu", "grown", NULL, "r");
  fw_test_add_node (body, "Sigmoid", "Sigmoid", "r", NULL, "s");
  fw_test_add_node (body, "Mul", "Mul", "s", "grown", "next");
  fw_test_add_node (body, "Identity", "Identity", "c", NULL, "c_out");
  g_assert_true (fw_graph_add_output (body, "c_out", NULL));
  g_assert_true (fw_graph_add_output (body, "next", NULL));
  loop = fw_graph_add_node (g, "Loop", "", "Loop", 3, (const char *[]) { "trip", "", "x" }, 1,
                            (const char *[]) { "y" }, &error);
  g_assert_no_error (error);
  fw_node_set_attr_graph (loop, "body", body);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (fw_graph_get_input (body, 2)->rank, ==, 1);
  g_assert_false (fw_value_is_static (fw_graph_get_input (body, 2)));
  plan = plan_vad (model);
  g_assert_cmpuint (count_in (plan, "/Loop/body"), ==, 0);
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      refused |= r->code == FW_NF_DYNAMIC && r->nodes->len > 0 &&
                 ((FwNode *) g_ptr_array_index (r->nodes, 0))->graph == body;
    }
  g_assert_true (refused);
}

/* A Scan over the 3 rows of x whose body is one fusable chain (Relu → Sigmoid → Mul) per row. */
static FwModel *
scan_model (void)
{
  FwModel *model = fw_test_model_new (17);
  FwGraph *g = fw_model_get_graph (model), *body = fw_graph_new (g);
  FwDim dims[2] = { FW_DIM_STATIC (3), FW_DIM_STATIC (64) };
  g_autoptr(GError) error = NULL;
  FwNode *scan;

  g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 2, dims, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "xi", FW_DTYPE_FLOAT, 1, dims + 1, NULL));
  fw_test_add_node (body, "Relu", "/row/Relu", "xi", NULL, "r");
  fw_test_add_node (body, "Sigmoid", "/row/Sigmoid", "r", NULL, "s");
  fw_test_add_node (body, "Mul", "/row/Mul", "s", "xi", "yi");
  g_assert_true (fw_graph_add_output (body, "yi", NULL));
  scan = fw_test_add_node (g, "Scan", "/Scan_0", "x", NULL, "y");
  fw_node_set_attr_int (scan, "num_scan_inputs", 1);
  fw_node_set_attr_graph (scan, "body", body);
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  return model;
}

/* A Scan's body is a region too, planned with the slice shapes its inputs declare; the Scan's output
 * stacks the rows again, so it is static. */
static void
test_scan_body (void)
{
  g_autoptr(FwModel) model = scan_model ();
  g_autoptr(FwPlan) plan = plan_vad (model);
  const FwValue *y = fw_graph_get_output (fw_model_get_graph (model), 0);

  g_assert_true (fw_value_is_static (y));
  g_assert_cmpint (y->rank, ==, 2);
  g_assert_cmpint (y->dims[0].value, ==, 3);
  g_assert_cmpuint (plan->regions->len, ==, 2);
  g_assert_cmpstr (((FwPlanRegion *) g_ptr_array_index (plan->regions, 1))->path, ==, "/Scan_0/body");
  g_assert_cmpuint (count_in (plan, "/Scan_0/body"), ==, 1);
  g_assert_cmpuint (first_in (plan, "/Scan_0/body")->nodes->len, ==, 3);
}

typedef struct
{
  FwGroupKernel *inner;
  guint          runs;
} Counted;

static gboolean
run_counted (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Counted *c = data;

  c->runs++;
  return c->inner->run (c->inner->data, inputs, outputs, n_threads, error);
}

/* The fused executor runs the bodies' kernels inside the If and Loop (the Loop's once per frame), and
 * verification checks every one, a branch not taken on seeded inputs. */
static void
test_verify (void)
{
  g_autoptr(FwModel) model = load_vad ();
  g_autoptr(FwPlan) plan = plan_vad (model);
  g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
  g_autoptr(GPtrArray) wrappers = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (Counted));
  g_autoptr(FwVerifyResult) result = NULL;
  g_autoptr(GError) error = NULL;
  FwVerifyOptions options = { 0 };
  guint n = 0, seeded = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    if (fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i)))
      n++;
  g_array_set_size (counts, n);
  n = 0;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      Counted *c;
      FwGroupKernel *k;

      if (!fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i)))
        continue;
      c = &g_array_index (counts, Counted, n++);
      c->inner = fw_group_kernel_new_reference (plan, i);
      k = g_new0 (FwGroupKernel, 1);
      *k = *c->inner;
      k->run = run_counted;
      k->data = c;
      g_ptr_array_add (wrappers, k);
      g_ptr_array_add (kernels, k);
    }
  options.seed = 7;
  options.n_threads = 1;
  result = fw_verify_run (plan, kernels, &options, &error);
  g_assert_no_error (error);
  g_assert_true (result->pass);
  g_assert_cmpuint (result->groups->len, ==, kernels->len);
  for (guint k = 0; k < kernels->len; k++)
    {
      const FwGroupCheck *check = &g_array_index (result->groups, FwGroupCheck, k);
      const FwCandidate *c = g_ptr_array_index (plan->candidates, check->candidate);
      Counted *count = &g_array_index (counts, Counted, k);

      g_assert_true (check->pass);
      seeded += check->seeded;
      /* The isolated check once, plus once per frame inside the Loop on the fused run (the nested If's
         branches on every other frame). */
      if (g_strcmp0 (c->body, "/Loop_0/body") == 0)
        g_assert_cmpuint (count->runs, ==, 1 + 6);
      else if (c->body != NULL && g_str_has_prefix (c->body, "/Loop_0/body/If_1/"))
        g_assert_cmpuint (count->runs, ==, 1 + 3);
      else if (!check->seeded)
        g_assert_cmpuint (count->runs, ==, 2);
    }
  /* One of the If's branches did not run on the seeded input: its groups were fed seeded inputs. */
  g_assert_true (seeded == count_in (plan, "/If_0/then_branch") || seeded == count_in (plan, "/If_0/else_branch"));
  g_assert_cmpuint (seeded, >, 0);
  for (guint k = 0; k < n; k++)
    fw_group_kernel_reference_free (g_array_index (counts, Counted, k).inner);
}

/* The fused executor runs the Scan body's kernel once per row, and verification checks it against the
 * reference; a kernel that computes something else is caught. */
static gboolean
run_wrong (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  Counted *c = data;

  if (!run_counted (data, inputs, outputs, n_threads, error))
    return FALSE;
  if (c->runs > 1)
    ((float *) outputs[0]->data)[5] += 0.5f;
  return TRUE;
}

static void
test_scan_verify (void)
{
  for (int wrong = 0; wrong < 2; wrong++)
    {
      g_autoptr(FwModel) model = scan_model ();
      g_autoptr(FwPlan) plan = plan_vad (model);
      g_autoptr(GPtrArray) kernels = g_ptr_array_new ();
      g_autoptr(FwVerifyResult) result = NULL;
      g_autoptr(GError) error = NULL;
      FwVerifyOptions options = { 0 };
      FwGroupKernel k;
      Counted count = { 0 };
      guint index = G_MAXUINT;

      for (guint i = 0; i < plan->candidates->len; i++)
        if (fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i)))
          index = i;
      g_assert_cmpuint (index, !=, G_MAXUINT);
      count.inner = fw_group_kernel_new_reference (plan, index);
      k = *count.inner;
      k.run = wrong ? run_wrong : run_counted;
      k.data = &count;
      g_ptr_array_add (kernels, &k);
      options.seed = 3;
      options.n_threads = 1;
      result = fw_verify_run (plan, kernels, &options, &error);
      g_assert_no_error (error);
      /* Once on its own, then once per row inside the Scan on the fused run. */
      g_assert_cmpuint (count.runs, ==, 1 + 3);
      g_assert_cmpint (result->pass, ==, !wrong);
      fw_group_kernel_reference_free (count.inner);
    }
}

static guint
count_fused_nodes (const FwGraph *graph)
{
  guint n = 0;

  for (guint i = 0; i < graph->nodes->len; i++)
    n += strcmp (((FwNode *) g_ptr_array_index (graph->nodes, i))->domain, FW_ONNX_FUSED_DOMAIN) == 0;
  return n;
}

static const FwGraph *
subgraph (const FwGraph *graph, const char *op, const char *attr)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (strcmp (node->op_type, op) == 0)
        return fw_node_get_attr (node, attr)->g;
    }
  return NULL;
}

/* The fused export writes each body's fused nodes into that body. */
static void
test_export (void)
{
  g_autoptr(FwModel) model = load_vad ();
  g_autoptr(FwPlan) plan = plan_vad (model);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = fw_fused_model_serialize (plan, FW_ONNX_WRITE_DEFAULT, &error);
  g_autoptr(FwModel) back = NULL;
  FwGraph *graph;

  g_assert_no_error (error);
  back = fw_onnx_load_bytes (bytes, "fused", NULL, NULL, &error);
  g_assert_no_error (error);
  graph = fw_model_get_graph (back);
  g_assert_cmpuint (count_fused_nodes (subgraph (graph, "Loop", "body")), ==, count_in (plan, "/Loop_0/body"));
  g_assert_cmpuint (count_fused_nodes (subgraph (subgraph (graph, "Loop", "body"), "If", "then_branch")), ==,
                    count_in (plan, "/Loop_0/body/If_1/then_branch"));
  g_assert_cmpuint (count_fused_nodes (subgraph (subgraph (graph, "Loop", "body"), "If", "else_branch")), ==,
                    count_in (plan, "/Loop_0/body/If_1/else_branch"));
  g_assert_cmpuint (count_fused_nodes (subgraph (graph, "If", "then_branch")), ==,
                    count_in (plan, "/If_0/then_branch"));
  g_assert_cmpuint (count_fused_nodes (subgraph (graph, "If", "else_branch")), ==,
                    count_in (plan, "/If_0/else_branch"));
  g_assert_cmpuint (count_fused_nodes (graph), ==, count_in (plan, NULL));
}

/* A veto in a body re-plans that body only; node-level decisions, whitelists and sessions name the body,
 * and a node list that matches in a body does not match the same names elsewhere. */
static void
test_decisions (void)
{
  g_autoptr(FwModel) model = load_vad ();
  g_autoptr(FwPlan) plan = plan_vad (model);
  const FwCandidate *c = first_in (plan, "/If_0/then_branch");
  guint index = c->index, n_before = plan->candidates->len;
  g_autoptr(GError) error = NULL;
  g_autofree char *yaml = NULL, *session_text = NULL;
  g_autoptr(FwWhitelist) whitelist = NULL, back = NULL;
  g_autoptr(FwSession) session = NULL, session_back = NULL;
  g_autoptr(FwPlan) again = NULL;
  FwDecision *d;

  g_assert_true (fw_plan_veto (plan, index, NULL, "test", &error));
  g_assert_no_error (error);
  c = g_ptr_array_index (plan->candidates, index);
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_VETOED);
  g_assert_cmpstr (((FwDecision *) g_ptr_array_index (plan->decisions, 0))->body, ==, "/If_0/then_branch");
  for (guint i = n_before; i < plan->candidates->len; i++)
    g_assert_cmpstr (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->body, ==, "/If_0/then_branch");

  whitelist = fw_whitelist_from_plan (plan, "cflow_vad.onnx");
  yaml = fw_whitelist_to_string (whitelist);
  g_assert_nonnull (strstr (yaml, "body: \"/If_0/then_branch\""));
  back = fw_whitelist_load_data ("w.fusion.yaml", yaml, strlen (yaml), &error);
  g_assert_no_error (error);
  again = plan_vad (model);
  fw_plan_apply_whitelist (again, back);
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (again->candidates, index))->status, ==, FW_CANDIDATE_VETOED);

  session = fw_session_from_plan (plan, "cflow_vad.onnx", NULL);
  session_text = fw_session_to_string (session);
  g_assert_nonnull (strstr (session_text, "body: \"/If_0/then_branch\""));
  session_back = fw_session_load_data ("s.fwsession", session_text, strlen (session_text), &error);
  g_assert_no_error (error);
  g_clear_pointer (&again, fw_plan_free);
  again = plan_vad (model);
  g_assert_cmpuint (fw_session_apply (session_back, again), ==, 1);
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (again->candidates, index))->status, ==, FW_CANDIDATE_VETOED);

  /* The same names in the main graph match nothing. */
  d = fw_decision_new (FW_DECISION_VETO, "test", NULL, NULL);
  d->nodes = g_new0 (char *, c->nodes->len + 1);
  for (guint i = 0; i < c->nodes->len; i++)
    d->nodes[i] = g_strdup (((FwNode *) g_ptr_array_index (c->nodes, i))->name);
  g_clear_pointer (&again, fw_plan_free);
  again = plan_vad (model);
  g_assert_true (fw_plan_decide (again, d, &error));
  g_assert_cmpint (d->outcome, ==, FW_DECISION_MATCHED_NOTHING);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/control-flow/regions", test_regions);
  g_test_add_func ("/core/plan/control-flow/static-carried", test_static_carried);
  g_test_add_func ("/core/plan/control-flow/dynamic-body", test_dynamic_body);
  g_test_add_func ("/core/plan/control-flow/scan-body", test_scan_body);
  g_test_add_func ("/core/plan/control-flow/verify", test_verify);
  g_test_add_func ("/core/plan/control-flow/scan-verify", test_scan_verify);
  g_test_add_func ("/core/plan/control-flow/export", test_export);
  g_test_add_func ("/core/plan/control-flow/decisions", test_decisions);
  return g_test_run ();
}
