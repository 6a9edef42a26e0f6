/* test-candidate-list.c: the candidate list over one transformer layer in a window on a virtual display:
 * a row per candidate, sorting by a column, filtering by status and text, `v` and `a` deciding through the
 * project, selection signals, property round-trips, and no leak when the window goes. */
#include "config.h"

#include <gtk/gtk.h>
#include <string.h>

#include "fw-candidate-list.h"
#include "fw-test-models.h"
#include "onnx/fw-onnx.h"

static void
drain (void)
{
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
}

static GtkColumnView *
column_view_of (GtkWidget *list)
{
  GtkWidget *scrolled = gtk_widget_get_first_child (list);

  g_assert_true (GTK_IS_SCROLLED_WINDOW (scrolled));
  return GTK_COLUMN_VIEW (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)));
}

static guint
n_rows (GtkWidget *list)
{
  return g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (column_view_of (list))));
}

static FwCandidateItem *
row (GtkWidget *list, guint position)
{
  return g_list_model_get_item (G_LIST_MODEL (gtk_column_view_get_model (column_view_of (list))), position);
}

static void
count (gpointer counter)
{
  (*(guint *) counter)++;
}

static void
remember_selected (FwCandidateList *list, guint candidate, gpointer data)
{
  *(guint *) data = candidate;
}

static void
test_candidate_list (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  FwProfile *profile = fw_test_profile_910b ();
  FwRuleSet *rules = fw_test_builtin_rules ();
  FwProject *project;
  FwPlan *plan;
  GtkWidget *window, *list;
  GtkColumnView *view;
  g_autoptr(GtkColumnViewColumn) nodes_column = NULL;
  guint selected = G_MAXUINT, text_notes = 0, vetoed = G_MAXUINT, max_nodes = 0;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  project = fw_project_new (model, profile, rules, NULL, &error);
  g_assert_no_error (error);
  plan = fw_project_get_plan (project);

  list = fw_candidate_list_new ();
  g_object_ref (list);
  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), list);
  g_object_set (list, "project", project, NULL);
  g_assert_true (fw_candidate_list_get_project (FW_CANDIDATE_LIST (list)) == project);
  gtk_window_present (GTK_WINDOW (window));
  drain ();

  /* A row per candidate. */
  g_assert_cmpuint (n_rows (list), ==, plan->candidates->len);
  g_assert_cmpuint (n_rows (list), >, 2);

  /* Sorting by the nodes column, largest first. */
  view = column_view_of (list);
  for (guint i = 0; nodes_column == NULL && i < g_list_model_get_n_items (gtk_column_view_get_columns (view)); i++)
    {
      GtkColumnViewColumn *column = g_list_model_get_item (gtk_column_view_get_columns (view), i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), "Nodes") == 0)
        nodes_column = column;
      else
        g_object_unref (column);
    }
  g_assert_nonnull (gtk_column_view_column_get_sorter (nodes_column));
  gtk_column_view_sort_by_column (view, nodes_column, GTK_SORT_DESCENDING);
  drain ();
  for (guint i = 0; i < plan->candidates->len; i++)
    max_nodes = MAX (max_nodes, ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->nodes->len);
  {
    g_autoptr(FwCandidateItem) first = row (list, 0);
    g_autoptr(FwCandidateItem) last = row (list, n_rows (list) - 1);
    g_assert_cmpuint (fw_candidate_item_get_n_nodes (first), ==, max_nodes);
    g_assert_cmpuint (fw_candidate_item_get_n_nodes (first), >=, fw_candidate_item_get_n_nodes (last));
  }

  /* Selecting a candidate tells who listens; `v` vetoes it through the project. */
  g_signal_connect (list, "candidate-selected", G_CALLBACK (remember_selected), &selected);
  for (guint i = 0; i < plan->candidates->len && vetoed == G_MAXUINT; i++)
    if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_PROPOSED)
      vetoed = i;
  g_assert_cmpuint (vetoed, !=, G_MAXUINT);
  fw_candidate_list_select (FW_CANDIDATE_LIST (list), vetoed);
  drain ();
  g_assert_cmpuint (selected, ==, vetoed);
  {
    g_autoptr(GArray) chosen = fw_candidate_list_get_selection (FW_CANDIDATE_LIST (list));
    g_assert_cmpuint (chosen->len, ==, 1);
    g_assert_cmpuint (g_array_index (chosen, guint, 0), ==, vetoed);
  }
  g_assert_true (gtk_widget_activate_action (list, "candidates.veto", NULL));
  drain ();
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (plan->candidates, vetoed))->status, ==,
                   FW_CANDIDATE_VETOED);
  g_assert_true (fw_project_can_undo (project));
  /* What re-planning added shows up as rows. */
  g_assert_cmpuint (n_rows (list), ==, plan->candidates->len);

  /* Filtering by status after the veto. */
  fw_candidate_list_set_filter_status (FW_CANDIDATE_LIST (list), "vetoed");
  drain ();
  g_assert_cmpuint (n_rows (list), ==, 1);
  {
    g_autoptr(FwCandidateItem) only = row (list, 0);
    g_assert_cmpuint (fw_candidate_item_get_index (only), ==, vetoed);
  }
  /* Accepting a vetoed row is refused by the plan: the list stays as it was. */
  fw_candidate_list_select (FW_CANDIDATE_LIST (list), vetoed);
  g_assert_true (gtk_widget_activate_action (list, "candidates.accept", NULL));
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (plan->candidates, vetoed))->status, ==,
                   FW_CANDIDATE_VETOED);
  fw_project_undo (project);
  drain ();
  g_assert_cmpuint (n_rows (list), ==, 0);
  fw_candidate_list_set_filter_status (FW_CANDIDATE_LIST (list), "");

  /* Filtering by text: every row left mentions it; no match leaves none. */
  g_signal_connect_swapped (list, "notify::filter-text", G_CALLBACK (count), &text_notes);
  g_object_set (list, "filter-text", "LayerNorm", NULL);
  g_object_set (list, "filter-text", "LayerNorm", NULL);
  g_assert_cmpuint (text_notes, ==, 1);
  drain ();
  g_assert_cmpuint (n_rows (list), >, 0);
  for (guint i = 0; i < n_rows (list); i++)
    {
      g_autoptr(FwCandidateItem) item = row (list, i);
      g_assert_nonnull (strstr (fw_candidate_item_get_search_text (item), "layernorm"));
    }
  fw_candidate_list_set_filter_text (FW_CANDIDATE_LIST (list), "no such thing");
  g_assert_cmpuint (n_rows (list), ==, 0);
  fw_candidate_list_set_filter_text (FW_CANDIDATE_LIST (list), NULL);
  g_assert_cmpuint (n_rows (list), ==, plan->candidates->len);

  /* Property round-trips. */
  {
    g_autofree char *text = NULL;
    g_autofree char *status = NULL;
    g_autoptr(FwProject) got = NULL;

    g_object_set (list, "filter-status", "accepted", NULL);
    g_object_get (list, "filter-text", &text, "filter-status", &status, "project", &got, NULL);
    g_assert_cmpstr (text, ==, "");
    g_assert_cmpstr (status, ==, "accepted");
    g_assert_true (got == project);
    g_object_set (list, "filter-status", "", NULL);
  }

  /* `a` on the first proposed row accepts it. */
  fw_candidate_list_select (FW_CANDIDATE_LIST (list), vetoed);
  g_assert_true (gtk_widget_activate_action (list, "candidates.accept", NULL));
  g_assert_cmpint (((FwCandidate *) g_ptr_array_index (plan->candidates, vetoed))->status, ==,
                   FW_CANDIDATE_ACCEPTED);

  g_signal_handlers_disconnect_by_data (list, &selected);
  g_signal_handlers_disconnect_by_data (list, &text_notes);
  g_clear_object (&nodes_column);
  gtk_window_destroy (GTK_WINDOW (window));
  drain ();
  g_assert_finalize_object (list);
  g_assert_finalize_object (project);
  fw_rule_set_free (rules);
  fw_profile_unref (profile);
}

/* A model whose groups sit in Loop and If bodies: each row names its body, and the body's path finds them. */
static void
test_bodies (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "control-flow", "cflow_vad.onnx",
                                                 NULL);
  g_autoptr(FwModel) model = fw_onnx_load (path, NULL, NULL, &error);
  FwProfile *profile = fw_test_profile_910b ();
  FwProject *project;
  GtkWidget *window, *list;

  g_assert_no_error (error);
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  project = fw_project_new (model, profile, NULL, NULL, &error);
  g_assert_no_error (error);
  list = fw_candidate_list_new ();
  g_object_ref (list);
  window = gtk_window_new ();
  gtk_window_set_child (GTK_WINDOW (window), list);
  g_object_set (list, "project", project, NULL);
  gtk_window_present (GTK_WINDOW (window));
  drain ();
  fw_candidate_list_set_filter_text (FW_CANDIDATE_LIST (list), "/If_0/then_branch");
  drain ();
  g_assert_cmpuint (n_rows (list), >, 0);
  for (guint i = 0; i < n_rows (list); i++)
    {
      g_autoptr(FwCandidateItem) item = row (list, i);
      g_assert_cmpstr (fw_candidate_item_get_body (item), ==, "/If_0/then_branch");
    }
  fw_candidate_list_set_filter_text (FW_CANDIDATE_LIST (list), "/Loop_0/body");
  drain ();
  /* The Loop's own groups and those of the If nested in it. */
  g_assert_cmpuint (n_rows (list), >=, 3);
  gtk_window_destroy (GTK_WINDOW (window));
  drain ();
  g_assert_finalize_object (list);
  g_assert_finalize_object (project);
  fw_profile_unref (profile);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/views/candidate-list/basics", test_candidate_list);
  g_test_add_func ("/views/candidate-list/bodies", test_bodies);
  return g_test_run ();
}
