#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-model-explorer.h"
#include "graph/fw-graph-private.h"
#include "io/fw-file-write.h"
#include "plan/fw-group-namespace.h"
#include "plan/fw-node-refusal.h"

/* Node ids: "n<file index>" for operators, "in:<name>" and "out:<name>" for the graph's inputs and outputs
 * (Model Explorer draws them as nodes of their own). */
static char *
node_id (const FwNode *node)
{
  return g_strdup_printf ("n%u", node->index);
}

static void
add_key_value (JsonBuilder *b, const char *key, const char *value)
{
  g_autofree char *valid = g_utf8_make_valid (value != NULL ? value : "", -1);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "key");
  json_builder_add_string_value (b, key);
  json_builder_set_member_name (b, "value");
  json_builder_add_string_value (b, valid);
  json_builder_end_object (b);
}

/* "float32[1,197,768]", Model Explorer's tensor_shape. */
static char *
tensor_shape (const FwValue *value)
{
  g_autofree char *shape = fw_value_format_shape (value);

  return g_strdup_printf ("%s%s", fw_dtype_name (value->dtype), shape);
}

static void
add_outputs_metadata (JsonBuilder *b, const FwValue * const *outputs, guint n)
{
  json_builder_set_member_name (b, "outputsMetadata");
  json_builder_begin_array (b);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *id = g_strdup_printf ("%u", k);
      g_autofree char *shape = NULL;

      if (outputs[k] == NULL)
        continue;
      shape = tensor_shape (outputs[k]);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_string_value (b, id);
      json_builder_set_member_name (b, "attrs");
      json_builder_begin_array (b);
      add_key_value (b, "tensor_name", outputs[k]->name);
      add_key_value (b, "tensor_shape", shape);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The edge into input slot from value's producer or the graph input node; FALSE for weights (not drawn). */
static gboolean
add_edge (JsonBuilder *b, const FwValue *value, guint slot)
{
  g_autofree char *source = NULL;
  g_autofree char *output = NULL;
  g_autofree char *target = g_strdup_printf ("%u", slot);

  if (value == NULL)
    return FALSE;
  if (value->producer != NULL)
    {
      /* Constant nodes are weights in all but name, as on the canvas. */
      if (value->producer->domain[0] == '\0' && g_strcmp0 (value->producer->op_type, "Constant") == 0)
        return FALSE;
      source = node_id (value->producer);
      output = g_strdup_printf ("%u", value->producer_slot);
    }
  else if (value->is_input && !value->is_initializer)
    {
      source = g_strconcat ("in:", value->name, NULL);
      output = g_strdup ("0");
    }
  else
    return FALSE;
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "sourceNodeId");
  json_builder_add_string_value (b, source);
  json_builder_set_member_name (b, "sourceNodeOutputId");
  json_builder_add_string_value (b, output);
  json_builder_set_member_name (b, "targetNodeInputId");
  json_builder_add_string_value (b, target);
  json_builder_end_object (b);
  return TRUE;
}

/* Its scope, or for a fused node one namespace per group inside the scope the group lies in, so Model
 * Explorer folds a group into one box. */
static char *
namespace_of (const FwPlan *plan, const FwNode *node)
{
  guint c = fw_plan_fused_candidate_of (plan, node);

  if (c == G_MAXUINT)
    return g_strdup (node->scope != NULL ? node->scope : "");
  return fw_plan_group_namespace (plan, c);
}

static void
add_fusion_attrs (JsonBuilder *b, const FwPlan *plan, const FwNode *node)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  g_autofree char *why = NULL;

  if (c != G_MAXUINT)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      g_autofree char *us = g_strdup_printf ("%.3f", fw_candidate_get_cost (cand)->saving_s * 1e6);
      g_autofree char *index = g_strdup_printf ("%u", c);

      add_key_value (b, "fusion_candidate", index);
      add_key_value (b, "fusion_pattern", cand->pattern);
      add_key_value (b, "fusion_status", fw_candidate_status_name (cand->status));
      add_key_value (b, "estimated_saving_us", us);
      return;
    }
  why = fw_plan_describe_unfused (plan, node, 5);
  if (why != NULL)
    add_key_value (b, "not_fused", why);
}

static void
add_node (JsonBuilder *b, const FwPlan *plan, const FwNode *node)
{
  g_autofree char *id = node_id (node);
  g_autofree char *ns = namespace_of (plan, node);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, node->op_type);
  json_builder_set_member_name (b, "namespace");
  json_builder_add_string_value (b, ns);
  json_builder_set_member_name (b, "attrs");
  json_builder_begin_array (b);
  add_key_value (b, "name", node->name);
  if (node->domain[0] != '\0')
    add_key_value (b, "domain", node->domain);
  add_fusion_attrs (b, plan, node);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "incomingEdges");
  json_builder_begin_array (b);
  for (guint i = 0; i < node->n_inputs; i++)
    add_edge (b, node->inputs[i], i);
  json_builder_end_array (b);
  add_outputs_metadata (b, (const FwValue * const *) node->outputs, node->n_outputs);
  json_builder_end_object (b);
}

/* A graph input or output as a node of its own. */
static void
add_boundary (JsonBuilder *b, const FwValue *value, gboolean input)
{
  g_autofree char *id = g_strconcat (input ? "in:" : "out:", value->name, NULL);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, input ? "Input" : "Output");
  json_builder_set_member_name (b, "namespace");
  json_builder_add_string_value (b, "");
  json_builder_set_member_name (b, "attrs");
  json_builder_begin_array (b);
  add_key_value (b, "name", value->name);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "incomingEdges");
  json_builder_begin_array (b);
  if (!input)
    add_edge (b, value, 0);
  json_builder_end_array (b);
  if (input)
    add_outputs_metadata (b, &value, 1);
  json_builder_end_object (b);
}

JsonNode *
fw_model_explorer_graph (FwPlan *plan, const char *label)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  FwGraph *graph;
  g_autofree char *valid = NULL;

  g_return_val_if_fail (plan != NULL, NULL);
  graph = fw_model_get_graph (plan->model);
  valid = g_utf8_make_valid (label != NULL ? label : "", -1);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, valid);
  json_builder_set_member_name (b, "graphs");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, FW_MODEL_EXPLORER_GRAPH_ID);
  json_builder_set_member_name (b, "nodes");
  json_builder_begin_array (b);
  for (guint i = 0; i < graph->inputs->len; i++)
    {
      const FwValue *input = g_ptr_array_index (graph->inputs, i);

      if (!input->is_initializer)
        add_boundary (b, input, TRUE);
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const FwNode *node = g_ptr_array_index (graph->nodes, i);

      if (!(node->domain[0] == '\0' && g_strcmp0 (node->op_type, "Constant") == 0))
        add_node (b, plan, node);
    }
  for (guint i = 0; i < graph->outputs->len; i++)
    add_boundary (b, g_ptr_array_index (graph->outputs, i), FALSE);
  json_builder_end_array (b);
  json_builder_end_object (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* Seconds each candidate's kernel measured saving, NaN where not measured. */
static gdouble *
measured_savings (FwPlan *plan, FwMeasureResult *measure)
{
  gdouble *saved = g_new (gdouble, MAX (plan->candidates->len, 1));

  for (guint i = 0; i < plan->candidates->len; i++)
    saved[i] = NAN;
  for (guint i = 0; measure != NULL && measure->kernels != NULL && i < measure->kernels->len; i++)
    {
      const FwKernelTiming *k = &g_array_index (measure->kernels, FwKernelTiming, i);

      if (k->candidate < plan->candidates->len)
        saved[k->candidate] = k->reference_s - k->kernel_s;
    }
  return saved;
}

static void
add_gradient (JsonBuilder *b)
{
  static const struct { gdouble stop; const char *color; } stops[] = {
    { 0, "#f7fbff" }, { 0.5, "#6baed6" }, { 1, "#08306b" },
  };

  json_builder_set_member_name (b, "gradient");
  json_builder_begin_array (b);
  for (guint i = 0; i < G_N_ELEMENTS (stops); i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "stop");
      json_builder_add_double_value (b, stops[i].stop);
      json_builder_set_member_name (b, "bgColor");
      json_builder_add_string_value (b, stops[i].color);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* A result for node under which, or FALSE when it has none. */
static gboolean
add_result (JsonBuilder *b, FwPlan *plan, const FwNode *node, FwModelExplorerData which, const gdouble *measured)
{
  guint c = fw_plan_fused_candidate_of (plan, node);
  g_autofree char *id = NULL;
  gdouble us;

  if (which == FW_MODEL_EXPLORER_REFUSAL)
    {
      g_autoptr(GPtrArray) refusals = NULL;

      if (c != G_MAXUINT)
        return FALSE;
      refusals = fw_plan_refusals_of_node (plan, node);
      if (refusals->len == 0)
        return FALSE;
      id = node_id (node);
      json_builder_set_member_name (b, id);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "value");
      json_builder_add_string_value (b, fw_reason_code_string (((FwRefusal *) g_ptr_array_index (refusals, 0))->code));
      json_builder_end_object (b);
      return TRUE;
    }
  if (c == G_MAXUINT)
    return FALSE;
  us = which == FW_MODEL_EXPLORER_ESTIMATED_US
    ? fw_candidate_get_cost (g_ptr_array_index (plan->candidates, c))->saving_s * 1e6 : measured[c] * 1e6;
  if (!isfinite (us))
    return FALSE;
  id = node_id (node);
  json_builder_set_member_name (b, id);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "value");
  json_builder_add_double_value (b, us);
  json_builder_end_object (b);
  return TRUE;
}

JsonNode *
fw_model_explorer_node_data (FwPlan *plan, FwMeasureResult *measure, FwModelExplorerData which)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree gdouble *measured = NULL;
  FwGraph *graph;

  g_return_val_if_fail (plan != NULL, NULL);
  graph = fw_model_get_graph (plan->model);
  measured = measured_savings (plan, measure);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "graphsData");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, FW_MODEL_EXPLORER_GRAPH_ID);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "results");
  json_builder_begin_object (b);
  for (guint i = 0; i < graph->nodes->len; i++)
    add_result (b, plan, g_ptr_array_index (graph->nodes, i), which, measured);
  json_builder_end_object (b);
  if (which != FW_MODEL_EXPLORER_REFUSAL)
    add_gradient (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static gboolean
write_json (JsonNode *root, const char *dir, const char *name, GPtrArray *written, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = json_to_string (root, TRUE);

  json_node_unref (root);
  if (!fw_file_write (path, text, -1, error))
    return FALSE;
  if (written != NULL)
    g_ptr_array_add (written, g_steal_pointer (&path));
  return TRUE;
}

gboolean
fw_model_explorer_write (FwPlan *plan, FwMeasureResult *measure, const char *dir, const char *base,
                         GPtrArray *written, GError **error)
{
  g_autofree char *graph_name = g_strconcat (base, ".model-explorer.json", NULL);
  g_autofree char *refusal_name = g_strconcat (base, ".node-data.refusal.json", NULL);
  g_autofree char *estimated_name = g_strconcat (base, ".node-data.estimated-us.json", NULL);
  g_autofree char *measured_name = g_strconcat (base, ".node-data.measured-us.json", NULL);

  g_return_val_if_fail (plan != NULL && dir != NULL && base != NULL, FALSE);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot create the folder: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  return write_json (fw_model_explorer_graph (plan, base), dir, graph_name, written, error) &&
         write_json (fw_model_explorer_node_data (plan, measure, FW_MODEL_EXPLORER_REFUSAL), dir, refusal_name,
                     written, error) &&
         write_json (fw_model_explorer_node_data (plan, measure, FW_MODEL_EXPLORER_ESTIMATED_US), dir,
                     estimated_name, written, error) &&
         (measure == NULL ||
          write_json (fw_model_explorer_node_data (plan, measure, FW_MODEL_EXPLORER_MEASURED_US), dir,
                      measured_name, written, error));
}
