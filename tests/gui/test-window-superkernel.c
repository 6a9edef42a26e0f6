/* test-window-superkernel.c: the user's SuperKernel scopes in the real window on a virtual display: a range
 * of kernels selected on the canvas (a click, then a Shift+click) made one scope through win.make-superkernel,
 * seen in the overlay's legend, the SuperKernels page and the exported report, undone and redone, saved in the
 * session; a collapsed name scope made a scope of its prefix; and removed again. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-application.h"
#include "fw-export-dialog.h"
#include "fw-test-models.h"
#include "fw-window-private.h"
#include "fw-window-test-support.h"
#include "layout/fw-layout.h"

static char *tmp_dir;

/* The widget point at the centre of node's box; FALSE when it is off screen. */
static gboolean
try_point_of (FwWindow *window, const FwNode *node, gdouble *x, gdouble *y)
{
  FwLayout *layout = fw_graph_view_get_layout (window->graph_view);
  const FwLayoutBox *box = fw_layout_get_box (layout, fw_layout_find_node (layout, node));
  gdouble x0, y0, x1, y1, zoom = fw_graph_view_get_zoom (window->graph_view);

  fw_graph_view_get_visible_area (window->graph_view, &x0, &y0, &x1, &y1);
  *x = (box->x + box->w / 2 - x0) * zoom;
  *y = (box->y + box->h / 2 - y0) * zoom;
  return *x >= 0 && *y >= 0 && *x < gtk_widget_get_width (GTK_WIDGET (window->graph_view)) &&
         *y < gtk_widget_get_height (GTK_WIDGET (window->graph_view));
}

/* Zooms out from the first node until the second is on screen too, as a person would. */
static void
frame_both (FwWindow *window, const FwNode *a, const FwNode *b)
{
  gdouble x, y;

  g_assert_true (fw_graph_view_search (window->graph_view, a->name, TRUE));
  fw_window_test_iterate (50);
  for (guint i = 0; i < 20 && !(try_point_of (window, a, &x, &y) && try_point_of (window, b, &x, &y)); i++)
    {
      fw_graph_view_set_zoom (window->graph_view, fw_graph_view_get_zoom (window->graph_view) * 0.8);
      fw_window_test_iterate (20);
    }
}

/* The widget point at the centre of node's box, which is on screen. */
static void
point_of (FwWindow *window, const FwNode *node, gdouble *x, gdouble *y)
{
  g_assert_true (try_point_of (window, node, x, y));
}

static gboolean
list_holds (FwWindow *window, const char *text)
{
  for (guint i = 0; i < fw_superkernel_list_get_n_rows (window->superkernel_list); i++)
    {
      g_autofree char *row = fw_superkernel_list_get_row_text (window->superkernel_list, i);

      if (strstr (row, text) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
on_export_finished (FwExportDialog *dialog, gboolean success, gpointer user_data)
{
  *(int *) user_data = success ? 1 : 0;
}

/* The report the export dialog writes, as text. */
static char *
exported_report (FwWindow *window, const char *folder)
{
  FwExportDialog *dialog = FW_EXPORT_DIALOG (fw_window_show_export (window));
  gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;
  g_autofree char *path = g_build_filename (folder, "encoder-block.report.json", NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;
  int result = -1;

  fw_export_dialog_set_folder (dialog, folder);
  fw_export_dialog_set_contents (dialog, FALSE, FALSE, FALSE, TRUE);
  g_signal_connect (dialog, "finished", G_CALLBACK (on_export_finished), &result);
  fw_export_dialog_start (dialog);
  while (result < 0)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpint (result, ==, 1);
  fw_window_test_iterate (100);
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

static void
activate (FwWindow *window, const char *action, GVariant *parameter)
{
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (window), action));
  g_action_group_activate_action (G_ACTION_GROUP (window), action, parameter);
  fw_window_test_iterate (50);
}

static void
test_make_range (void)
{
  g_autoptr(FwApplication) app = fw_application_new ();
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "examples", "encoder-block.onnx", NULL);
  g_autofree char *work = g_build_filename (tmp_dir, "range", NULL);
  g_autofree char *model_path = g_build_filename (work, "encoder-block.onnx", NULL);
  g_autofree char *session_path = g_build_filename (work, "encoder-block.fwsession", NULL);
  g_autofree char *out = g_build_filename (work, "export", NULL);
  g_autofree char *contents = NULL, *report = NULL, *session = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  const FwSkPlan *sk;
  const FwSkScope *automatic, *mine;
  FwNode *first, *second;
  FwWindow *window;
  FwProject *project;
  gdouble x, y;
  gsize length = 0;

  g_assert_cmpint (g_mkdir_with_parents (work, 0700), ==, 0);
  g_assert_true (g_file_get_contents (source, &contents, &length, &error));
  g_assert_true (g_file_set_contents (model_path, contents, length, &error));
  file = g_file_new_for_path (model_path);
  fw_window_test_register (app);
  window = fw_window_new (ADW_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  fw_window_open (window, file);
  fw_window_test_wait_loaded (window);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window->graph_view));
  fw_window_test_iterate (300);
  project = fw_window_get_project (window);

  /* Automatic scopes before any choice, and the page says how to choose. */
  sk = fw_project_get_superkernel_plan (project);
  g_assert_cmpuint (sk->scopes->len, >, 0);
  g_assert_cmpuint (sk->user_scopes->len, ==, 0);
  g_assert_true (list_holds (window, "sk_000"));
  g_assert_nonnull (strstr (fw_superkernel_list_get_hint (window->superkernel_list), "Shift+click"));
  automatic = g_ptr_array_index (sk->scopes, 0);
  g_assert_cmpuint (automatic->kernels->len, >=, 3);
  first = g_array_index (automatic->kernels, FwSkKernel, 0).node;
  second = g_array_index (automatic->kernels, FwSkKernel, 1).node;

  /* Nothing selected: the action says what to select, and nothing is decided. */
  activate (window, "make-superkernel", NULL);
  g_assert_false (fw_project_can_undo (project));

  /* Click the first kernel, Shift+click the second: the range. */
  frame_both (window, first, second);
  point_of (window, first, &x, &y);
  fw_graph_view_click (window->graph_view, 1, x, y);
  g_assert_true (fw_graph_view_get_selected_node (window->graph_view) == first);
  point_of (window, second, &x, &y);
  fw_graph_view_shift_click (window->graph_view, x, y);
  g_assert_true (fw_graph_view_get_selected_node (window->graph_view) == first);
  g_assert_true (fw_graph_view_get_range_node (window->graph_view) == second);

  /* The button on the SuperKernels page runs the action; the menu holds it too. */
  g_assert_true (GTK_IS_WIDGET (window->superkernel_list));
  activate (window, "make-superkernel", NULL);
  sk = fw_project_get_superkernel_plan (project);
  g_assert_cmpuint (sk->user_scopes->len, ==, 1);
  g_assert_cmpuint (sk->scopes->len, ==, 1);
  mine = g_ptr_array_index (sk->scopes, 0);
  g_assert_cmpstr (mine->name, ==, "user_000");
  g_assert_cmpuint (mine->kernels->len, ==, 2);
  g_assert_true (fw_project_can_undo (project));
  /* Seen: the overlay switched to the scopes, its legend names it, the page lists it. */
  g_assert_cmpint (fw_graph_view_get_overlay (window->graph_view), ==, FW_GRAPH_OVERLAY_SUPERKERNEL);
  g_assert_true (g_str_has_prefix (fw_graph_view_get_legend (window->graph_view)->labels[0], "SuperKernel user_000"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (window->side_stack), ==, "superkernels");
  g_assert_true (list_holds (window, "user_000"));
  g_assert_false (list_holds (window, "sk_000"));
  g_assert_nonnull (strstr (fw_superkernel_list_get_hint (window->superkernel_list), "Your SuperKernel scopes"));
  fw_window_test_save_png (GTK_WIDGET (window), "superkernel-window.png");

  /* In the report the window exports. */
  report = exported_report (window, out);
  g_assert_nonnull (strstr (report, "\"user_scopes\""));
  g_assert_nonnull (strstr (report, "\"name\" : \"user_000\""));

  /* Saved in the session. */
  fw_project_flush_session (project);
  g_assert_cmpstr (fw_project_get_session_path (project), ==, session_path);
  g_assert_true (g_file_get_contents (session_path, &session, NULL, &error));
  g_assert_nonnull (strstr (session, "action: superkernel\n    superkernel:\n      name: \"user_000\"\n"));

  /* Undo and redo like any decision. */
  activate (window, "undo", NULL);
  g_assert_cmpuint (fw_project_get_superkernel_plan (project)->user_scopes->len, ==, 0);
  g_assert_true (list_holds (window, "sk_000"));
  activate (window, "redo", NULL);
  g_assert_true (list_holds (window, "user_000"));

  /* Removed from the page's button (its action and target). */
  activate (window, "remove-superkernel", g_variant_new_string ("user_000"));
  g_assert_cmpuint (fw_project_get_superkernel_plan (project)->user_scopes->len, ==, 0);
  activate (window, "undo", NULL);
  g_assert_cmpuint (fw_project_get_superkernel_plan (project)->user_scopes->len, ==, 1);

  /* A collapsed name scope: its prefix is the scope. */
  {
    FwLayout *layout = fw_graph_view_get_layout (window->graph_view);
    FwGraph *graph = fw_layout_get_graph (layout);
    FwNode *in_attn = NULL;

    for (guint i = 0; i < graph->nodes->len && in_attn == NULL; i++)
      if (g_str_has_prefix (((FwNode *) g_ptr_array_index (graph->nodes, i))->name, "/attn/"))
        in_attn = g_ptr_array_index (graph->nodes, i);
    g_assert_nonnull (in_attn);
    g_assert_true (fw_layout_set_expanded (layout, "attn", FALSE));
    g_assert_true (fw_layout_compute (layout, NULL, &error));
    fw_graph_view_reload (window->graph_view);
    fw_graph_view_zoom_to_fit (window->graph_view);
    fw_window_test_iterate (100);
    point_of (window, in_attn, &x, &y);
    fw_graph_view_click (window->graph_view, 1, x, y);
    g_assert_cmpstr (fw_graph_view_get_selected_scope (window->graph_view), ==, "attn");
    activate (window, "make-superkernel", NULL);
    sk = fw_project_get_superkernel_plan (project);
    g_assert_cmpuint (sk->user_scopes->len, ==, 2);
    g_assert_cmpstr (((FwSkUserScope *) g_ptr_array_index (sk->user_scopes, 1))->prefix, ==, "/attn");
    g_assert_true (list_holds (window, "/attn"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  int ret;

  tmp_dir = g_dir_make_tmp ("fw-test-window-sk-XXXXXX", NULL);
  g_setenv ("XDG_DATA_HOME", tmp_dir, TRUE);
  g_setenv ("XDG_CACHE_HOME", tmp_dir, TRUE);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_setenv ("GTK_A11Y", "none", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/window/superkernel/make-range", test_make_range);
  ret = g_test_run ();
  fw_test_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
