#include "config.h"

#include <inttypes.h>
#include <math.h>

#include <glib/gi18n-lib.h>

#include "fw-plan-report.h"
#include "fw-report-private.h"
#include "codegen/ascend/fw-ascend.h"
#include "ops/fw-custom-ops.h"
#include "plan/fw-decisions.h"
#include "graph/fw-graph-private.h"

#define MARKDOWN_MAX_REFUSALS 50

/* Reports are compared byte for byte across runs: round what is estimated. */
static void
add_number (JsonBuilder *b, const char *name, gdouble value, gdouble quantum)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, round (value / quantum) * quantum);
}

static void
add_totals (JsonBuilder *b, const char *name, const FwPlanTotals *t)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  fw_json_member_int (b, "launches", t->launches);
  fw_json_member_int (b, "bytes_read", (gint64) t->bytes_read);
  fw_json_member_int (b, "bytes_written", (gint64) t->bytes_written);
  fw_json_member_int (b, "flops", (gint64) t->flops);
  add_number (b, "time_us", t->time_s * 1e6, 0.001);
  json_builder_end_object (b);
}

static const char *
shape_role_name (FwShapeRole role)
{
  switch (role)
    {
    case FW_SHAPE_FULL: return "full";
    case FW_SHAPE_ROW: return "row";
    case FW_SHAPE_SMALL: return "broadcast";
    case FW_SHAPE_OTHER:
    default: return "other";
    }
}

/* What the resource figures priced: the target kernel's own buffers when the plan was given them, else the
 * plan's buffers above. */
static void
add_arrangement (JsonBuilder *b, const FwUbArrangement *a)
{
  static const char *const sizing[] = { [FW_UB_TILE] = "tile", [FW_UB_ROWS] = "rows", [FW_UB_FIXED] = "fixed" };

  fw_json_member_string (b, "priced", a != NULL ? "kernel_buffers" : "ub_plan");
  if (a == NULL)
    return;
  fw_json_member_int (b, "row_stride", a->row_stride);
  fw_json_member_int (b, "tile_align", a->tile_align);
  fw_json_member_int (b, "block_bytes", a->block_bytes);
  json_builder_set_member_name (b, "kernel_buffers");
  json_builder_begin_array (b);
  for (guint i = 0; i < a->buffers->len; i++)
    {
      const FwUbBuffer *k = &g_array_index (a->buffers, FwUbBuffer, i);
      json_builder_begin_object (b);
      fw_json_member_string (b, "sizing", sizing[k->sizing]);
      fw_json_member_int (b, "elem_bytes", k->elem_bytes);
      fw_json_member_int (b, "copies", k->copies);
      if (k->sizing == FW_UB_FIXED)
        fw_json_member_int (b, "bytes", k->fixed_bytes);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The planner's decision for the kernel (FwKernelSpec): the space, its rows and the Unified Buffer plan the
 * resource figures price. */
static void
add_kernel_spec (JsonBuilder *b, const FwKernelSpec *spec)
{
  const FwSpace *space = fw_kernel_spec_get_space (spec);
  gint reduce = fw_kernel_spec_get_reduce_axes (spec);

  json_builder_set_member_name (b, "kernel");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "space");
  json_builder_begin_array (b);
  for (gint i = 0; i < space->rank; i++)
    json_builder_add_int_value (b, space->dims[i]);
  json_builder_end_array (b);
  fw_json_member_int (b, "row_axes", space->row_axes);
  fw_json_member_string (b, "rows", space->row_axes == 0 ? "none" : reduce > 0 ? "reduction" : "broadcast");
  fw_json_member_int (b, "row_elements", space->row_axes > 0 ? fw_space_row_elements (space) : 0);
  fw_json_member_int (b, "passes", fw_kernel_spec_get_n_passes (spec));
  fw_json_member_string (b, "ascend_form", fw_ascend_kernel_form (spec));
  if (fw_kernel_spec_get_form_reason (spec) != NULL)
    fw_json_member_string (b, "ascend_form_reason", fw_kernel_spec_get_form_reason (spec));
  json_builder_set_member_name (b, "carried");
  json_builder_begin_array (b);
  for (guint i = 0; i < fw_kernel_spec_get_n_values (spec); i++)
    if (fw_kernel_spec_get_value (spec, i)->carried)
      json_builder_add_string_value (b, fw_kernel_spec_get_value (spec, i)->value->name);
  json_builder_end_array (b);
  fw_json_member_int (b, "row_scratch_elements",
                      (gint64) fw_kernel_spec_get_n_carried (spec) * fw_kernel_spec_get_sweep_row_elements (spec));
  json_builder_set_member_name (b, "ub_plan");
  json_builder_begin_array (b);
  for (guint i = 0; i < fw_kernel_spec_get_n_buffers (spec); i++)
    {
      const FwSpecBuffer *buf = fw_kernel_spec_get_buffer (spec, i);
      json_builder_begin_object (b);
      fw_json_member_string (b, "value", buf->value->name);
      fw_json_member_string (b, "role", shape_role_name (buf->role));
      fw_json_member_int (b, "elem_bytes", buf->elem_bytes);
      fw_json_member_int (b, "elements", buf->elements);
      fw_json_member_bool (b, "streamed", buf->streamed);
      fw_json_member_int (b, "first", buf->first);
      fw_json_member_int (b, "last", buf->last);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_arrangement (b, fw_kernel_spec_get_arrangement (spec));
  json_builder_end_object (b);
}

static void
add_nodes (JsonBuilder *b, GPtrArray *nodes)
{
  json_builder_set_member_name (b, "nodes");
  json_builder_begin_array (b);
  for (guint i = 0; i < nodes->len; i++)
    json_builder_add_string_value (b, ((FwNode *) g_ptr_array_index (nodes, i))->name);
  json_builder_end_array (b);
}

static void
add_ids (JsonBuilder *b, const char *name, GArray *ids)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < ids->len; i++)
    json_builder_add_int_value (b, g_array_index (ids, guint, i));
  json_builder_end_array (b);
}

/* What a decision targets and where it came from, shared by plan.decisions[] and plan.whitelist. */
static void
add_decision_target (JsonBuilder *b, const FwDecision *d)
{
  json_builder_set_member_name (b, "action");
  json_builder_add_string_value (b, fw_decision_action_name (d->action));
  json_builder_set_member_name (b, "candidate");
  if (d->candidate != G_MAXUINT)
    json_builder_add_int_value (b, d->candidate);
  else
    json_builder_add_null_value (b);
  fw_json_member_string (b, "pattern", d->pattern);
  json_builder_set_member_name (b, "nodes");
  if (d->nodes)
    {
      json_builder_begin_array (b);
      for (guint i = 0; d->nodes[i]; i++)
        json_builder_add_string_value (b, d->nodes[i]);
      json_builder_end_array (b);
    }
  else
    json_builder_add_null_value (b);
  /* Only for a body's nodes: reports of models without control flow stay as they were. */
  if (d->body != NULL)
    fw_json_member_string (b, "body", d->body);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, d->source);
  fw_json_member_string (b, "who", d->who);
  fw_json_member_string (b, "why", d->why);
  json_builder_set_member_name (b, "outcome");
  json_builder_add_string_value (b, fw_decision_outcome_name (d->outcome));
  add_ids (b, "matched", d->matched);
  add_ids (b, "refused", d->refused);
}

static void
add_whitelist_list (JsonBuilder *b, const FwPlan *plan, const char *name, gboolean (*pick) (const FwDecision *))
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);
      if (!d->whitelist || !pick (d))
        continue;
      json_builder_begin_object (b);
      add_decision_target (b, d);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static gboolean
pick_applied (const FwDecision *d)
{
  return d->outcome == FW_DECISION_APPLIED;
}

static gboolean
pick_nothing (const FwDecision *d)
{
  return d->outcome == FW_DECISION_MATCHED_NOTHING;
}

static gboolean
pick_accepted_refused (const FwDecision *d)
{
  return d->action == FW_DECISION_ACCEPT && d->refused->len > 0;
}

static gboolean
pick_other_model (const FwDecision *d)
{
  return d->outcome == FW_DECISION_OTHER_MODEL;
}

gboolean
fw_plan_whitelist_rejected (const FwPlan *plan)
{
  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);
      if (d->whitelist && d->action == FW_DECISION_ACCEPT &&
          (d->refused->len > 0 || d->outcome == FW_DECISION_MATCHED_NOTHING))
        return TRUE;
    }
  return FALSE;
}

/* The operator registry entries the model's nodes use (docs/custom-ops.md), in first-use order; the member
 * is left out when there are none, so reports of models without custom ops do not change. */
static void
add_custom_ops (JsonBuilder *b, const FwPlan *plan)
{
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(GPtrArray) used = g_ptr_array_new ();
  g_autoptr(GArray) counts = g_array_new (FALSE, TRUE, sizeof (guint));

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const FwNode *node = g_ptr_array_index (graph->nodes, i);
      guint at;

      if (node->op == NULL || node->op->custom == NULL)
        continue;
      if (!g_ptr_array_find (used, node->op, &at))
        {
          g_ptr_array_add (used, (gpointer) node->op);
          g_array_set_size (counts, used->len);
          at = used->len - 1;
        }
      g_array_index (counts, guint, at)++;
    }
  if (used->len == 0)
    return;
  json_builder_set_member_name (b, "custom_ops");
  json_builder_begin_array (b);
  for (guint i = 0; i < used->len; i++)
    {
      const FwOpInfo *op = g_ptr_array_index (used, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, fw_custom_op_get_name (op->custom));
      json_builder_set_member_name (b, "class");
      json_builder_add_string_value (b, fw_op_class_name (op->op_class));
      json_builder_set_member_name (b, "declared_at");
      json_builder_add_string_value (b, fw_custom_op_get_origin (op->custom));
      json_builder_set_member_name (b, "host_expression");
      json_builder_add_boolean_value (b, fw_custom_op_get_expr (op->custom) != NULL);
      fw_json_member_int (b, "nodes", g_array_index (counts, guint, i));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_decisions (JsonBuilder *b, const FwPlan *plan)
{
  guint n_entries = 0;

  json_builder_set_member_name (b, "decisions");
  json_builder_begin_array (b);
  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);
      json_builder_begin_object (b);
      fw_json_member_int (b, "id", i);
      add_decision_target (b, d);
      json_builder_end_object (b);
      n_entries += d->whitelist;
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "whitelist");
  json_builder_begin_object (b);
  fw_json_member_int (b, "entries", n_entries);
  add_whitelist_list (b, plan, "applied", pick_applied);
  add_whitelist_list (b, plan, "matched_nothing", pick_nothing);
  add_whitelist_list (b, plan, "accepted_refused", pick_accepted_refused);
  add_whitelist_list (b, plan, "other_model", pick_other_model);
  json_builder_end_object (b);
}

void
fw_plan_report_add (JsonNode *report, const FwPlan *plan)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  guint counts[FW_NF_N_CODES] = { 0 };
  gdouble saving = plan->before.time_s - plan->after.time_s;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "profile");
  json_builder_add_string_value (b, plan->profile->name);
  json_builder_set_member_name (b, "strategy");
  json_builder_add_string_value (b, fw_strategy_to_string (plan->options.strategy));
  json_builder_set_member_name (b, "enabled");
  json_builder_add_boolean_value (b, plan->options.enabled);
  fw_json_member_int (b, "max_depth", plan->options.max_depth);
  fw_json_member_int (b, "max_fusion_size", plan->options.max_fusion_size);
  fw_json_member_int (b, "rules", plan->rules ? fw_rule_set_get_n_rules (plan->rules) : 0);
  add_number (b, "ub_budget_bytes", fw_profile_budget_bytes (plan->profile), 0.1);

  json_builder_set_member_name (b, "totals");
  json_builder_begin_object (b);
  add_totals (b, "before", &plan->before);
  add_totals (b, "after", &plan->after);
  add_number (b, "saving_us", saving * 1e6, 0.001);
  add_number (b, "saving_percent", plan->before.time_s > 0 ? 100.0 * saving / plan->before.time_s : 0, 0.01);
  json_builder_end_object (b);
  {
    guint before, after;
    fw_plan_get_node_counts (plan, &before, &after);
    json_builder_set_member_name (b, "node_counts");
    json_builder_begin_object (b);
    fw_json_member_int (b, "before", before);
    fw_json_member_int (b, "after", after);
    json_builder_end_object (b);
  }

  add_custom_ops (b, plan);

  json_builder_set_member_name (b, "candidates");
  json_builder_begin_array (b);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwResourceEstimate *r = fw_candidate_get_resource (c);
      const FwCostEstimate *k = fw_candidate_get_cost (c);

      json_builder_begin_object (b);
      fw_json_member_int (b, "id", c->index);
      json_builder_set_member_name (b, "pattern");
      json_builder_add_string_value (b, c->pattern);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, c->kind);
      json_builder_set_member_name (b, "status");
      json_builder_add_string_value (b, fw_candidate_status_name (c->status));
      if (c->body != NULL)
        fw_json_member_string (b, "body", c->body);
      json_builder_set_member_name (b, "rule");
      if (c->rule)
        json_builder_add_string_value (b, c->rule->name);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "rules_not_met");
      json_builder_begin_array (b);
      for (guint m = 0; c->rule_misses && m < c->rule_misses->len; m++)
        {
          const FwRuleMiss *miss = g_ptr_array_index (c->rule_misses, m);
          json_builder_begin_object (b);
          fw_json_member_string (b, "rule", miss->rule->name);
          fw_json_member_string (b, "file", miss->rule->file);
          fw_json_member_int (b, "line", miss->rule->line);
          fw_json_member_string (b, "condition", miss->condition);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      add_nodes (b, c->nodes);
      json_builder_set_member_name (b, "ops");
      json_builder_begin_array (b);
      for (guint n = 0; n < c->nodes->len; n++)
        json_builder_add_string_value (b, ((FwNode *) g_ptr_array_index (c->nodes, n))->op_type);
      json_builder_end_array (b);
      fw_json_member_int (b, "depth", c->depth);

      json_builder_set_member_name (b, "resource");
      json_builder_begin_object (b);
      fw_json_member_int (b, "tile_elements", r->tile_elements);
      fw_json_member_int (b, "tile_rows", r->tile_rows);
      fw_json_member_int (b, "ub_bytes", (gint64) r->ub_bytes);
      fw_json_member_int (b, "ub_min_bytes", (gint64) r->ub_min_bytes);
      add_number (b, "ub_percent", r->ub_percent, 0.01);
      fw_json_member_int (b, "buffers", r->n_buffers);
      fw_json_member_int (b, "queues", r->queues);
      fw_json_member_int (b, "kernel_inputs", r->kernel_inputs);
      fw_json_member_int (b, "kernel_outputs", r->kernel_outputs);
      json_builder_end_object (b);
      if (c->spec != NULL)
        add_kernel_spec (b, c->spec);

      json_builder_set_member_name (b, "cost");
      json_builder_begin_object (b);
      fw_json_member_int (b, "bytes_read_before", (gint64) k->bytes_read_before);
      fw_json_member_int (b, "bytes_written_before", (gint64) k->bytes_written_before);
      fw_json_member_int (b, "bytes_read_after", (gint64) k->bytes_read_after);
      fw_json_member_int (b, "bytes_written_after", (gint64) k->bytes_written_after);
      fw_json_member_int (b, "hbm_bytes_saved", (gint64) (k->bytes_read_before + k->bytes_written_before
                                                          - k->bytes_read_after - k->bytes_written_after));
      fw_json_member_int (b, "launches_before", k->launches_before);
      fw_json_member_int (b, "launches_after", k->launches_after);
      fw_json_member_int (b, "flops", (gint64) k->flops);
      add_number (b, "time_before_us", k->time_before_s * 1e6, 0.001);
      add_number (b, "time_after_us", k->time_after_s * 1e6, 0.001);
      add_number (b, "saving_us", k->saving_s * 1e6, 0.001);
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  for (guint i = 0; i < plan->refusals->len; i++)
    counts[((FwRefusal *) g_ptr_array_index (plan->refusals, i))->code]++;
  json_builder_set_member_name (b, "refusals_by_code");
  json_builder_begin_array (b);
  for (guint code = 1; code < FW_NF_N_CODES; code++)
    {
      if (counts[code] == 0)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "code");
      json_builder_add_string_value (b, fw_reason_code_string (code));
      json_builder_set_member_name (b, "title");
      json_builder_add_string_value (b, fw_reason_code_title (code));
      fw_json_member_int (b, "count", counts[code]);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "refusals");
  json_builder_begin_array (b);
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "code");
      json_builder_add_string_value (b, fw_reason_code_string (r->code));
      json_builder_set_member_name (b, "cann_code");
      if (fw_reason_cann_code (r) != NULL)
        json_builder_add_string_value (b, fw_reason_cann_code (r));
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, r->message);
      json_builder_set_member_name (b, "candidate");
      if (r->candidate != G_MAXUINT)
        json_builder_add_int_value (b, r->candidate);
      else
        json_builder_add_null_value (b);
      add_nodes (b, r->nodes);
      json_builder_set_member_name (b, "refused");
      if (r->refused != NULL)
        json_builder_add_string_value (b, r->refused->name);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_decisions (b, plan);
  json_builder_end_object (b);

  {
    g_autoptr(JsonNode) node = json_builder_get_root (b);
    json_object_set_member (json_node_get_object (report), "plan", g_steal_pointer (&node));
  }
}

static void
append_totals_row (GString *md, const char *label, JsonObject *t)
{
  g_string_append_printf (md, "| %s | %" PRId64 " | %.1f | %.1f | %.3f |\n", label,
                          json_object_get_int_member (t, "launches"),
                          json_object_get_int_member (t, "bytes_read") / 1e6,
                          json_object_get_int_member (t, "bytes_written") / 1e6,
                          json_object_get_double_member (t, "time_us") / 1e3);
}

static void
append_target (GString *md, JsonObject *d)
{
  JsonNode *nodes = json_object_get_member (d, "nodes");

  if (!json_object_get_null_member (d, "pattern"))
    {
      g_string_append_printf (md, "%s ", _("pattern"));
      fw_markdown_append_cell (md, json_object_get_string_member (d, "pattern"));
    }
  else if (!json_object_get_null_member (d, "candidate"))
    g_string_append_printf (md, "#%" PRId64, json_object_get_int_member (d, "candidate"));
  if (nodes != NULL && JSON_NODE_HOLDS_ARRAY (nodes))
    {
      JsonArray *a = json_node_get_array (nodes);
      if (json_object_get_null_member (d, "candidate"))
        g_string_append (md, _("nodes"));
      g_string_append (md, " `");
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          if (i)
            g_string_append (md, ", ");
          fw_markdown_append_cell (md, json_array_get_string_element (a, i));
        }
      g_string_append_c (md, '`');
    }
}

static void
append_ids_cell (GString *md, JsonArray *ids)
{
  for (guint i = 0; i < json_array_get_length (ids); i++)
    g_string_append_printf (md, "%s#%" PRId64, i ? ", " : "", json_array_get_int_element (ids, i));
}

static void
append_whitelist_list (GString *md, JsonObject *wl, const char *member, const char *title)
{
  JsonArray *list = json_object_get_array_member (wl, member);

  if (json_array_get_length (list) == 0)
    return;
  g_string_append_printf (md, "\n%s:\n\n", title);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonObject *d = json_array_get_object_element (list, i);
      g_string_append (md, "- ");
      fw_markdown_append_cell (md, json_object_get_string_member (d, "source"));
      g_string_append_printf (md, " %s ", json_object_get_string_member (d, "action"));
      append_target (md, d);
      g_string_append_c (md, '\n');
    }
}

static void
decisions_markdown (GString *md, JsonObject *plan)
{
  JsonArray *decisions = json_object_get_array_member (plan, "decisions");
  JsonObject *wl = json_object_get_object_member (plan, "whitelist");

  if (decisions == NULL || json_array_get_length (decisions) == 0)
    return;
  g_string_append_printf (md, "\n### %s\n\n", _("Decisions"));
  g_string_append_printf (md, "| # | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|\n", _("action"), _("target"),
                          _("source"), _("outcome"), _("candidates"));
  for (guint i = 0; i < json_array_get_length (decisions); i++)
    {
      JsonObject *d = json_array_get_object_element (decisions, i);
      g_string_append_printf (md, "| %" PRId64 " | %s | ", json_object_get_int_member (d, "id"),
                              json_object_get_string_member (d, "action"));
      append_target (md, d);
      g_string_append (md, " | ");
      fw_markdown_append_cell (md, json_object_get_string_member (d, "source"));
      if (!json_object_get_null_member (d, "who") || !json_object_get_null_member (d, "why"))
        {
          g_string_append (md, " (");
          if (!json_object_get_null_member (d, "who"))
            fw_markdown_append_cell (md, json_object_get_string_member (d, "who"));
          if (!json_object_get_null_member (d, "who") && !json_object_get_null_member (d, "why"))
            g_string_append (md, ": ");
          if (!json_object_get_null_member (d, "why"))
            fw_markdown_append_cell (md, json_object_get_string_member (d, "why"));
          g_string_append_c (md, ')');
        }
      g_string_append_printf (md, " | %s | ", json_object_get_string_member (d, "outcome"));
      append_ids_cell (md, json_object_get_array_member (d, "matched"));
      if (json_array_get_length (json_object_get_array_member (d, "refused")) > 0)
        {
          g_string_append_printf (md, " (%s ", _("refused:"));
          append_ids_cell (md, json_object_get_array_member (d, "refused"));
          g_string_append_c (md, ')');
        }
      g_string_append (md, " |\n");
    }
  if (wl == NULL || json_object_get_int_member (wl, "entries") == 0)
    return;
  g_string_append_printf (md, "\n### %s\n\n", _("Whitelist"));
  g_string_append_printf (md, _("- %" PRId64 " entries: %u applied, %u matched nothing, %u accepted but refused by the "
                                "planner, %u for another model\n"),
                          json_object_get_int_member (wl, "entries"),
                          json_array_get_length (json_object_get_array_member (wl, "applied")),
                          json_array_get_length (json_object_get_array_member (wl, "matched_nothing")),
                          json_array_get_length (json_object_get_array_member (wl, "accepted_refused")),
                          json_array_get_length (json_object_get_array_member (wl, "other_model")));
  append_whitelist_list (md, wl, "matched_nothing", _("Entries that matched nothing"));
  append_whitelist_list (md, wl, "accepted_refused", _("Accepted entries the planner refused"));
  append_whitelist_list (md, wl, "other_model", _("Entries for another model"));
}

void
fw_plan_report_markdown (GString *md, JsonObject *plan)
{
  JsonObject *totals = json_object_get_object_member (plan, "totals");
  JsonArray *candidates = json_object_get_array_member (plan, "candidates");
  JsonArray *by_code = json_object_get_array_member (plan, "refusals_by_code");
  JsonArray *refusals = json_object_get_array_member (plan, "refusals");
  guint n = json_array_get_length (refusals);

  g_string_append_printf (md, "\n## %s\n\n", _("Fusion plan"));
  g_string_append_printf (md, "- %s: %s, %s: %s, %s: %" PRId64 ", %s: %" PRId64 "\n", _("Profile"),
                          json_object_get_string_member (plan, "profile"), _("strategy"),
                          json_object_get_string_member (plan, "strategy"), _("max depth"),
                          json_object_get_int_member (plan, "max_depth"), _("max fusion size"),
                          json_object_get_int_member (plan, "max_fusion_size"));
  g_string_append_printf (md, "- %s: %u, %s: %.2f%%\n", _("Candidates"), json_array_get_length (candidates),
                          _("estimated time saved"), json_object_get_double_member (totals, "saving_percent"));
  if (json_object_has_member (plan, "custom_ops"))
    {
      JsonArray *used = json_object_get_array_member (plan, "custom_ops");
      g_string_append_printf (md, "- %s:", _("Custom operators"));
      for (guint i = 0; i < json_array_get_length (used); i++)
        {
          JsonObject *op = json_array_get_object_element (used, i);
          g_string_append_printf (md, "%s %s (%s, %s)", i ? "," : "", json_object_get_string_member (op, "op"),
                                  json_object_get_string_member (op, "class"),
                                  json_object_get_string_member (op, "declared_at"));
        }
      g_string_append_c (md, '\n');
    }
  g_string_append_printf (md, "\n| | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("kernels"),
                          _("HBM read (MB)"), _("HBM written (MB)"), _("time (ms)"));
  append_totals_row (md, _("unfused"), json_object_get_object_member (totals, "before"));
  append_totals_row (md, _("fused"), json_object_get_object_member (totals, "after"));

  g_string_append_printf (md, "\n### %s\n\n", _("Candidates"));
  if (json_array_get_length (candidates) == 0)
    g_string_append_printf (md, "%s\n", _("None."));
  else
    g_string_append_printf (md, "| # | %s | %s | %s | %s | %s | %s | %s |\n|---|---|---|---|---|---|---|---|\n",
                            _("pattern"), _("nodes"), _("UB %"), _("HBM saved (KB)"), _("launches saved"),
                            _("time saved (us)"), _("status"));
  for (guint i = 0; i < json_array_get_length (candidates); i++)
    {
      JsonObject *c = json_array_get_object_element (candidates, i);
      JsonObject *r = json_object_get_object_member (c, "resource");
      JsonObject *k = json_object_get_object_member (c, "cost");
      JsonArray *nodes = json_object_get_array_member (c, "nodes");
      JsonArray *ops = json_object_get_array_member (c, "ops");

      g_string_append_printf (md, "| %" PRId64 " | ", json_object_get_int_member (c, "id"));
      fw_markdown_append_cell (md, json_object_get_string_member (c, "pattern"));
      g_string_append (md, " | ");
      for (guint o = 0; o < json_array_get_length (ops); o++)
        {
          if (o)
            g_string_append (md, "→");
          fw_markdown_append_cell (md, json_array_get_string_element (ops, o));
        }
      g_string_append (md, " (");
      if (json_object_has_member (c, "body"))
        {
          fw_markdown_append_cell (md, json_object_get_string_member (c, "body"));
          g_string_append (md, ": ");
        }
      fw_markdown_append_cell (md, json_array_get_string_element (nodes, 0));
      g_string_append_printf (md, ") | %.1f | %.1f | %" PRId64 " | %.3f | %s |\n",
                              json_object_get_double_member (r, "ub_percent"),
                              json_object_get_int_member (k, "hbm_bytes_saved") / 1e3,
                              json_object_get_int_member (k, "launches_before") -
                                json_object_get_int_member (k, "launches_after"),
                              json_object_get_double_member (k, "saving_us"),
                              json_object_get_string_member (c, "status"));
    }

  g_string_append_printf (md, "\n### %s\n\n", _("Refusals"));
  if (json_array_get_length (by_code) == 0)
    g_string_append_printf (md, "%s\n", _("None."));
  else
    {
      g_string_append_printf (md, "| %s | %s | %s |\n|---|---|---|\n", _("code"), _("meaning"), _("count"));
      for (guint i = 0; i < json_array_get_length (by_code); i++)
        {
          JsonObject *o = json_array_get_object_element (by_code, i);
          g_string_append_printf (md, "| %s | %s | %" PRId64 " |\n", json_object_get_string_member (o, "code"),
                                  json_object_get_string_member (o, "title"), json_object_get_int_member (o, "count"));
        }
      g_string_append_c (md, '\n');
      for (guint i = 0; i < n && i < MARKDOWN_MAX_REFUSALS; i++)
        {
          JsonObject *o = json_array_get_object_element (refusals, i);
          JsonArray *nodes = json_object_get_array_member (o, "nodes");
          g_string_append_printf (md, "- %s ", json_object_get_string_member (o, "code"));
          if (json_array_get_length (nodes) > 0)
            {
              g_string_append_c (md, '`');
              fw_markdown_append_cell (md, json_array_get_string_element (nodes, json_array_get_length (nodes) - 1));
              g_string_append (md, "`: ");
            }
          fw_markdown_append_cell (md, json_object_get_string_member (o, "message"));
          g_string_append_c (md, '\n');
        }
      if (n > MARKDOWN_MAX_REFUSALS)
        g_string_append_printf (md, _("- … and %u more in the JSON report\n"), n - MARKDOWN_MAX_REFUSALS);
    }
  decisions_markdown (md, plan);
}
