/* test-window.c: the real workbench window, in-process on a virtual display: it opens the example model,
 * plans and lays it out off the main thread, takes decisions through the window's actions as the keyboard
 * would, saves and restores the session, and leaves a screenshot (window.png) in the build folder. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fw-application.h"
#include "fw-compare-window.h"
#include "fw-export-dialog.h"
#include "fw-preferences.h"
#include "plan/fw-plan-diff.h"
#include "fw-settings.h"
#include "fw-test-models.h"
#include "fw-window-private.h"
#include "fw-window-test-support.h"

static char *tmp_dir;

static FwCandidateStatus
status_of (FwWindow *window, guint candidate)
{
  FwPlan *plan = fw_project_get_plan (fw_window_get_project (window));
  const FwCandidate *c = g_ptr_array_index (plan->candidates, candidate);

  return c->status;
}

/* The first two proposed candidates. */
static void
find_proposed (FwWindow *window, guint *first, guint *second)
{
  FwPlan *plan = fw_project_get_plan (fw_window_get_project (window));

  *first = *second = G_MAXUINT;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (c->status != FW_CANDIDATE_PROPOSED)
        continue;
      if (*first == G_MAXUINT)
        *first = i;
      else if (*second == G_MAXUINT)
        *second = i;
    }
  g_assert_cmpuint (*first, !=, G_MAXUINT);
  g_assert_cmpuint (*second, !=, G_MAXUINT);
}

/* The first actionable widget under widget bound to action (e.g. "win.accept"). */
static GtkWidget *
find_actionable (GtkWidget *widget, const char *action)
{
  if (GTK_IS_ACTIONABLE (widget) &&
      g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_actionable (child, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static AdwMessageDialog *
find_message_dialog (void)
{
  /* Owned by GTK. */
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

static void
test_window_workflow (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *model_path = g_build_filename (tmp_dir, "encoder-block.onnx", NULL);
  g_autofree char *session_path = g_build_filename (tmp_dir, "encoder-block.fwsession", NULL);
  g_autofree char *screenshot = g_test_build_filename (G_TEST_BUILT, "window.png", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (model_path);
  g_autoptr(GError) error = NULL;
  AdwMessageDialog *dialog;
  FwWindow *window;
  gsize length = 0;
  guint first, second;

  /* The model is copied so the session is written beside the copy, never into the source tree. */
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));

  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_null (fw_window_get_project (window));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-session"));
  /* The shortcuts window comes from the application's resources (gtk/help-overlay.ui). */
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "show-help-overlay"));

  fw_window_open (window, file);
  g_assert_true (fw_window_get_busy (window));
  fw_window_test_wait_loaded (window);
  /* batch=8 from the default bindings made the symbolic example plannable. */
  g_assert_cmpuint (fw_project_get_plan (fw_window_get_project (window))->candidates->len, >, 1);
  g_assert_cmpstr (fw_project_get_session_path (fw_window_get_project (window)), ==, session_path);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-session"));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));

  /* The model is among the recent files of the primary menu. */
  {
    gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    while (g_menu_model_get_n_items (G_MENU_MODEL (window->recent_section)) == 0)
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_main_context_iteration (NULL, FALSE);
        g_usleep (1000);
      }
  }

  /* Accept the first proposed candidate through the list's selection, veto the second, undo the veto. */
  find_proposed (window, &first, &second);
  fw_candidate_list_select (window->candidate_list, first);
  g_action_group_activate_action (G_ACTION_GROUP (window), "accept", NULL);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_ACCEPTED);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "undo"));

  fw_candidate_list_select (window->candidate_list, second);
  g_action_group_activate_action (G_ACTION_GROUP (window), "veto", NULL);
  g_assert_cmpint (status_of (window, second), ==, FW_CANDIDATE_VETOED);

  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_assert_cmpint (status_of (window, second), ==, FW_CANDIDATE_PROPOSED);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_ACCEPTED);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "redo"));

  /* The pictures follow the project; a point of the roofline selects its candidate in the list. */
  g_assert_true (fw_roofline_view_get_project (window->roofline_view) == fw_window_get_project (window));
  g_assert_true (fw_summary_view_get_project (window->summary_view) == fw_window_get_project (window));
  gtk_stack_set_visible_child_name (window->side_stack, "roofline");
  fw_window_test_iterate (200);
  /* A page just shown is sized on a later frame: on a loaded machine that can take most of a second. */
  for (guint waited = 0; waited < 10000 && (gtk_widget_get_width (GTK_WIDGET (window->roofline_view)) == 0 ||
                                            gtk_widget_get_height (GTK_WIDGET (window->roofline_view)) == 0);
       waited += 50)
    fw_window_test_iterate (50);
  {
    GtkWidget *widget = GTK_WIDGET (window->roofline_view);
    FwPlan *plan = fw_project_get_plan (fw_window_get_project (window));
    gint w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
    gdouble x = 0, y = 0;
    guint target = G_MAXUINT;
    g_autoptr(GArray) selection = NULL;

    /* A candidate whose point no other shares (identical groups, such as the encoder's two head-split
       copies, draw at one place and a click there picks either). */
    for (guint i = 0; i < plan->candidates->len && target == G_MAXUINT; i++)
      {
        gboolean alone = fw_roofline_locate (fw_roofline_view_get_data (window->roofline_view), w, h, i, TRUE, &x, &y);
        for (guint j = 0; alone && j < plan->candidates->len; j++)
          {
            gdouble ox = 0, oy = 0;
            if (j != i && fw_roofline_locate (fw_roofline_view_get_data (window->roofline_view), w, h, j, TRUE, &ox, &oy) &&
                fabs (ox - x) < 6 && fabs (oy - y) < 6)
              alone = FALSE;
          }
        if (alone)
          target = i;
      }
    g_assert_cmpuint (target, !=, G_MAXUINT);
    g_assert_true (fw_roofline_locate (fw_roofline_view_get_data (window->roofline_view), w, h, target, TRUE, &x, &y));
    fw_roofline_view_click (window->roofline_view, x, y);
    selection = fw_candidate_list_get_selection (window->candidate_list);
    g_assert_cmpuint (selection->len, ==, 1);
    g_assert_cmpuint (g_array_index (selection, guint, 0), ==, target);
    g_assert_cmpuint (fw_roofline_view_get_selected_candidate (window->roofline_view), ==, target);
  }
  gtk_stack_set_visible_child_name (window->side_stack, "candidates");

  g_action_group_activate_action (G_ACTION_GROUP (window), "save-session", NULL);
  g_assert_true (g_file_test (session_path, G_FILE_TEST_IS_REGULAR));

  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-in", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);

  /* Opening the model again offers the saved session; restoring it brings the accepted candidate back. */
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "restore");
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_ACCEPTED);
  g_assert_cmpstr (fw_project_get_session_path (fw_window_get_project (window)), ==, session_path);

  /* A picture of the restored decision selected, the graph fitted once allocated (the README shows a real
   * model's, from test-window-sees). */
  fw_candidate_list_select (window->candidate_list, first);
  fw_window_test_iterate (300);
  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);
  fw_window_test_iterate (500);
  fw_window_test_save_png (GTK_WIDGET (window), screenshot);
  g_test_message ("screenshot: %s", screenshot);

  g_action_group_activate_action (G_ACTION_GROUP (window), "close", NULL);
  fw_window_test_iterate (100);
  g_assert_null (gtk_application_get_active_window (GTK_APPLICATION (app)));
}

static void
test_window_bad_model (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *path = g_build_filename (tmp_dir, "broken.onnx", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  FwWindow *window;

  g_assert_true (g_file_set_contents (path, "\x0a\xff\xff\xff\xff\x0f not a model", -1, &error));
  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  while (fw_window_get_busy (window))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
    }
  /* The error page names the file; there is no project. */
  g_assert_null (fw_window_get_project (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "error");
  g_assert_nonnull (strstr (adw_status_page_get_title (window->error_page), "broken.onnx"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
wait_while_busy (FwWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;

  while (fw_window_get_busy (window))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* A window opening file with rules and whitelists as from the command line. */
static FwWindow *
open_with_lists (FwApplication *app, GFile *file, const char * const *rules, const char * const *whitelists)
{
  FwWindow *window = fw_window_new (ADW_APPLICATION (app));

  fw_window_set_open_files (window, rules, whitelists);
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  return window;
}

/* Rules and whitelists from the command line (fw_window_set_open_files) go through the same FwOpen as
 * batch mode: the rule is in the plan, the whitelist's veto applied; a bad whitelist is an error page that
 * names it. */
static void
test_window_rules_and_whitelists (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *dir = g_build_filename (tmp_dir, "lists", NULL);
  g_autofree char *path = g_build_filename (dir, "encoder-block.onnx", NULL);
  g_autofree char *rules = g_build_filename (dir, "team.yaml", NULL);
  g_autofree char *veto = g_build_filename (dir, "veto.fusion.yaml", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.fusion.yaml", NULL);
  g_autofree char *other = g_build_filename (dir, "other.fusion.yaml", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *rule_list[] = { rules, NULL };
  const char *white_lists[] = { veto, NULL };
  const char *bad_lists[] = { bad, NULL };
  const char *other_lists[] = { other, NULL };
  FwWindow *window;
  FwPlan *plan;
  guint n_vetoed = 0;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_true (g_file_set_contents (rules, "version: 1\nrules:\n  - name: team_rule\n    pattern: [Add, Relu]\n",
                                      -1, &error));
  g_assert_true (g_file_set_contents (veto, "version: 1\nentries:\n  - pattern: layernorm\n    decision: veto\n",
                                      -1, &error));
  g_assert_true (g_file_set_contents (bad, "version: 1\nentries:\n  - pattern: layernorm\n    decision: perhaps\n",
                                      -1, &error));
  g_assert_true (g_file_set_contents (other, "version: 1\nmodel:\n  file: \"other.onnx\"\n  fingerprint: \""
                                      "0000000000000000000000000000000000000000000000000000000000000000\"\n"
                                      "entries:\n  - nodes: [\"a\", \"b\"]\n    decision: accept\n", -1, &error));
  fw_window_test_register (app);
  window = open_with_lists (app, file, rule_list, white_lists);
  fw_window_test_wait_loaded (window);
  plan = fw_project_get_plan (fw_window_get_project (window));
  g_assert_nonnull (fw_rule_set_lookup (plan->rules, "team_rule"));
  for (guint i = 0; i < plan->candidates->len; i++)
    n_vetoed += ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_VETOED;
  g_assert_cmpuint (n_vetoed, >, 0);
  {
    g_autofree char *summary = fw_window_whitelist_summary (plan);

    g_assert_cmpstr (summary, ==, "Whitelist applied: 1 entry");
  }

  /* A pattern-level veto through the window's action, and its undo. */
  {
    guint first, second;
    g_autofree char *pattern = NULL;

    find_proposed (window, &first, &second);
    pattern = g_strdup (((FwCandidate *) g_ptr_array_index (plan->candidates, first))->pattern);
    g_action_group_activate_action (G_ACTION_GROUP (window), "veto-pattern", g_variant_new_string (pattern));
    g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_VETOED);
    g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
    g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);

    /* The same by mouse: the inspector's buttons for the selected candidate. */
    fw_candidate_list_select (window->candidate_list, first);
    fw_window_test_iterate (50);
    {
      GtkWidget *accept = find_actionable (GTK_WIDGET (window->inspector), "win.accept");

      g_assert_nonnull (accept);
      g_assert_true (gtk_widget_is_sensitive (accept));
      g_signal_emit_by_name (accept, "clicked");
      g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_ACCEPTED);
      g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
      g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);
      g_assert_nonnull (find_actionable (GTK_WIDGET (window->inspector), "win.veto"));
    }
  }
  gtk_window_destroy (GTK_WINDOW (window));

  /* A whitelist written for another model changes nothing, and the window says so. */
  window = open_with_lists (app, file, NULL, other_lists);
  fw_window_test_wait_loaded (window);
  {
    g_autofree char *summary = fw_window_whitelist_summary (fw_project_get_plan (fw_window_get_project (window)));

    g_assert_nonnull (summary);
    g_assert_nonnull (strstr (summary, "0 of 1 entries applied (1 for another model"));
  }
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_with_lists (app, file, NULL, bad_lists);
  wait_while_busy (window);
  g_assert_null (fw_window_get_project (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->stack), ==, "error");
  g_assert_nonnull (strstr (adw_status_page_get_description (window->error_page), "bad.fusion.yaml:4:15"));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
on_export_finished (FwExportDialog *dialog, gboolean success, gpointer user_data)
{
  int *result = user_data;

  *result = success ? 1 : 0;
}

/* Runs until the dialog's export has finished: 1 success, 0 failure. */
static int
wait_export (FwExportDialog *dialog)
{
  gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;
  int result = -1;
  gulong handler = g_signal_connect (dialog, "finished", G_CALLBACK (on_export_finished), &result);

  g_object_ref (dialog);
  fw_export_dialog_start (dialog);
  while (result < 0)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_signal_handler_disconnect (dialog, handler);
  g_object_unref (dialog);
  return result;
}

/* Cancels as soon as the export has started, checking that the plan is held still meanwhile. */
static void
on_running_cancel (FwExportDialog *dialog, GParamSpec *pspec, gpointer user_data)
{
  if (!fw_export_dialog_get_running (dialog))
    return;
  g_assert_true (fw_project_get_busy (FW_PROJECT (user_data)));
  fw_export_dialog_cancel (dialog);
}

static gboolean
action_enabled (FwWindow *window, const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

/* Compile and verify from the window, then the export dialog: both in the background with the plan held
 * still, results in the list and the inspector's details, files in the chosen folder; a cancelled export
 * leaves no half-written package. */
static void
test_window_check_and_export (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "check", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *out = g_build_filename (work, "export", NULL);
  g_autofree char *cancelled_out = g_build_filename (work, "cancelled", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  FwExportDialog *dialog;
  FwProject *project;
  FwPlan *plan;
  FwWindow *window;
  gsize length = 0;
  guint n_fused = 0, n_twin = 0;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);

  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_false (action_enabled (window, "check"));
  g_assert_false (action_enabled (window, "export"));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  project = fw_window_get_project (window);
  plan = fw_project_get_plan (project);
  g_assert_true (action_enabled (window, "check"));

  g_action_group_activate_action (G_ACTION_GROUP (window), "check", NULL);
  /* Running: the plan may not change, nothing else may start, the progress bar shows. */
  g_assert_true (fw_window_get_busy (window));
  g_assert_true (fw_project_get_busy (project));
  g_assert_false (action_enabled (window, "accept"));
  g_assert_false (action_enabled (window, "export"));
  g_assert_false (action_enabled (window, "check"));
  /* The progress bar comes in after a moment of work, while it still runs. */
  {
    gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;

    while (fw_window_get_busy (window) && !gtk_revealer_get_reveal_child (window->progress_revealer))
      {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        g_main_context_iteration (NULL, FALSE);
        g_usleep (1000);
      }
  }
  g_assert_true (!fw_window_get_busy (window) || gtk_revealer_get_reveal_child (window->progress_revealer));
  wait_while_busy (window);
  g_assert_false (gtk_revealer_get_reveal_child (window->progress_revealer));
  g_assert_false (fw_project_get_busy (project));
  g_assert_true (action_enabled (window, "accept"));
  g_assert_nonnull (fw_window_get_last_check (window));
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (fw_project_get_candidates (project), i);
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (c->status != FW_CANDIDATE_PROPOSED && c->status != FW_CANDIDATE_ACCEPTED)
        continue;
      n_fused++;
      g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "pass");
      g_assert_nonnull (strstr (fw_project_get_check_detail (project, i), "max abs error"));
      /* Verify ran every Ascend kernel on the twin: its verdict is beside the host's. */
      if (strstr (fw_project_get_check_detail (project, i), "Ascend C kernel: generated") != NULL)
        {
          g_assert_cmpstr (fw_candidate_item_get_twin (item), ==, "pass");
          n_twin++;
        }
      else
        g_assert_cmpstr (fw_candidate_item_get_twin (item), ==, "");
    }
  g_assert_cmpuint (n_fused, >, 0);
  g_assert_cmpuint (n_twin, >, 0);

  /* A cancelled export: the dialog stays, says so, and no kernel package was left half-written. */
  dialog = FW_EXPORT_DIALOG (fw_window_show_export (window));
  g_assert_nonnull (dialog);
  fw_export_dialog_set_folder (dialog, cancelled_out);
  g_signal_connect (dialog, "notify::running", G_CALLBACK (on_running_cancel), project);
  g_assert_cmpint (wait_export (dialog), ==, 0);
  g_signal_handlers_disconnect_by_func (dialog, on_running_cancel, project);
  g_assert_nonnull (fw_export_dialog_get_error (dialog));
  g_assert_false (fw_project_get_busy (project));
  g_assert_false (fw_window_get_busy (window));
  {
    g_autofree char *manifest = g_build_filename (cancelled_out, "kernels", "manifest.json", NULL);
    g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
  }

  /* The export itself, every part, into another folder; the dialog closes when done. */
  fw_export_dialog_set_folder (dialog, out);
  fw_export_dialog_set_contents (dialog, TRUE, TRUE, TRUE, TRUE);
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  g_assert_cmpint (wait_export (dialog), ==, 1);
  fw_window_test_iterate (100);
  g_assert_null (dialog);
  {
    const char *names[] = { "encoder-block.fused.onnx", "encoder-block.fusion.yaml", "kernels/manifest.json",
                            "encoder-block.report.json", "encoder-block.report.md",
                            "encoder-block.model-explorer.json", "encoder-block.node-data.refusal.json",
                            "encoder-block.node-data.estimated-us.json" };

    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
      {
        g_autofree char *path = g_build_filename (out, names[i], NULL);
        g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      }
  }
  /* The check of this same plan went into the report. */
  {
    g_autofree char *json = g_build_filename (out, "encoder-block.report.json", NULL);
    g_autofree char *text = NULL;

    g_assert_true (g_file_get_contents (json, &text, NULL, &error));
    g_assert_nonnull (strstr (text, "\"verification\""));
  }
  g_assert_false (fw_project_get_busy (project));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Closing the window while a check runs, and while an export runs: the work is cancelled, the project is
 * released from busy, and nothing touches the destroyed widgets (criticals are fatal here). */
static void
test_window_close_while_busy (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "close", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *out = g_build_filename (work, "export", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  fw_window_test_register (app);

  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (model_path);
      g_autoptr(FwProject) project = NULL;
      FwWindow *window = fw_window_new (ADW_APPLICATION (app));
      gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;

      gtk_window_present (GTK_WINDOW (window));
      fw_window_open (window, file);
      fw_window_test_wait_loaded (window);
      project = g_object_ref (fw_window_get_project (window));
      if (round == 0)
        g_action_group_activate_action (G_ACTION_GROUP (window), "check", NULL);
      else
        {
          FwExportDialog *dialog = FW_EXPORT_DIALOG (fw_window_show_export (window));

          fw_export_dialog_set_folder (dialog, out);
          fw_export_dialog_start (dialog);
          g_assert_true (fw_export_dialog_get_running (dialog));
        }
      g_assert_true (fw_project_get_busy (project));
      gtk_window_close (GTK_WINDOW (window));
      while (fw_project_get_busy (project))
        {
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          g_main_context_iteration (NULL, FALSE);
          g_usleep (1000);
        }
      fw_window_test_iterate (100);
    }
}

/* The preferences' operator registries: a model with custom ops opens with them fused; without the key they
 * are opaque again at the next open. */
static void
test_window_custom_ops (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autoptr(GSettings) settings = fw_settings_new ();
  g_autoptr(FwModel) model = fw_test_custom_op_model (4, 64);
  g_autofree char *dir = g_build_filename (tmp_dir, "custom-ops", NULL);
  g_autofree char *path = g_build_filename (dir, "custom.onnx", NULL);
  g_autofree char *ops = g_build_filename (dir, "ops.yaml", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *ops_list[] = { ops, NULL };
  FwWindow *window;
  FwPlan *plan;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_true (g_file_set_contents (ops, FW_TEST_CUSTOM_OPS_YAML, -1, &error));
  g_assert_true (g_settings_set_strv (settings, "ops", ops_list));
  fw_window_test_register (app);
  for (guint round = 0; round < 2; round++)
    {
      window = fw_window_new (ADW_APPLICATION (app));
      gtk_window_present (GTK_WINDOW (window));
      fw_window_open (window, file);
      fw_window_test_wait_loaded (window);
      plan = fw_project_get_plan (fw_window_get_project (window));
      if (round == 0)
        {
          g_assert_cmpuint (plan->candidates->len, ==, 1);
          g_assert_cmpuint (((FwCandidate *) g_ptr_array_index (plan->candidates, 0))->nodes->len, ==, 3);
        }
      else
        g_assert_cmpuint (plan->candidates->len, ==, 0);
      gtk_window_destroy (GTK_WINDOW (window));
      g_settings_reset (settings, "ops");
    }
}

/* A model whose symbolic dim has no size (the example with the preferences' batch=8 removed): the banner
 * names it with an entry, the list says why nothing is fused; a size that is not a number is refused; a
 * good one opens the model again planned, and the banner goes. */
static void
test_window_symbolic_dims (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autoptr(GSettings) settings = fw_settings_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "dims", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  const char *none[] = { NULL };
  g_auto(GStrv) unbound = NULL;
  GtkEditable *entry;
  FwWindow *window;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);
  g_assert_true (g_settings_set_strv (settings, "bindings", none));

  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  unbound = fw_window_get_unbound_symbols (window);
  g_assert_cmpuint (g_strv_length (unbound), ==, 1);
  g_assert_cmpstr (unbound[0], ==, "batch");
  g_assert_true (gtk_revealer_get_reveal_child (window->dims_revealer));
  g_assert_nonnull (strstr (gtk_label_get_text (window->dims_label), "batch"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window->empty_plan_label)));
  g_assert_nonnull (strstr (gtk_label_get_text (window->empty_plan_label), "batch"));
  g_assert_nonnull (strstr (gtk_label_get_text (window->empty_plan_label), "FW-NF-006"));

  entry = fw_window_dims_get_entry (window, "batch");
  g_assert_nonnull (entry);
  gtk_editable_set_text (entry, "eight");
  g_assert_false (fw_window_dims_apply (window));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "error"));
  g_assert_false (fw_window_get_busy (window));

  gtk_editable_set_text (entry, "8");
  g_signal_emit_by_name (window->dims_apply, "clicked");
  g_assert_true (fw_window_get_busy (window));
  fw_window_test_wait_loaded (window);
  g_assert_cmpuint (fw_project_get_plan (fw_window_get_project (window))->candidates->len, >, 1);
  g_clear_pointer (&unbound, g_strfreev);
  unbound = fw_window_get_unbound_symbols (window);
  g_assert_cmpuint (g_strv_length (unbound), ==, 0);
  g_assert_false (gtk_revealer_get_reveal_child (window->dims_revealer));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (window->empty_plan_label)));
  g_assert_true (g_strv_contains (fw_project_get_bindings (fw_window_get_project (window)), "batch=8"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_settings_reset (settings, "bindings");
}

/* The list's row menu: Accept and Veto, then the row's whole pattern, each one decision to undo; it opens
 * from the keyboard too. */
static void
test_window_list_menu (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "menu", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *pattern = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GMenuModel) menu = NULL;
  GVariant *target = NULL;
  GtkWidget *popover = NULL;
  FwWindow *window;
  FwPlan *plan;
  gsize length = 0;
  guint first, second, n_vetoed = 0;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);
  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  plan = fw_project_get_plan (fw_window_get_project (window));
  find_proposed (window, &first, &second);
  pattern = g_strdup (((FwCandidate *) g_ptr_array_index (plan->candidates, first))->pattern);

  menu = fw_candidate_list_context_menu (window->candidate_list, first);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 2);
  {
    GMenuModel *rows = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
    GMenuModel *whole = g_menu_model_get_item_link (menu, 1, G_MENU_LINK_SECTION);
    g_autofree char *action = NULL;

    g_assert_cmpint (g_menu_model_get_n_items (rows), ==, 2);
    g_assert_cmpint (g_menu_model_get_n_items (whole), ==, 2);
    g_assert_true (g_menu_model_get_item_attribute (whole, 1, G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr (action, ==, "win.veto-pattern");
    target = g_menu_model_get_item_attribute_value (whole, 1, G_MENU_ATTRIBUTE_TARGET, G_VARIANT_TYPE_STRING);
    g_assert_cmpstr (g_variant_get_string (target, NULL), ==, pattern);
    g_object_unref (rows);
    g_object_unref (whole);
  }
  /* What the menu entry does: every candidate of the pattern vetoed, one undo away. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "veto-pattern", target);
  g_variant_unref (target);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (g_strcmp0 (c->pattern, pattern) == 0)
        {
          g_assert_cmpint (c->status, ==, FW_CANDIDATE_VETOED);
          n_vetoed++;
        }
    }
  g_assert_cmpuint (n_vetoed, >, 0);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);

  /* Menu (or Shift+F10) on the selected row opens it. */
  fw_candidate_list_select (window->candidate_list, first);
  fw_window_test_iterate (100);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window->candidate_list), "candidates.menu", NULL));
  fw_window_test_iterate (200);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (window->candidate_list)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER_MENU (child))
      popover = child;
  g_assert_nonnull (popover);
  g_assert_true (gtk_widget_get_visible (popover));
  gtk_popover_popdown (GTK_POPOVER (popover));
  gtk_window_destroy (GTK_WINDOW (window));
}

static FwCompareWindow *
find_compare_window (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (FW_IS_COMPARE_WINDOW (window))
        return FW_COMPARE_WINDOW (window);
    }
  return NULL;
}

/* Compare with a strategy: after a veto, the plan against the balanced one has the vetoed fusion only
 * there; activating that row finds its first node on the canvas. */
static void
test_window_compare (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "compare", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  FwCompareWindow *compare;
  FwWindow *window;
  GArray *diff;
  gsize length = 0;
  guint first, second, counts[4];
  gint64 deadline;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);
  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  find_proposed (window, &first, &second);
  fw_candidate_list_select (window->candidate_list, first);
  g_action_group_activate_action (G_ACTION_GROUP (window), "veto", NULL);

  g_action_group_activate_action (G_ACTION_GROUP (window), "compare", g_variant_new_string ("balanced"));
  compare = find_compare_window ();
  g_assert_nonnull (compare);
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (!fw_compare_window_get_ready (compare))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  diff = fw_compare_window_get_diff (compare);
  fw_plan_diff_count (diff, counts);
  g_test_message ("against balanced: %u only there, %u only here, %u changed, %u the same", counts[FW_PLAN_DIFF_ADDED],
                  counts[FW_PLAN_DIFF_REMOVED], counts[FW_PLAN_DIFF_CHANGED], counts[FW_PLAN_DIFF_SAME]);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_ADDED] + counts[FW_PLAN_DIFF_CHANGED], >=, 1);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_SAME], >, 0);
  /* The first row listed: its fusion here is selected, or for one only the other plan has, its first node. */
  for (guint i = 0; i < diff->len; i++)
    {
      const FwPlanDiffEntry *e = &g_array_index (diff, FwPlanDiffEntry, i);

      if (e->kind == FW_PLAN_DIFF_SAME)
        continue;
      fw_compare_window_activate_row (compare, 0);
      if (e->a != G_MAXUINT)
        {
          g_autoptr(GArray) selection = fw_candidate_list_get_selection (window->candidate_list);

          g_assert_cmpuint (selection->len, ==, 1);
          g_assert_cmpuint (g_array_index (selection, guint, 0), ==, e->a);
        }
      else
        g_assert_nonnull (fw_graph_view_get_selected_node (window->graph_view));
      break;
    }
  gtk_window_destroy (GTK_WINDOW (compare));

  /* Against a session: the veto saved there, undone here, shows as a fusion only here or changed. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "save-session", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo", NULL);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);
  compare = fw_compare_window_new_for_session (window, fw_project_get_session_path (fw_window_get_project (window)));
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (!fw_compare_window_get_ready (compare))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  fw_plan_diff_count (fw_compare_window_get_diff (compare), counts);
  g_assert_cmpuint (counts[FW_PLAN_DIFF_REMOVED] + counts[FW_PLAN_DIFF_CHANGED], >=, 1);
  gtk_window_destroy (GTK_WINDOW (compare));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
wait_fused (FwWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!fw_window_get_fused_view_ready (window))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* The fused view: each fused group one box labelled with its namespace, count and time saved, the selected
 * fusion still selected; a veto lays it out again without that group; off again, the graph as it is. */
static void
test_window_fused_view (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "fused", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  FwWindow *window;
  FwLayout *fused;
  const FwCandidate *c;
  const FwLayoutBox *box;
  gsize length = 0;
  guint first, second, b;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);
  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  find_proposed (window, &first, &second);
  fw_candidate_list_select (window->candidate_list, first);

  gtk_toggle_button_set_active (window->fused_button, TRUE);
  wait_fused (window);
  fused = fw_graph_view_get_layout (window->graph_view);
  g_assert_true (fused != fw_window_get_layout (window));
  g_assert_cmpuint (fw_layout_get_n_boxes (fused), <, fw_layout_get_n_boxes (fw_window_get_layout (window)));
  c = g_ptr_array_index (fw_project_get_plan (fw_window_get_project (window))->candidates, first);
  b = fw_layout_find_node (fused, g_ptr_array_index (c->nodes, 0));
  g_assert_cmpuint (b, !=, G_MAXUINT);
  box = fw_layout_get_box (fused, b);
  g_assert_cmpint (box->kind, ==, FW_LAYOUT_BOX_SCOPE);
  g_assert_cmpuint (box->n_nodes, ==, c->nodes->len);
  prefix = g_strdup_printf ("fused_%u_", first);
  g_assert_true (g_str_has_prefix (box->label, prefix));
  text = fw_graph_view_get_box_text (window->graph_view, b);
  g_assert_nonnull (strstr (text, "µs"));
  g_assert_cmpuint (fw_graph_view_get_selected_candidate (window->graph_view), ==, first);

  /* A veto: laid out again, the vetoed group's first node is in a fused box no more (or another one's). */
  g_action_group_activate_action (G_ACTION_GROUP (window), "veto", NULL);
  wait_fused (window);
  fused = fw_graph_view_get_layout (window->graph_view);
  b = fw_layout_find_node (fused, g_ptr_array_index (c->nodes, 0));
  g_assert_true (b == G_MAXUINT || !g_str_has_prefix (fw_layout_get_box (fused, b)->label, prefix));

  gtk_toggle_button_set_active (window->fused_button, FALSE);
  g_assert_true (fw_graph_view_get_layout (window->graph_view) == fw_window_get_layout (window));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The first widget under root of type whose label (a button) or title (a row) is text. */
static GtkWidget *
find_widget (GtkWidget *root, GType type, const char *text)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      const char *t = GTK_IS_BUTTON (root) ? gtk_button_get_label (GTK_BUTTON (root))
                      : ADW_IS_PREFERENCES_ROW (root) ? adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)) : NULL;
      if (g_strcmp0 (t, text) == 0)
        return root;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_widget (c, type, text);
      if (found)
        return found;
    }
  return NULL;
}

/* Preferences' Calibrate button runs the host calibration off the main thread and says how it ended in
 * its row; here FW_HOST_PROFILE_NO_PROBE=1 makes it refuse, which must reach the row and free the button. */
static void
test_preferences_calibrate (void)
{
  g_autoptr(GSettings) settings = fw_settings_new ();
  GtkWidget *prefs = fw_preferences_new (NULL, settings);
  GtkWidget *row, *button;
  const char *subtitle = NULL;

  gtk_window_present (GTK_WINDOW (prefs));
  row = find_widget (prefs, ADW_TYPE_ACTION_ROW, "Calibration");
  button = find_widget (prefs, GTK_TYPE_BUTTON, "Calibrate");
  g_assert_nonnull (row);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  for (guint i = 0; i < 200; i++)
    {
      fw_window_test_iterate (50);
      subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
      if (g_str_has_prefix (subtitle, "Not calibrated"))
        break;
    }
  g_assert_true (g_str_has_prefix (subtitle, "Not calibrated"));
  g_assert_nonnull (strstr (subtitle, "FW_HOST_PROFILE_NO_PROBE"));
  g_assert_true (gtk_widget_get_sensitive (button));
  gtk_window_destroy (GTK_WINDOW (prefs));
}

int
main (int argc, char **argv)
{
  int ret;

  tmp_dir = g_dir_make_tmp ("fw-test-window-XXXXXX", NULL);
  /* Recent files go to a scratch folder, not the user's. */
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);
  /* Compiled SuperKernels too. */
  g_setenv ("XDG_CACHE_HOME", tmp_dir, TRUE);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  /* No accessibility bus on a virtual display. */
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/window/workflow", test_window_workflow);
  g_test_add_func ("/window/bad-model", test_window_bad_model);
  g_test_add_func ("/window/rules-and-whitelists", test_window_rules_and_whitelists);
  g_test_add_func ("/window/check-and-export", test_window_check_and_export);
  g_test_add_func ("/window/close-while-busy", test_window_close_while_busy);
  g_test_add_func ("/window/symbolic-dims", test_window_symbolic_dims);
  g_test_add_func ("/window/custom-ops", test_window_custom_ops);
  g_test_add_func ("/window/list-menu", test_window_list_menu);
  g_test_add_func ("/window/compare", test_window_compare);
  g_test_add_func ("/window/fused-view", test_window_fused_view);
  g_test_add_func ("/window/preferences-calibrate", test_preferences_calibrate);
  ret = g_test_run ();
  fw_test_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
