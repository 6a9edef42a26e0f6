/* Model Explorer's formats: the graph JSON holds every drawn node with edges that name existing nodes,
 * each fused group one namespace inside its scope; the node data files give refused nodes their code and
 * fused ones their group's estimated saving; writing puts the files in a new folder. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-node-refusal.h"
#include "report/fw-model-explorer.h"

static FwPlan *
plan_with (FwModel *model, FwStrategy strategy)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  options.strategy = strategy;
  /* Class-based discovery alone: patterns are the kinds. */
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static FwPlan *
plan_for (FwModel *model)
{
  FwPlanOptions defaults;

  fw_plan_options_init (&defaults);
  return plan_with (model, defaults.strategy);
}

static JsonObject *
node_by_id (JsonArray *nodes, const char *id)
{
  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonObject *n = json_array_get_object_element (nodes, i);

      if (strcmp (json_object_get_string_member (n, "id"), id) == 0)
        return n;
    }
  return NULL;
}

static void
test_graph (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autoptr(JsonNode) root = fw_model_explorer_graph (plan, "block");
  JsonObject *graph = json_array_get_object_element (json_object_get_array_member (json_node_get_object (root),
                                                                                    "graphs"), 0);
  JsonArray *nodes = json_object_get_array_member (graph, "nodes");
  FwGraph *g = fw_model_get_graph (model);
  guint n_fused = 0;

  g_assert_cmpstr (json_object_get_string_member (graph, "id"), ==, FW_MODEL_EXPLORER_GRAPH_ID);
  for (guint i = 0; i < json_array_get_length (nodes); i++)
    {
      JsonArray *edges = json_object_get_array_member (json_array_get_object_element (nodes, i), "incomingEdges");

      for (guint k = 0; k < json_array_get_length (edges); k++)
        g_assert_nonnull (node_by_id (nodes, json_object_get_string_member (json_array_get_object_element (edges, k),
                                                                             "sourceNodeId")));
    }
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      const char *first_ns = NULL;

      if (cand->status != FW_CANDIDATE_PROPOSED)
        continue;
      for (guint k = 0; k < cand->nodes->len; k++)
        {
          const FwNode *node = g_ptr_array_index (cand->nodes, k);
          g_autofree char *id = NULL;
          JsonObject *n;
          const char *ns;

          for (guint i = 0; i < fw_graph_get_n_nodes (g); i++)
            if (fw_graph_get_node (g, i) == node)
              id = g_strdup_printf ("n%u", i);
          n = node_by_id (nodes, id);
          g_assert_nonnull (n);
          ns = json_object_get_string_member (n, "namespace");
          g_assert_nonnull (strstr (ns, "fused_"));
          if (first_ns == NULL)
            first_ns = ns;
          /* One namespace per group. */
          g_assert_cmpstr (ns, ==, first_ns);
        }
      n_fused++;
    }
  g_assert_cmpuint (n_fused, >, 0);
}

static void
test_node_data (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  /* Under balanced the whole block fuses; conservative keeps reductions and the attention apart, each with
   * its code. */
  g_autoptr(FwPlan) plan = plan_with (model, FW_STRATEGY_CONSERVATIVE);
  g_autoptr(JsonNode) refusal = fw_model_explorer_node_data (plan, NULL, FW_MODEL_EXPLORER_REFUSAL);
  g_autoptr(JsonNode) estimated = fw_model_explorer_node_data (plan, NULL, FW_MODEL_EXPLORER_ESTIMATED_US);
  g_autoptr(JsonNode) measured = fw_model_explorer_node_data (plan, NULL, FW_MODEL_EXPLORER_MEASURED_US);
  JsonObject *results;
  GList *members;

  results = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (
    json_node_get_object (refusal), "graphsData"), FW_MODEL_EXPLORER_GRAPH_ID), "results");
  members = json_object_get_members (results);
  g_assert_nonnull (members);
  for (GList *l = members; l != NULL; l = l->next)
    g_assert_true (g_str_has_prefix (json_object_get_string_member (json_object_get_object_member (results, l->data),
                                                                    "value"), "FW-NF-"));
  g_list_free (members);

  results = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (
    json_node_get_object (estimated), "graphsData"), FW_MODEL_EXPLORER_GRAPH_ID), "results");
  g_assert_cmpuint (json_object_get_size (results), >, 0);
  /* Nothing measured, nothing to show. */
  results = json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (
    json_node_get_object (measured), "graphsData"), FW_MODEL_EXPLORER_GRAPH_ID), "results");
  g_assert_cmpuint (json_object_get_size (results), ==, 0);
}

static void
test_write (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autoptr(FwPlan) plan = plan_for (model);
  g_autofree char *tmp = fw_test_temp_dir ();
  g_autofree char *dir = g_build_filename (tmp, "me", "out", NULL);
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_model_explorer_write (plan, NULL, dir, "block", written, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (written->len, ==, 3);
  for (guint i = 0; i < written->len; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();

      g_assert_true (json_parser_load_from_file (parser, g_ptr_array_index (written, i), &error));
      g_assert_no_error (error);
    }
  g_assert_true (g_str_has_suffix (g_ptr_array_index (written, 0), "block.model-explorer.json"));
  fw_test_remove_dir (tmp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_test_add_func ("/core/model-explorer/graph", test_graph);
  g_test_add_func ("/core/model-explorer/node-data", test_node_data);
  g_test_add_func ("/core/model-explorer/write", test_write);
  return g_test_run ();
}
