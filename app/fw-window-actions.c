/* fw-window-actions.c: the win.* actions. They live in the window's GActionMap (not as widget class
 * actions) so that menus, the application's accelerators and tests reach them alike. */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-window-private.h"
#include "fw-compare-window.h"

static void
set_enabled (FwWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  if (action != NULL)
    g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

void
fw_window_actions_update (FwWindow *self)
{
  gboolean loaded = self->project != NULL;
  /* While a check or an export reads the plan, nothing may change it. */
  gboolean idle = loaded && !fw_project_get_busy (self->project) && self->job_cancellable == NULL;

  set_enabled (self, "save-session", loaded);
  set_enabled (self, "accept", idle);
  set_enabled (self, "veto", idle);
  set_enabled (self, "accept-pattern", idle);
  set_enabled (self, "veto-pattern", idle);
  set_enabled (self, "make-superkernel", idle);
  set_enabled (self, "remove-superkernel", idle);
  set_enabled (self, "check", idle);
  set_enabled (self, "measure", idle);
  set_enabled (self, "export", idle);
  set_enabled (self, "compare", loaded);
  set_enabled (self, "compare-session", loaded);
  set_enabled (self, "zoom-in", loaded);
  set_enabled (self, "zoom-out", loaded);
  set_enabled (self, "zoom-fit", loaded);
  set_enabled (self, "find", loaded);
  set_enabled (self, "undo", loaded && fw_project_can_undo (self->project));
  set_enabled (self, "redo", loaded && fw_project_can_redo (self->project));
}

static void
open_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_window_choose_file (FW_WINDOW (user_data));
}

static void
open_recent_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  fw_window_open (FW_WINDOW (user_data), file);
}

static void
save_session_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_window_save_session (FW_WINDOW (user_data), FALSE);
}

static void
undo_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  if (self->project != NULL)
    fw_project_undo (self->project);
  fw_window_actions_update (self);
}

static void
redo_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  if (self->project != NULL)
    fw_project_redo (self->project);
  fw_window_actions_update (self);
}

static void
accept_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  fw_candidate_list_accept_selected (self->candidate_list);
  fw_window_actions_update (self);
}

static void
veto_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  fw_candidate_list_veto_selected (self->candidate_list);
  fw_window_actions_update (self);
}

/* win.accept-pattern / win.veto-pattern PATTERN: every candidate of a pattern or kind, now and after
 * re-planning (fw_project_decide_pattern). */
static void
decide_pattern (FwWindow *self, FwDecisionAction action, GVariant *parameter)
{
  g_autoptr(GError) error = NULL;

  if (self->project != NULL &&
      !fw_project_decide_pattern (self->project, action, g_variant_get_string (parameter, NULL), &error))
    fw_window_toast (self, error->message);
  fw_window_actions_update (self);
}

static void
accept_pattern_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  decide_pattern (user_data, FW_DECISION_ACCEPT, parameter);
}

static void
veto_pattern_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  decide_pattern (user_data, FW_DECISION_VETO, parameter);
}

/* win.make-superkernel: the graph's selection made one SuperKernel scope (fw-window-superkernel.c). */
static void
make_superkernel_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;

  if (!fw_window_make_superkernel (self, &name, &error))
    fw_window_toast (self, error->message);
  else
    {
      /* TRANSLATORS: the name of the SuperKernel scope just made */
      g_autofree char *message = g_strdup_printf (_("SuperKernel “%s” made: its kernels are one launch"), name);
      fw_window_toast (self, message);
    }
  fw_window_actions_update (self);
}

/* win.remove-superkernel NAME: the user's scope of that name removed, a decision undone like the others. */
static void
remove_superkernel_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!fw_window_remove_superkernel (self, g_variant_get_string (parameter, NULL), &error))
    fw_window_toast (self, error->message);
  fw_window_actions_update (self);
}

static void
zoom_in_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  fw_graph_view_set_zoom (self->graph_view, fw_graph_view_get_zoom (self->graph_view) * 1.25);
}

static void
zoom_out_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  fw_graph_view_set_zoom (self->graph_view, fw_graph_view_get_zoom (self->graph_view) / 1.25);
}

static void
zoom_fit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_graph_view_zoom_to_fit (FW_WINDOW (user_data)->graph_view);
}

static void
find_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
check_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_window_run_check (FW_WINDOW (user_data), FALSE);
}

static void
measure_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_window_run_check (FW_WINDOW (user_data), TRUE);
}

static void
export_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  fw_window_show_export (FW_WINDOW (user_data));
}

/* win.compare STRATEGY: the plan against the one STRATEGY makes (fw-compare-window.c). */
static void
compare_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;
  FwStrategy strategy;

  if (self->project == NULL || !fw_strategy_from_string (g_variant_get_string (parameter, NULL), &strategy))
    return;
  gtk_window_present (GTK_WINDOW (fw_compare_window_new (self, strategy)));
}

static void
on_session_chosen (GtkNativeDialog *native, int response, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT && self->project != NULL)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        gtk_window_present (GTK_WINDOW (fw_compare_window_new_for_session (self, path)));
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

/* win.compare-session: the plan against the one a chosen session file's decisions make. */
static void
compare_session_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwWindow *self = user_data;
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) sessions = gtk_file_filter_new ();

  if (self->project == NULL)
    return;
  native = gtk_file_chooser_native_new (_("Compare with a Session"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_OPEN,
                                        _("_Compare"), _("_Cancel"));
  gtk_file_filter_set_name (sessions, _("Sessions"));
  gtk_file_filter_add_pattern (sessions, "*.fwsession");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), sessions);
  if (self->model_path != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self->model_path);
      g_autoptr(GFile) folder = g_file_new_for_path (dir);

      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), folder, NULL);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_session_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
close_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  gtk_window_close (GTK_WINDOW (user_data));
}

static const GActionEntry window_actions[] = {
  { "open", open_activated },
  { "open-recent", open_recent_activated, "s" },
  { "save-session", save_session_activated },
  { "undo", undo_activated },
  { "redo", redo_activated },
  { "accept", accept_activated },
  { "veto", veto_activated },
  { "accept-pattern", accept_pattern_activated, "s" },
  { "veto-pattern", veto_pattern_activated, "s" },
  { "make-superkernel", make_superkernel_activated },
  { "remove-superkernel", remove_superkernel_activated, "s" },
  { "zoom-in", zoom_in_activated },
  { "zoom-out", zoom_out_activated },
  { "zoom-fit", zoom_fit_activated },
  { "find", find_activated },
  { "check", check_activated },
  { "measure", measure_activated },
  { "export", export_activated },
  { "compare", compare_activated, "s" },
  { "compare-session", compare_session_activated },
  { "close", close_activated },
};

void
fw_window_actions_init (FwWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), window_actions, G_N_ELEMENTS (window_actions), self);
}

/* Plain a and v cannot be application accelerators: those run in the capture phase and would take the
 * letters from the search entry. As window shortcuts in the bubble phase, a text field sees them first. */
void
fw_window_add_shortcuts (FwWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_BUBBLE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_a, 0),
                                                          gtk_named_action_new ("win.accept")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_v, 0),
                                                          gtk_named_action_new ("win.veto")));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
}
