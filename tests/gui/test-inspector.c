/* test-inspector.c: the inspector on one transformer layer: a node's heading, attributes and initializer
 * statistics; a candidate's heading, the reason codes of the refusals near it and its generated source. */
#include "config.h"

#include <gtk/gtk.h>
#include <string.h>

#include "fw-inspector.h"
#include "fw-test-models.h"

static void
drain (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

/* Everything the inspector shows as text, labels and text views alike. */
static void
collect_text (GtkWidget *widget, GString *out)
{
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, "%s\n", gtk_label_get_text (GTK_LABEL (widget)));
  else if (GTK_IS_TEXT_VIEW (widget))
    {
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (widget));
      GtkTextIter start, end;
      g_autofree char *text = NULL;

      gtk_text_buffer_get_bounds (buffer, &start, &end);
      text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      g_string_append_printf (out, "%s\n", text);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_text (child, out);
}

static char *
shown (GtkWidget *inspector)
{
  GString *out = g_string_new (NULL);

  collect_text (inspector, out);
  return g_string_free (out, FALSE);
}

static void
count (gpointer counter)
{
  (*(guint *) counter)++;
}

static void
test_inspector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  FwProfile *profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  FwProject *project;
  FwPlan *plan;
  GtkWidget *window, *inspector;
  FwNode *matmul = NULL;
  guint title_notes = 0, vetoed = G_MAXUINT;
  FwGraph *graph = fw_model_get_graph (model);

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  project = fw_project_new (model, profile, rules, NULL, &error);
  g_assert_no_error (error);
  plan = fw_project_get_plan (project);

  inspector = fw_inspector_new ();
  g_object_ref (inspector);
  window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), inspector);
  g_object_set (inspector, "project", project, NULL);
  gtk_window_present (GTK_WINDOW (window));
  drain ();
  g_assert_cmpstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), ==, "");

  /* A node with a weight: its heading, shapes and the weight's statistics. */
  for (guint i = 0; i < fw_graph_get_n_nodes (graph) && matmul == NULL; i++)
    {
      FwNode *node = fw_graph_get_node (graph, i);
      if (strcmp (fw_node_get_op_type (node), "MatMul") == 0)
        matmul = node;
    }
  g_assert_nonnull (matmul);
  g_signal_connect_swapped (inspector, "notify::title", G_CALLBACK (count), &title_notes);
  fw_inspector_show_node (FW_INSPECTOR (inspector), matmul);
  g_assert_cmpuint (title_notes, ==, 1);
  {
    g_autofree char *title = NULL;
    g_autofree char *text = shown (inspector);

    g_object_get (inspector, "title", &title, NULL);
    g_assert_true (g_str_has_prefix (title, "MatMul "));
    g_assert_nonnull (strstr (title, fw_node_get_name (matmul)));
    g_assert_nonnull (strstr (text, "float32"));
    g_assert_nonnull (strstr (text, "mean"));
  }

  /* A vetoed candidate: its heading and FW-NF-012 among the refusals near it. */
  for (guint i = 0; i < plan->candidates->len && vetoed == G_MAXUINT; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED)
      vetoed = i;
  g_assert_true (fw_project_veto (project, vetoed, &error));
  fw_inspector_show_candidate (FW_INSPECTOR (inspector), vetoed);
  {
    g_autofree char *text = shown (inspector);
    g_autofree char *prefix = g_strdup_printf ("#%u", vetoed);

    g_assert_nonnull (strstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), prefix));
    g_assert_nonnull (strstr (text, "FW-NF-012"));
    g_assert_nonnull (strstr (text, "UB"));
  }
  fw_inspector_clear (FW_INSPECTOR (inspector));
  g_assert_cmpstr (fw_inspector_get_title (FW_INSPECTOR (inspector)), ==, "");
  g_assert_cmpuint (title_notes, ==, 3);

  g_signal_handlers_disconnect_by_data (inspector, &title_notes);
  gtk_window_destroy (GTK_WINDOW (window));
  drain ();
  g_assert_finalize_object (inspector);
  g_assert_finalize_object (project);
  fw_rule_set_free (rules);
  fw_profile_unref (profile);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/views/inspector/node-and-candidate", test_inspector);
  return g_test_run ();
}
