/* test-kernel-spec.c: the planner's frozen decision per group (FwKernelSpec): rows of row operations, broadcast
 * rows, value kinds, the Unified Buffer plan and the figures priced from it. */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "fw-test-models.h"
#include "report/fw-model-report.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-plan-private.h"

static FwNode *
node (FwGraph *g, const char *op, const char *name, const char *out, const char *a, const char *b)
{
  const char *ins[2] = { a, b };
  const char *outs[1] = { out };
  FwNode *nd = fw_graph_add_node (g, op, "", name, b ? 2 : 1, ins, 1, outs, NULL);

  g_assert_nonnull (nd);
  return nd;
}

static void
input (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  FwDim d[8];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, FW_DTYPE_FLOAT, rank, d, NULL));
}

static void
constant (FwGraph *g, const char *name, guint rank, const gint64 *dims, float value)
{
  gint64 n = 1;
  g_autofree float *values = NULL;
  g_autoptr(FwTensor) t = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  values = g_new (float, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = value + 0.001f * (float) i;
  t = fw_tensor_new_float (rank, dims, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
finish (FwModel *model, const char *out)
{
  g_autoptr(GError) error = NULL;
  FwGraph *g = fw_model_get_graph (model);

  g_assert_true (fw_graph_add_output (g, out, NULL));
  g_assert_true (fw_graph_link (g, &error));
  g_assert_no_error (error);
}

static FwPlan *
plan_for (FwModel *model, FwStrategy strategy)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g_assert_no_error (error);
  fw_plan_options_init (&options);
  options.strategy = strategy;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  g_object_unref (model);
  return plan;
}

/* The candidate holding the node named name. */
static const FwCandidate *
candidate_of (FwPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        if (strcmp (((FwNode *) g_ptr_array_index (c->nodes, n))->name, name) == 0)
          return c;
    }
  g_assert_not_reached ();
  return NULL;
}

static const FwSpecValue *
value_named (const FwKernelSpec *spec, const char *name)
{
  for (guint i = 0; i < fw_kernel_spec_get_n_values (spec); i++)
    if (strcmp (fw_kernel_spec_get_value (spec, i)->value->name, name) == 0)
      return fw_kernel_spec_get_value (spec, i);
  return NULL;
}

static const FwSpecBuffer *
buffer_of (const FwKernelSpec *spec, const char *name)
{
  for (guint i = 0; i < fw_kernel_spec_get_n_buffers (spec); i++)
    if (strcmp (fw_kernel_spec_get_buffer (spec, i)->value->name, name) == 0)
      return fw_kernel_spec_get_buffer (spec, i);
  return NULL;
}

/* What every spec of a plan must satisfy: its members are the candidate's, its values' kinds agree with the
 * graph, and the resource figures are its buffer plan priced at the chosen tile. */
static void
check_consistent (FwPlan *plan)
{
  guint align = MAX (plan->profile->ub_align_bytes, 1u);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwKernelSpec *spec = c->spec;
      const FwSpace *space;
      guint n_buffers = 0, streamed = 0;
      gdouble rows;

      g_assert_nonnull (spec);
      space = fw_kernel_spec_get_space (spec);
      g_assert_cmpuint (fw_kernel_spec_get_n_nodes (spec), ==, c->nodes->len);
      for (guint n = 0; n < c->nodes->len; n++)
        {
          g_assert_true (fw_kernel_spec_get_node (spec, n) == g_ptr_array_index (c->nodes, n));
          g_assert_cmpint (fw_kernel_spec_position (spec, g_ptr_array_index (c->nodes, n)), ==, (gint) n);
        }
      g_assert_true (fw_kernel_spec_get_root (spec) == c->root);
      for (guint v = 0; v < fw_kernel_spec_get_n_values (spec); v++)
        {
          const FwSpecValue *sv = fw_kernel_spec_get_value (spec, v);
          gboolean made_inside = sv->value->producer && fw_kernel_spec_contains (spec, sv->value->producer);

          g_assert_true (fw_kernel_spec_lookup (spec, sv->value) == sv);
          if (sv->kind == FW_SPEC_OUTPUT || sv->kind == FW_SPEC_INTERMEDIATE)
            g_assert_true (made_inside);
          else
            g_assert_false (made_inside);
          g_assert_cmpuint (sv->first, <=, sv->last);
        }
      /* A fused attention is priced by its query and key blocks (test-attention), not a tile's buffers. */
      if (fw_kernel_spec_get_attention (spec) != NULL)
        {
          const FwAttentionSpec *a = fw_kernel_spec_get_attention (spec);
          g_assert_cmpint (fw_candidate_get_resource (c)->tile_elements, ==, a->q_block * a->key_block);
          g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_bytes, <=, fw_candidate_get_resource (c)->ub_budget_bytes);
          g_assert_cmpuint (fw_kernel_spec_get_n_inputs (spec), ==, fw_candidate_get_resource (c)->kernel_inputs);
          continue;
        }
      for (guint b = 0; b < fw_kernel_spec_get_n_buffers (spec); b++)
        streamed += fw_kernel_spec_get_buffer (spec, b)->streamed;
      g_assert_cmpuint (streamed, ==, fw_candidate_get_resource (c)->queues);
      g_assert_cmpuint (fw_kernel_spec_get_n_inputs (spec), ==, fw_candidate_get_resource (c)->kernel_inputs);
      g_assert_cmpuint (fw_kernel_spec_get_n_outputs (spec), ==, fw_candidate_get_resource (c)->kernel_outputs);
      g_assert_cmpint (fw_candidate_get_resource (c)->tile_elements % MAX (fw_candidate_get_resource (c)->unit_elements, 1), ==, 0);
      rows = space->row_axes > 0 ? (gdouble) fw_candidate_get_resource (c)->tile_elements / (gdouble) fw_space_row_elements (space) : 0;
      g_assert_cmpfloat_with_epsilon (fw_kernel_spec_ub_bytes (spec, align, (gdouble) fw_candidate_get_resource (c)->tile_elements,
                                                               rows, &n_buffers),
                                      fw_candidate_get_resource (c)->ub_bytes, 0.5);
      g_assert_cmpuint (n_buffers, ==, fw_candidate_get_resource (c)->n_buffers);
      g_assert_cmpint (fw_candidate_get_resource (c)->row_elements, ==, space->row_axes > 0 ? fw_space_row_elements (space) : 0);
    }
}

/* LayerNormalization inside a transformer block: the rows it reduces, priced in whole rows. */
static void
test_layernorm (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  const FwCandidate *ln = NULL;

  check_consistent (plan);
  for (guint i = 0; i < plan->candidates->len && ln == NULL; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (fw_kernel_spec_get_reduce_axes (c->spec) > 0)
        ln = c;
    }
  g_assert_nonnull (ln);
  g_assert_cmpint (fw_kernel_spec_get_space (ln->spec)->row_axes, ==, fw_kernel_spec_get_reduce_axes (ln->spec));
  g_assert_cmpint (fw_candidate_get_resource (ln)->tile_rows, >=, 1);
  g_assert_cmpint (fw_candidate_get_resource (ln)->tile_elements, ==, fw_candidate_get_resource (ln)->tile_rows * fw_candidate_get_resource (ln)->row_elements);
}

/* x [4, 32, 64] divided by sqrt(v + eps), v [4, 32, 1]: an elementwise group the planner tiles in whole rows
 * of 64 for the per-row scalars. Rows of 2^16 elements do not fit: the same group is tiled flat. */
static FwPlan *
per_row_plan (gint64 row)
{
  FwModel *model = fw_test_model_new (14);
  FwGraph *g = fw_model_get_graph (model);
  gint64 dx[3] = { 4, 32, row }, dv[3] = { 4, 32, 1 };

  input (g, "x", 3, dx);
  input (g, "v", 3, dv);
  constant (g, "eps", 0, NULL, 1e-5f);
  node (g, "Relu", "relu", "r", "x", NULL);
  node (g, "Add", "add", "ve", "v", "eps");
  node (g, "Sqrt", "sqrt", "sd", "ve", NULL);
  node (g, "Div", "div", "y", "r", "sd");
  finish (model, "y");
  return plan_for (model, FW_STRATEGY_CONSERVATIVE);
}

static void
test_broadcast_rows (void)
{
  g_autoptr(FwPlan) plan = per_row_plan (64);
  g_autoptr(FwPlan) wide = per_row_plan (65536);
  const FwCandidate *c = candidate_of (plan, "div"), *w = candidate_of (wide, "div");
  const FwSpecValue *v = value_named (c->spec, "v");

  check_consistent (plan);
  check_consistent (wide);
  g_assert_cmpint (fw_kernel_spec_get_reduce_axes (c->spec), ==, 0);
  g_assert_cmpint (fw_kernel_spec_get_space (c->spec)->row_axes, ==, 1);
  g_assert_cmpint (fw_candidate_get_resource (c)->row_elements, ==, 64);
  g_assert_cmpint (fw_candidate_get_resource (c)->tile_elements % 64, ==, 0);
  g_assert_cmpint (fw_candidate_get_resource (c)->tile_rows, ==, fw_candidate_get_resource (c)->tile_elements / 64);
  /* The per-row scalars take one element per row of the tile. */
  g_assert_nonnull (v);
  g_assert_cmpint (v->kind, ==, FW_SPEC_INPUT);
  g_assert_cmpint (v->role, ==, FW_SHAPE_ROW);
  g_assert_cmpint (value_named (c->spec, "eps")->kind, ==, FW_SPEC_IMMEDIATE);
  g_assert_null (buffer_of (c->spec, "eps"));

  g_assert_cmpint (fw_kernel_spec_get_space (w->spec)->row_axes, ==, 0);
  g_assert_cmpint (fw_candidate_get_resource (w)->tile_rows, ==, 0);
  g_assert_cmpint (value_named (w->spec, "v")->role, ==, FW_SHAPE_SMALL);
  g_assert_cmpint (value_named (w->spec, "v")->broadcast, ==, FW_BROADCAST_PER_ROW);
}

/* MatMul(x, w) + x: the compute root reads w through L1/L0 (no UB buffer), x is read by the epilogue too and
 * streams into the Unified Buffer for it. */
static void
test_root_operand (void)
{
  FwModel *model = fw_test_model_new (14);
  FwGraph *g = fw_model_get_graph (model);
  gint64 dx[2] = { 64, 64 }, dw[2] = { 64, 64 };
  g_autoptr(FwPlan) plan = NULL;
  const FwCandidate *c;
  const FwSpecBuffer *bx;

  input (g, "x", 2, dx);
  constant (g, "w", 2, dw, 0.5f);
  node (g, "MatMul", "mm", "t", "x", "w");
  node (g, "Add", "res", "u", "t", "x");
  node (g, "Relu", "act", "y", "u", NULL);
  finish (model, "y");
  plan = plan_for (model, FW_STRATEGY_BALANCED);
  check_consistent (plan);
  c = candidate_of (plan, "mm");
  g_assert_true (fw_kernel_spec_get_root (c->spec) == c->root);
  g_assert_cmpint (value_named (c->spec, "w")->kind, ==, FW_SPEC_ROOT_OPERAND);
  g_assert_null (buffer_of (c->spec, "w"));
  g_assert_cmpint (value_named (c->spec, "x")->kind, ==, FW_SPEC_INPUT);
  bx = buffer_of (c->spec, "x");
  g_assert_nonnull (bx);
  g_assert_true (bx->streamed);
  g_assert_cmpuint (bx->last, ==, (guint) fw_kernel_spec_position (c->spec, fw_graph_get_node (g, 1)));
  /* The root's result arrives in tiles, double-buffered; the output leaves the kernel. */
  g_assert_true (buffer_of (c->spec, "t")->streamed);
  g_assert_cmpint (value_named (c->spec, "y")->kind, ==, FW_SPEC_OUTPUT);
  g_assert_cmpint (value_named (c->spec, "u")->kind, ==, FW_SPEC_INTERMEDIATE);
}

/* The one definition of a row operation. */
static void
test_row_ops (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  gint64 dx[3] = { 2, 8, 16 }, dk[1] = { 1 };
  g_autofree char *why = NULL;
  FwNode *sm13, *sm11, *ln, *rs, *rm, *ra;
  FwRowOp op;

  input (g, "x", 3, dx);
  input (g, "k", 1, dk);
  sm13 = node (g, "Softmax", "sm13", "a", "x", NULL);
  fw_node_set_attr_int (sm13, "axis", 1);
  sm11 = node (g, "Softmax", "sm11", "b", "x", NULL);
  fw_node_set_attr_int (sm11, "axis", 1);
  sm11->opset = 11;
  ln = node (g, "LayerNormalization", "ln", "c", "x", NULL);
  rs = node (g, "ReduceSum", "rs", "d", "x", NULL);
  rm = node (g, "ReduceMean", "rm", "e", "x", "k");
  ra = node (g, "ReduceMax", "ra", "f", "x", NULL);
  fw_node_set_attr_ints (ra, "axes", 1, (const gint64[]) { 1 });
  g_assert_true (fw_graph_link (g, NULL));

  g_assert_true (fw_node_row_op_full (sm13, &op, &why));
  g_assert_cmpint (op.axes, ==, 2);
  g_assert_cmpint (op.from_end, ==, 2);
  g_assert_true (op.full_out);
  g_assert_true (fw_node_row_op_full (sm11, &op, &why));
  g_assert_cmpint (op.axes, ==, 2);
  g_assert_cmpint (op.from_end, ==, 0);
  g_assert_true (fw_node_row_op_full (ln, &op, &why));
  g_assert_cmpint (op.axes, ==, 1);
  g_assert_true (op.full_out);
  g_assert_true (fw_node_row_op_full (rs, &op, &why));
  g_assert_true (op.by_default);
  g_assert_cmpint (op.axes, ==, 3);
  /* Axes computed at run time, or not trailing: no rows, and why. */
  g_assert_false (fw_node_row_op_full (rm, &op, &why));
  g_assert_nonnull (strstr (why, "run time"));
  g_clear_pointer (&why, g_free);
  g_assert_false (fw_node_row_op_full (ra, &op, &why));
  g_assert_nonnull (strstr (why, "trailing"));
}

/* A group the planner did not form gets a spec too: the root's result, else the largest value, as the space. */
static void
test_custom_group (void)
{
  g_autoptr(FwPlan) plan = per_row_plan (64);
  FwGraph *g = fw_model_get_graph (plan->model);
  g_autoptr(GPtrArray) nodes = g_ptr_array_new ();
  g_autoptr(FwKernelSpec) spec = NULL;

  for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
    g_ptr_array_add (nodes, fw_graph_get_node (g, i));
  spec = fw_plan_spec_for_nodes (plan, nodes, NULL);
  g_assert_cmpint (fw_kernel_spec_get_space (spec)->rank, ==, 3);
  g_assert_cmpint (fw_kernel_spec_get_space (spec)->dims[2], ==, 64);
  g_assert_cmpuint (fw_kernel_spec_get_n_nodes (spec), ==, nodes->len);
  g_assert_true (fw_kernel_spec_is_output (spec, value_named (spec, "y")->value));
  g_assert_false (fw_kernel_spec_is_output (spec, value_named (spec, "sd")->value));
}

/* The report prints each candidate's spec: the UB plan entry by entry. */
static void
test_report (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_elementwise_chain (4, 64, FALSE), FW_STRATEGY_BALANCED);
  g_autofree char *json = fw_test_plan_report (plan->model, plan, FW_REPORT_JSON);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *cands;

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  cands = json_object_get_array_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                                       "plan"), "candidates");
  g_assert_cmpuint (json_array_get_length (cands), >=, 1);
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *k = json_object_get_object_member (json_array_get_object_element (cands, i), "kernel");
      g_assert_nonnull (k);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (k, "ub_plan")), >=, 2);
      g_assert_cmpstr (json_object_get_string_member (k, "rows"), ==, "none");
      g_assert_cmpstr (json_object_get_string_member (k, "priced"), ==, "ub_plan");
      g_assert_cmpstr (json_object_get_string_member (k, "ascend_form"), ==, "vector");
    }
}

/* The report says which groups' Ascend kernels are epilogues after CANN's own cube operator (a MatMul,
 * Gemm or Conv root) and which run on the vector unit alone. */
static void
test_report_form (void)
{
  g_autoptr(FwPlan) plan = plan_for (fw_test_transformer_block (16, 64, 4, FALSE), FW_STRATEGY_BALANCED);
  g_autofree char *json = fw_test_plan_report (plan->model, plan, FW_REPORT_JSON);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *cands;
  guint epilogues = 0;

  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  cands = json_object_get_array_member (json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                                                       "plan"), "candidates");
  g_assert_cmpuint (json_array_get_length (cands), ==, plan->candidates->len);
  for (guint i = 0; i < json_array_get_length (cands); i++)
    {
      JsonObject *k = json_object_get_object_member (json_array_get_object_element (cands, i), "kernel");
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const char *form = json_object_get_string_member (k, "ascend_form");

      g_assert_cmpstr (form, ==, fw_kernel_spec_get_root (c->spec) != NULL ? "epilogue" : "vector");
      epilogues += strcmp (form, "epilogue") == 0;
    }
  g_assert_cmpuint (epilogues, >, 0);
}

/* A target's arrangement is what the plan prices: one that can make nothing leaves the planner's own buffer
 * plan; one whose smallest tile needs more than the budget has the candidate refused with FW-NF-009. */
static gboolean
arrange_nothing (const FwPlan *plan, const FwCandidate *candidate, FwUbArrangement *out, GError **error)
{
  return FALSE;
}

static gboolean
arrange_huge (const FwPlan *plan, const FwCandidate *candidate, FwUbArrangement *out, GError **error)
{
  FwUbBuffer b = { FW_UB_FIXED, 1, 1, 1 << 30 };
  g_array_append_val (out->buffers, b);
  return TRUE;
}

static gboolean
arrange_tiles (const FwPlan *plan, const FwCandidate *candidate, FwUbArrangement *out, GError **error)
{
  FwUbBuffer b = { FW_UB_TILE, 4, 3, 0 };
  g_array_append_val (out->buffers, b);
  out->tile_align = 8;
  out->block_bytes = 32;
  return TRUE;
}

static FwPlan *
arranged_plan (FwUbArrangeFunc arrange)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwModel *model = fw_test_elementwise_chain (4, 4096, FALSE);
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  options.arrange = arrange;
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  g_object_unref (model);
  return plan;
}

static void
test_arranged (void)
{
  g_autoptr(FwPlan) none = arranged_plan (arrange_nothing);
  g_autoptr(FwPlan) huge = arranged_plan (arrange_huge);
  g_autoptr(FwPlan) tiles = arranged_plan (arrange_tiles);
  const FwCandidate *c;
  gboolean refused = FALSE;

  check_consistent (none);
  g_assert_cmpuint (none->candidates->len, >=, 1);
  c = g_ptr_array_index (none->candidates, 0);
  g_assert_null (fw_kernel_spec_get_arrangement (c->spec));
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_PROPOSED);

  c = g_ptr_array_index (huge->candidates, 0);
  g_assert_nonnull (fw_kernel_spec_get_arrangement (c->spec));
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_REFUSED);
  g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_min_bytes, >=, (gdouble) (1 << 30));
  for (guint i = 0; i < huge->refusals->len; i++)
    {
      FwRefusal *r = g_ptr_array_index (huge->refusals, i);
      if (r->code == FW_NF_UB && r->candidate == c->index && strstr (r->message, "kernel's buffers"))
        refused = TRUE;
    }
  g_assert_true (refused);

  /* Three tile-shaped float buffers: the tile is the largest whole number of blocks whose 12 bytes an
   * element fit the budget (and one core's share), and the figures are exactly those bytes. */
  c = g_ptr_array_index (tiles->candidates, 0);
  g_assert_cmpint (c->status, ==, FW_CANDIDATE_PROPOSED);
  g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_bytes, ==, 12.0 * (gdouble) fw_candidate_get_resource (c)->tile_elements);
  g_assert_cmpuint (fw_candidate_get_resource (c)->n_buffers, ==, 3);
  g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_bytes, <=, fw_candidate_get_resource (c)->ub_budget_bytes);

  /* The report says what was priced and lists the arrangement. */
  {
    g_autofree char *json = fw_test_plan_report (tiles->model, tiles, FW_REPORT_JSON);
    g_autoptr(JsonParser) parser = json_parser_new ();
    JsonObject *k;
    JsonArray *bufs;

    g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
    k = json_object_get_object_member (
      json_array_get_object_element (json_object_get_array_member (
        json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "plan"), "candidates"), 0),
      "kernel");
    g_assert_cmpstr (json_object_get_string_member (k, "priced"), ==, "kernel_buffers");
    bufs = json_object_get_array_member (k, "kernel_buffers");
    g_assert_cmpuint (json_array_get_length (bufs), ==, 1);
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (bufs, 0), "sizing"), ==, "tile");
    g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (bufs, 0), "copies"), ==, 3);
  }
}

/* Passes over a row: a decomposed LayerNorm (ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt, Div) reads its
 * mean in the second pass and its variance in the third, so the Add before it and the centred values are
 * carried whole across passes; the per-row statistics are not. A Softmax over an inner axis (opset 13)
 * sweeps that axis; an elementwise chain makes one pass and carries nothing. */
static void
test_passes (void)
{
  gint64 x[3] = { 2, 5, 48 }, one[1] = { 1 };

  {
    g_autoptr(FwModel) model = fw_test_model_new (17);
    FwGraph *g = fw_model_get_graph (model);
    g_autoptr(FwPlan) plan = NULL;
    const FwCandidate *c;
    const FwKernelSpec *spec;
    guint first, last;

    input (g, "x", 3, x);
    input (g, "r", 3, x);
    constant (g, "eps", 1, one, 1e-5f);
    node (g, "Add", "add", "s", "x", "r");
    fw_node_set_attr_ints (node (g, "ReduceMean", "mean", "m", "s", NULL), "axes", 1, (const gint64[]) { -1 });
    node (g, "Sub", "centre", "d", "s", "m");
    node (g, "Mul", "square", "q", "d", "d");
    fw_node_set_attr_ints (node (g, "ReduceMean", "var", "v", "q", NULL), "axes", 1, (const gint64[]) { -1 });
    node (g, "Add", "veps", "ve", "v", "eps");
    node (g, "Sqrt", "std", "sd", "ve", NULL);
    node (g, "Div", "norm", "y", "d", "sd");
    finish (model, "y");
    plan = plan_for (g_object_ref (model), FW_STRATEGY_BALANCED);
    c = candidate_of (plan, "norm");
    spec = c->spec;
    g_assert_cmpuint (fw_kernel_spec_get_n_nodes (spec), ==, 8);
    g_assert_cmpuint (fw_kernel_spec_get_n_passes (spec), ==, 3);
    g_assert_cmpint (fw_kernel_spec_get_sweep_row_elements (spec), ==, 48);
    g_assert_true (value_named (spec, "s")->carried);
    g_assert_true (value_named (spec, "d")->carried);
    g_assert_false (value_named (spec, "q")->carried);   /* read by the variance in its own pass */
    g_assert_false (value_named (spec, "m")->carried);   /* one element per row */
    g_assert_false (value_named (spec, "sd")->carried);
    g_assert_false (value_named (spec, "y")->carried);
    g_assert_cmpuint (fw_kernel_spec_get_n_carried (spec), ==, 2);
    g_assert_cmpuint (value_named (spec, "m")->pass, ==, 1);
    g_assert_cmpuint (value_named (spec, "sd")->pass, ==, 2);
    fw_kernel_spec_get_passes (spec, fw_kernel_spec_get_n_nodes (spec) - 1, &first, &last);
    g_assert_cmpstr (fw_kernel_spec_get_node (spec, fw_kernel_spec_get_n_nodes (spec) - 1)->name, ==, "norm");
    g_assert_cmpuint (first, ==, 2);
    g_assert_cmpuint (last, ==, 2);
  }
  {
    g_autoptr(FwModel) model = fw_test_model_new (13);
    FwGraph *g = fw_model_get_graph (model);
    gint64 sx[3] = { 3, 7, 33 };
    g_autoptr(FwPlan) plan = NULL;
    const FwKernelSpec *spec;
    guint first, last;

    input (g, "x", 3, sx);
    input (g, "b", 3, sx);
    node (g, "Add", "add", "t", "x", "b");
    fw_node_set_attr_int (node (g, "Softmax", "sm", "y", "t", NULL), "axis", 1);
    finish (model, "y");
    plan = plan_for (g_object_ref (model), FW_STRATEGY_BALANCED);
    spec = candidate_of (plan, "sm")->spec;
    g_assert_cmpint (fw_kernel_spec_get_sweep_row_elements (spec), ==, 7);
    g_assert_cmpuint (fw_kernel_spec_get_n_passes (spec), ==, 3);
    g_assert_true (value_named (spec, "t")->carried);
    g_assert_cmpuint (fw_kernel_spec_get_n_carried (spec), ==, 1);
    fw_kernel_spec_get_passes (spec, 1, &first, &last);
    g_assert_cmpuint (first, ==, 0);
    g_assert_cmpuint (last, ==, 2);
  }
  {
    g_autoptr(FwModel) model = fw_test_elementwise_chain (6, 4096, FALSE);
    g_autoptr(FwPlan) plan = plan_for (g_object_ref (model), FW_STRATEGY_BALANCED);
    const FwCandidate *c;

    g_assert_cmpuint (plan->candidates->len, >=, 1);
    c = g_ptr_array_index (plan->candidates, 0);
    g_assert_cmpuint (fw_kernel_spec_get_n_passes (c->spec), ==, 1);
    g_assert_cmpuint (fw_kernel_spec_get_n_carried (c->spec), ==, 0);
    g_assert_cmpint (fw_kernel_spec_get_sweep_row_elements (c->spec), ==, 0);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/kernel-spec/layernorm", test_layernorm);
  g_test_add_func ("/core/plan/kernel-spec/broadcast-rows", test_broadcast_rows);
  g_test_add_func ("/core/plan/kernel-spec/root-operand", test_root_operand);
  g_test_add_func ("/core/plan/kernel-spec/row-ops", test_row_ops);
  g_test_add_func ("/core/plan/kernel-spec/custom-group", test_custom_group);
  g_test_add_func ("/core/plan/kernel-spec/report", test_report);
  g_test_add_func ("/core/plan/kernel-spec/report-form", test_report_form);
  g_test_add_func ("/core/plan/kernel-spec/arranged", test_arranged);
  g_test_add_func ("/core/plan/kernel-spec/passes", test_passes);
  return g_test_run ();
}
