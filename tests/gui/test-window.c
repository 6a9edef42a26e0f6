/* test-window.c: the real workbench window, in-process on a virtual display: it opens the example model,
 * plans and lays it out off the main thread, takes decisions through the window's actions as the keyboard
 * would, saves and restores the session, and leaves a screenshot (window.png) in the build folder. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-application.h"
#include "fw-window-private.h"

static char *tmp_dir;

/* Virtual displays in CI have no session bus; GtkApplication warns while registering and goes on
 * without one. Warnings are fatal again once it has. */
static void
register_application (FwApplication *app)
{
  g_autoptr(GError) error = NULL;
  GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_log_set_always_fatal (fatal);
}

/* Runs the main loop until the window has a laid-out project and nothing is loading, or fails. */
static void
wait_until_loaded (FwWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;

  while (fw_window_get_busy (window) || fw_window_get_project (window) == NULL || fw_window_get_layout (window) == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

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

static void
save_screenshot (GtkWidget *widget, const char *path)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);

  g_assert_cmpint (width, >, 0);
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_assert_true (gdk_texture_save_to_png (texture, path));
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

  register_application (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_null (fw_window_get_project (window));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (window), "save-session"));
  /* The shortcuts window comes from the application's resources (gtk/help-overlay.ui). */
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "show-help-overlay"));

  fw_window_open (window, file);
  g_assert_true (fw_window_get_busy (window));
  wait_until_loaded (window);
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

  g_action_group_activate_action (G_ACTION_GROUP (window), "save-session", NULL);
  g_assert_true (g_file_test (session_path, G_FILE_TEST_IS_REGULAR));

  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-in", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);

  /* Opening the model again offers the saved session; restoring it brings the accepted candidate back. */
  fw_window_open (window, file);
  wait_until_loaded (window);
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_PROPOSED);
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "restore");
  g_assert_cmpint (status_of (window, first), ==, FW_CANDIDATE_ACCEPTED);
  g_assert_cmpstr (fw_project_get_session_path (fw_window_get_project (window)), ==, session_path);

  /* The picture the README shows: the restored decision selected, the graph fitted once allocated. */
  fw_candidate_list_select (window->candidate_list, first);
  iterate_for (300);
  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);
  iterate_for (500);
  save_screenshot (GTK_WIDGET (window), screenshot);
  g_test_message ("screenshot: %s", screenshot);

  g_action_group_activate_action (G_ACTION_GROUP (window), "close", NULL);
  iterate_for (100);
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
  register_application (app);
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

/* The scratch folder holds only plain files. */
static void
remove_tmp_dir (void)
{
  g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

      g_remove (path);
    }
  g_rmdir (tmp_dir);
  g_clear_pointer (&tmp_dir, g_free);
}

int
main (int argc, char **argv)
{
  int ret;

  tmp_dir = g_dir_make_tmp ("fw-test-window-XXXXXX", NULL);
  /* Recent files go to a scratch folder, not the user's. */
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  /* No accessibility bus on a virtual display. */
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/window/workflow", test_window_workflow);
  g_test_add_func ("/window/bad-model", test_window_bad_model);
  ret = g_test_run ();
  remove_tmp_dir ();
  return ret;
}
