#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "fw-window-private.h"
#include "fw-application.h"
#include "fw-export-dialog.h"
#include "fw-error.h"
#include "fw-settings.h"
#include "hw/fw-profile.h"
#include "report/fw-model-report.h"

#define RECENT_MAX 6

G_DEFINE_FINAL_TYPE (FwWindow, fw_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_LAYOUT,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
fw_window_toast (FwWindow *self, const char *message)
{
  g_return_if_fail (FW_IS_WINDOW (self));

  /* A task that ends after the window was closed has no one to tell. */
  if (self->toast_overlay == NULL)
    return;
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

FwProject *
fw_window_get_project (FwWindow *self)
{
  g_return_val_if_fail (FW_IS_WINDOW (self), NULL);
  return self->project;
}

FwLayout *
fw_window_get_layout (FwWindow *self)
{
  g_return_val_if_fail (FW_IS_WINDOW (self), NULL);
  return self->layout;
}

gboolean
fw_window_get_busy (FwWindow *self)
{
  g_return_val_if_fail (FW_IS_WINDOW (self), FALSE);
  return self->cancellable != NULL || self->job_cancellable != NULL;
}

FwCheck *
fw_window_get_last_check (FwWindow *self)
{
  g_return_val_if_fail (FW_IS_WINDOW (self), NULL);
  return self->last_check;
}

/* Recent files */

static gint
compare_recent_newest_first (gconstpointer a, gconstpointer b)
{
  GDateTime *ma = gtk_recent_info_get_modified ((GtkRecentInfo *) a);
  GDateTime *mb = gtk_recent_info_get_modified ((GtkRecentInfo *) b);

  return g_date_time_compare (mb, ma);
}

static void
rebuild_recent_section (FwWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  guint n = 0;

  g_menu_remove_all (self->recent_section);
  /* Newest first: the manager gives them in no useful order. */
  items = g_list_sort (items, compare_recent_newest_first);
  for (GList *l = items; l != NULL && n < RECENT_MAX; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GMenuItem) item = NULL;

      /* Any recent model counts, whichever program opened it last. */
      if (!g_str_has_suffix (uri, ".onnx") || !gtk_recent_info_exists (info))
        continue;
      {
        /* Menu labels take "_" as a mnemonic mark: "swin_t.onnx" would show as "swint.onnx". */
        g_auto(GStrv) parts = g_strsplit (gtk_recent_info_get_display_name (info), "_", -1);
        g_autofree char *label = g_strjoinv ("__", parts);

        item = g_menu_item_new (label, NULL);
      }
      g_menu_item_set_action_and_target (item, "win.open-recent", "s", uri);
      g_menu_append_item (self->recent_section, item);
      n++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}

/* Loading: FwOpen in a thread (model, rules, whitelists, plan: the FwProject), then FwLayout in a thread. */

void
fw_window_show_progress (FwWindow *self, gdouble fraction, const char *message)
{
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0.0, 1.0));
  if (message != NULL)
    gtk_label_set_text (self->progress_label, message);
}

static void
on_progress_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  FwWindow *self = user_data;
  g_autofree char *message = NULL;
  gdouble fraction = 0;

  g_object_get (object, "fraction", &fraction, "message", &message, NULL);
  fw_window_show_progress (self, fraction, message);
}

void
fw_window_follow_progress (FwWindow *self, GObject *task)
{
  g_signal_connect (task, "notify::fraction", G_CALLBACK (on_progress_notify), self);
  g_signal_connect (task, "notify::message", G_CALLBACK (on_progress_notify), self);
}

/* Work that ends within this is not worth a progress bar sliding in and out (each of its frames redraws the
 * window, which a software renderer pays for on the cores the work needs). */
#define PROGRESS_DELAY_MS 200

static gboolean
reveal_progress (gpointer user_data)
{
  FwWindow *self = user_data;

  self->reveal_source = 0;
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  return G_SOURCE_REMOVE;
}

static void
set_busy (FwWindow *self, gboolean busy)
{
  /* Disposed: the template children are gone. */
  if (self->progress_revealer == NULL)
    return;
  if (!busy)
    {
      g_clear_handle_id (&self->reveal_source, g_source_remove);
      gtk_revealer_set_reveal_child (self->progress_revealer, FALSE);
    }
  else if (!gtk_revealer_get_reveal_child (self->progress_revealer) && self->reveal_source == 0)
    self->reveal_source = g_timeout_add (PROGRESS_DELAY_MS, reveal_progress, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  fw_window_actions_update (self);
}

void
fw_window_begin_job (FwWindow *self, const char *message)
{
  g_clear_object (&self->job_cancellable);
  self->job_cancellable = g_cancellable_new ();
  fw_window_show_progress (self, 0.0, message);
  set_busy (self, TRUE);
}

void
fw_window_end_job (FwWindow *self)
{
  g_clear_object (&self->job_cancellable);
  set_busy (self, self->cancellable != NULL);
}

static void
finish_loading (FwWindow *self)
{
  if (self->opening != NULL)
    g_signal_handlers_disconnect_by_data (self->opening, self);
  if (self->pending_layout != NULL)
    g_signal_handlers_disconnect_by_data (self->pending_layout, self);
  g_clear_object (&self->opening);
  g_clear_object (&self->pending_layout);
  g_clear_object (&self->pending_project);
  g_clear_pointer (&self->pending_path, g_free);
  g_clear_pointer (&self->pending_symbols, g_strfreev);
  g_clear_object (&self->cancellable);
  set_busy (self, self->job_cancellable != NULL);
}

static void
show_error (FwWindow *self, const char *path, const GError *error)
{
  g_autofree char *basename = g_path_get_basename (path);
  g_autofree char *title = g_strdup_printf (_("Could not open “%s”"), basename);

  /* The layout reports a cancel as FALSE, possibly without an error. */
  if (error == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      fw_window_toast (self, _("Loading cancelled"));
      return;
    }
  fw_window_toast (self, title);
  /* Over an open model the toast is enough; an empty window shows the full message. */
  if (self->project == NULL)
    {
      adw_status_page_set_title (self->error_page, title);
      adw_status_page_set_description (self->error_page, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
    }
}

static void
on_undo_redo_notify (FwWindow *self)
{
  fw_window_actions_update (self);
}

/* A veto can leave the plan with nothing fused (the line over the list says why), and the fused view is laid
 * out again. */
static void
on_plan_changed (FwWindow *self)
{
  fw_window_dims_update_reason (self);
  fw_window_fused_plan_changed (self);
}

/* Replaces the shown project and layout with the pending ones. */
static void
install_project (FwWindow *self)
{
  g_autofree char *basename = g_path_get_basename (self->pending_path);
  g_autofree char *dirname = g_path_get_dirname (self->pending_path);

  if (self->project != NULL)
    {
      fw_window_save_session (self, TRUE);
      g_clear_signal_handler (&self->can_undo_handler, self->project);
      g_clear_signal_handler (&self->can_redo_handler, self->project);
      g_clear_signal_handler (&self->busy_handler, self->project);
      g_clear_signal_handler (&self->plan_changed_handler, self->project);
    }
  g_clear_object (&self->last_check);
  /* An export dialog belongs to the project it was opened for. */
  if (self->export_dialog != NULL)
    gtk_window_destroy (self->export_dialog);
  /* The fused view belongs to the project it was laid out for. */
  fw_window_set_fused_view (self, FALSE);
  fw_window_fused_dispose (self);
  /* Views first, so none holds the project (and the rules it owns) freed below. */
  fw_inspector_clear (self->inspector);
  fw_inspector_set_project (self->inspector, NULL);
  fw_candidate_list_set_project (self->candidate_list, NULL);
  fw_roofline_view_set_project (self->roofline_view, NULL);
  fw_summary_view_set_project (self->summary_view, NULL);
  fw_superkernel_list_set_project (self->superkernel_list, NULL);
  fw_graph_view_set_project (self->graph_view, NULL);
  fw_graph_view_set_layout (self->graph_view, NULL);
  g_clear_object (&self->layout);
  g_clear_object (&self->project);
  g_clear_pointer (&self->model_path, g_free);

  self->project = g_steal_pointer (&self->pending_project);
  self->layout = g_steal_pointer (&self->pending_layout);
  self->model_path = g_steal_pointer (&self->pending_path);
  g_strfreev (self->symbols);
  self->symbols = g_steal_pointer (&self->pending_symbols);
  g_signal_handlers_disconnect_by_data (self->layout, self);

  fw_graph_view_set_layout (self->graph_view, self->layout);
  fw_graph_view_set_project (self->graph_view, self->project);
  fw_candidate_list_set_project (self->candidate_list, self->project);
  fw_roofline_view_set_project (self->roofline_view, self->project);
  fw_summary_view_set_project (self->summary_view, self->project);
  fw_superkernel_list_set_project (self->superkernel_list, self->project);
  fw_inspector_set_project (self->inspector, self->project);
  fw_graph_view_zoom_to_fit (self->graph_view);

  self->can_undo_handler = g_signal_connect_swapped (self->project, "notify::can-undo",
                                                     G_CALLBACK (on_undo_redo_notify), self);
  self->can_redo_handler = g_signal_connect_swapped (self->project, "notify::can-redo",
                                                     G_CALLBACK (on_undo_redo_notify), self);
  self->busy_handler = g_signal_connect_swapped (self->project, "notify::busy",
                                                 G_CALLBACK (on_undo_redo_notify), self);
  /* A veto can leave the plan with nothing fused: the line over the list says why. */
  self->plan_changed_handler = g_signal_connect_swapped (self->project, "plan-changed",
                                                         G_CALLBACK (on_plan_changed), self);
  fw_window_dims_update (self);

  adw_window_title_set_title (self->window_title, basename);
  adw_window_title_set_subtitle (self->window_title, dirname);
  gtk_stack_set_visible_child_name (self->stack, "workbench");
  fw_window_actions_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAYOUT]);
}

static void
on_restore_response (AdwMessageDialog *dialog, const char *response, gpointer user_data)
{
  FwWindow *self = user_data;
  const char *session_path = g_object_get_data (G_OBJECT (dialog), "session-path");
  g_autoptr(GError) error = NULL;

  if (self->project == NULL)
    return;
  if (g_strcmp0 (response, "restore") == 0 &&
      !fw_project_restore_session (self->project, session_path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not restore the session: %s"), error->message);
      fw_window_toast (self, message);
    }
  /* Either way decisions from now on autosave there; declining starts the session afresh. */
  fw_project_set_session_path (self->project, session_path);
  fw_window_actions_update (self);
}

/* A session beside the model: offer it; none: start one there. */
static void
offer_session (FwWindow *self)
{
  g_autofree char *session_path = fw_project_session_path_for (self->model_path);
  AdwMessageDialog *dialog;

  if (session_path == NULL)
    return;
  if (!g_file_test (session_path, G_FILE_TEST_IS_REGULAR))
    {
      fw_project_set_session_path (self->project, session_path);
      return;
    }
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Restore Session?"), NULL));
  adw_message_dialog_format_body (ADW_MESSAGE_DIALOG (dialog),
                                  _("“%s” holds earlier decisions on this model. Restore them, or start again and replace them?"),
                                  session_path);
  adw_message_dialog_add_responses (dialog,
                                    "discard", _("_Start Again"),
                                    "restore", _("_Restore"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "restore", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "restore");
  adw_message_dialog_set_close_response (dialog, "discard");
  g_object_set_data_full (G_OBJECT (dialog), "session-path", g_steal_pointer (&session_path), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_restore_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

char *
fw_window_whitelist_summary (const FwPlan *plan)
{
  guint entries = 0, applied = 0, nothing = 0, refused = 0, other = 0;

  for (guint i = 0; i < plan->n_applied; i++)
    {
      const FwDecision *d = g_ptr_array_index (plan->decisions, i);

      if (!d->whitelist)
        continue;
      entries++;
      applied += d->outcome == FW_DECISION_APPLIED;
      nothing += d->outcome == FW_DECISION_MATCHED_NOTHING;
      refused += d->outcome == FW_DECISION_REFUSED;
      other += d->outcome == FW_DECISION_OTHER_MODEL;
    }
  if (entries == 0)
    return NULL;
  if (applied == entries)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Whitelist applied: %u entry",
                                         "Whitelist applied: %u entries", entries), entries);
  /* TRANSLATORS: %u of %u whitelist entries, then counts of those that were not applied */
  return g_strdup_printf (_("Whitelist: %u of %u entries applied (%u for another model, %u matched nothing, "
                            "%u refused by the planner)"), applied, entries, other, nothing, refused);
}

/* Otherwise a whitelist written for another model, or one that no longer matches, changes nothing without
 * a word; batch mode says so in its report. */
static void
toast_whitelist_summary (FwWindow *self)
{
  g_autofree char *summary = fw_window_whitelist_summary (fw_project_get_plan (self->project));

  if (summary != NULL)
    fw_window_toast (self, summary);
}

static void
on_layout_computed (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  if (!fw_layout_compute_finish (FW_LAYOUT (object), result, &error))
    {
      /* A newer load replaced this one: it owns the pending fields now. */
      if (self->pending_layout != FW_LAYOUT (object))
        return;
      path = g_strdup (self->pending_path);
      finish_loading (self);
      show_error (self, path, error);
      return;
    }
  if (self->pending_layout != FW_LAYOUT (object))
    return;
  install_project (self);
  finish_loading (self);
  toast_whitelist_summary (self);
  offer_session (self);
}

static gboolean
plan_options_from_settings (FwWindow *self, FwPlanOptions *options, GError **error)
{
  g_autofree char *strategy = g_settings_get_string (self->settings, "strategy");

  fw_plan_options_init (options);
  /* AUTOFUSION_ENABLE and the others, as in batch mode; the preferences below play the flags' part. */
  if (!fw_plan_options_from_env (options, error))
    return FALSE;
  if (!fw_strategy_from_string (strategy, &options->strategy))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("Unknown fusion strategy “%s” in the preferences"), strategy);
      return FALSE;
    }
  options->max_depth = g_settings_get_uint (self->settings, "max-depth");
  options->max_fusion_size = g_settings_get_uint (self->settings, "max-fusion-size");
  return TRUE;
}

static void
on_opened (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProject) project = fw_open_run_finish (FW_OPEN (object), result, &error);
  g_autofree char *path = NULL;
  FwLayoutOptions layout_options;

  /* A newer open replaced this one: it owns the pending fields now. */
  if (self->opening != FW_OPEN (object))
    return;
  if (project == NULL)
    {
      path = g_strdup (self->pending_path);
      finish_loading (self);
      show_error (self, path, error);
      return;
    }
  self->pending_project = g_steal_pointer (&project);
  g_strfreev (self->pending_symbols);
  self->pending_symbols = g_strdupv ((char **) fw_open_get_symbols (FW_OPEN (object)));
  fw_window_show_progress (self, 0.0, _("Laying out the graph…"));
  fw_layout_options_init (&layout_options);
  layout_options.fold_weight_copies = g_settings_get_boolean (self->settings, "fold-weight-copies");
  self->pending_layout = fw_layout_new (fw_model_get_graph (fw_project_get_model (self->pending_project)),
                                        &layout_options);
  g_signal_connect (self->pending_layout, "notify::fraction", G_CALLBACK (on_progress_notify), self);
  fw_layout_compute_async (self->pending_layout, self->cancellable, on_layout_computed, g_object_ref (self));
}

/* symbol → gint64* from the "bindings" setting (NAME=VALUE); bad entries are skipped with a toast. */
static GHashTable *
bindings_from_settings (FwWindow *self)
{
  g_auto(GStrv) entries = g_settings_get_strv (self->settings, "bindings");
  GHashTable *bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; entries[i] != NULL; i++)
    {
      const char *eq = strchr (entries[i], '=');
      gint64 value = 0;

      if (eq == NULL || eq == entries[i] ||
          !g_ascii_string_to_signed (eq + 1, 10, 1, G_MAXINT32, &value, NULL))
        {
          g_autofree char *message = g_strdup_printf (_("Ignoring the binding “%s”: write NAME=VALUE"), entries[i]);
          fw_window_toast (self, message);
          continue;
        }
      g_hash_table_insert (bindings, g_strndup (entries[i], eq - entries[i]), g_memdup2 (&value, sizeof value));
    }
  return bindings;
}

/* The preferences' list, then the command line's (a later rule file overrides an earlier one). */
static GStrv
paths_from (FwWindow *self, const char *key, const char * const *extra)
{
  g_auto(GStrv) saved = g_settings_get_strv (self->settings, key);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_strv_builder_addv (builder, (const char **) saved);
  if (extra != NULL)
    g_strv_builder_addv (builder, (const char **) extra);
  return g_strv_builder_end (builder);
}

/* What FwOpen needs from the preferences and the command line, read here on the main thread. */
static FwOpen *
open_job_for (FwWindow *self, const char *path, GError **error)
{
  FwOpenOptions options;
  g_autoptr(GHashTable) bindings = NULL;
  g_autofree char *profile = NULL;
  g_auto(GStrv) rules = NULL;
  g_auto(GStrv) whitelists = NULL;
  g_auto(GStrv) ops = NULL;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  /* The plan options may hold a skip list from AUTOFUSE_DFX_FLAGS; FwOpen takes its own reference. */
  g_auto(FwPlanOptions) plan = { 0 };
  FwOpen *job;

  fw_open_options_init (&options);
  if (!plan_options_from_settings (self, &plan, error))
    return NULL;
  options.plan = plan;
  bindings = bindings_from_settings (self);
  /* Sizes typed into the banner win over the preferences'. */
  fw_window_dims_merge_bindings (self, bindings);
  profile = g_settings_get_string (self->settings, "profile");
  rules = paths_from (self, "rules", (const char * const *) self->extra_rules);
  whitelists = paths_from (self, "whitelists", (const char * const *) self->extra_whitelists);
  /* Always a list, so an entry removed from the preferences leaves the registry at the next open. */
  ops = paths_from (self, "ops", FW_IS_APPLICATION (app) ? fw_application_get_ops (FW_APPLICATION (app)) : NULL);
  options.bindings = bindings;
  options.profile = profile;
  options.rules = (const char * const *) rules;
  options.whitelists = (const char * const *) whitelists;
  options.ops = (const char * const *) ops;
  job = fw_open_new (path, &options);
  return job;
}

void
fw_window_set_open_files (FwWindow *self, const char * const *rules, const char * const *whitelists)
{
  g_return_if_fail (FW_IS_WINDOW (self));

  g_strfreev (self->extra_rules);
  g_strfreev (self->extra_whitelists);
  self->extra_rules = g_strdupv ((char **) rules);
  self->extra_whitelists = g_strdupv ((char **) whitelists);
}

void
fw_window_open (FwWindow *self, GFile *file)
{
  g_autofree char *path = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (FW_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (!(path = g_file_get_path (file)))
    {
      fw_window_toast (self, _("Only local files can be opened"));
      return;
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* A check or export of the model being replaced is of no use any more. */
  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
  finish_loading (self);

  uri = g_file_get_uri (file);
  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);

  self->opening = open_job_for (self, path, &error);
  if (self->opening == NULL)
    {
      show_error (self, path, error);
      return;
    }
  self->cancellable = g_cancellable_new ();
  self->pending_path = g_strdup (path);
  fw_window_follow_progress (self, G_OBJECT (self->opening));
  message = g_strdup_printf (_("Loading %s…"), path);
  fw_window_show_progress (self, 0.0, message);
  set_busy (self, TRUE);
  fw_open_run_async (self->opening, self->cancellable, on_opened, g_object_ref (self));
}

/* The file chooser */

static void
on_chooser_response (GtkNativeDialog *native, int response, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        fw_window_open (self, file);
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

void
fw_window_choose_file (FwWindow *self)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (_("Open Model"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN,
                                                              _("_Open"), _("_Cancel"));
  g_autoptr(GtkFileFilter) onnx = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  gtk_file_filter_set_name (onnx, _("ONNX models"));
  gtk_file_filter_add_pattern (onnx, "*.onnx");
  gtk_file_filter_set_name (all, _("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), onnx);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_chooser_response), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* Sessions */

void
fw_window_save_session (FwWindow *self, gboolean quiet)
{
  g_autoptr(GError) error = NULL;

  if (self->project == NULL)
    return;
  if (fw_project_get_session_path (self->project) == NULL)
    {
      g_autofree char *path = fw_project_session_path_for (self->model_path);

      fw_project_set_session_path (self->project, path);
    }
  if (!fw_project_save_session (self->project, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not save the session: %s"), error->message);
      fw_window_toast (self, message);
    }
  else if (!quiet)
    fw_window_toast (self, _("Session saved"));
}

/* Drag and drop */

static gboolean
on_drop (GtkDropTarget *target, const GValue *value, double x, double y, gpointer user_data)
{
  FwWindow *self = user_data;
  GSList *files = g_value_get_boxed (value);

  for (GSList *l = files; l != NULL; l = l->next)
    {
      g_autofree char *name = g_file_get_basename (l->data);

      if (name != NULL && g_str_has_suffix (name, ".onnx"))
        {
          fw_window_open (self, l->data);
          return TRUE;
        }
    }
  fw_window_toast (self, _("Drop an ONNX model (.onnx) to open it"));
  return FALSE;
}

/* Template callbacks: keeping the views in step */

static void
on_list_candidate_selected (FwWindow *self, guint candidate, FwCandidateList *list)
{
  fw_graph_view_select_candidate (self->graph_view, candidate);
  fw_roofline_view_set_selected_candidate (self->roofline_view, candidate);
  fw_inspector_show_candidate (self->inspector, candidate);
  fw_window_actions_update (self);
}

static void
on_graph_candidate_selected (FwWindow *self, guint candidate, FwGraphView *view)
{
  if (candidate == G_MAXUINT)
    return;
  fw_candidate_list_select (self->candidate_list, candidate);
  fw_roofline_view_set_selected_candidate (self->roofline_view, candidate);
  fw_inspector_show_candidate (self->inspector, candidate);
}

/* A point of the roofline: the same candidate everywhere, the list stays on its own page. */
static void
on_roofline_candidate_selected (FwWindow *self, guint candidate, FwRooflineView *view)
{
  if (candidate == G_MAXUINT)
    return;
  fw_candidate_list_select (self->candidate_list, candidate);
  fw_graph_view_select_candidate (self->graph_view, candidate);
  fw_inspector_show_candidate (self->inspector, candidate);
}

static void
on_graph_node_selected (FwWindow *self, gpointer node, FwGraphView *view)
{
  if (node != NULL)
    fw_inspector_show_node (self->inspector, node);
  else
    fw_inspector_clear (self->inspector);
}

static void
on_overlay_selected (FwWindow *self, GParamSpec *pspec, GtkDropDown *dropdown)
{
  fw_graph_view_set_overlay (self->graph_view, (FwGraphOverlay) gtk_drop_down_get_selected (dropdown));
}

static void
on_fused_toggled (FwWindow *self, GtkToggleButton *button)
{
  fw_window_set_fused_view (self, gtk_toggle_button_get_active (button));
}

static void
on_dims_apply (FwWindow *self)
{
  fw_window_dims_apply (self);
}

static void
on_cancel_clicked (FwWindow *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
}

static void
search (FwWindow *self, gboolean forward)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (self->layout == NULL || text[0] == '\0')
    return;
  if (!fw_graph_view_search (self->graph_view, text, forward))
    gtk_widget_error_bell (GTK_WIDGET (self->search_entry));
}

static void
on_search_activate (FwWindow *self)
{
  search (self, TRUE);
}

/* Enter is "activate" (next match); Shift+Enter is not a binding of GtkSearchEntry. */
static gboolean
on_search_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                       gpointer user_data)
{
  FwWindow *self = user_data;

  if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
      (state & GDK_SHIFT_MASK) != 0)
    {
      search (self, FALSE);
      return TRUE;
    }
  return FALSE;
}

static void
on_search_changed (FwWindow *self)
{
  search (self, TRUE);
}

static void
on_search_next (FwWindow *self)
{
  search (self, TRUE);
}

static void
on_search_previous (FwWindow *self)
{
  search (self, FALSE);
}

static void
on_search_stop (FwWindow *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

/* Closing: the session and the window size are kept. */

static gboolean
fw_window_close_request (GtkWindow *window)
{
  FwWindow *self = FW_WINDOW (window);
  int width = 0, height = 0;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
  fw_window_save_session (self, TRUE);
  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  return GTK_WINDOW_CLASS (fw_window_parent_class)->close_request (window);
}

static void
fw_window_dispose (GObject *object)
{
  FwWindow *self = FW_WINDOW (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->job_cancellable != NULL)
    g_cancellable_cancel (self->job_cancellable);
  finish_loading (self);
  g_clear_handle_id (&self->reveal_source, g_source_remove);
  /* An export it runs (cancelled above through job_cancellable) keeps the dialog alive until the task
   * returns, after this window is gone: it must not point at us by then. */
  if (self->export_dialog != NULL)
    {
      gtk_window_set_transient_for (self->export_dialog, NULL);
      gtk_window_destroy (self->export_dialog);
    }
  g_clear_weak_pointer (&self->export_dialog);
  if (self->project != NULL)
    {
      g_clear_signal_handler (&self->can_undo_handler, self->project);
      g_clear_signal_handler (&self->can_redo_handler, self->project);
      g_clear_signal_handler (&self->busy_handler, self->project);
      g_clear_signal_handler (&self->plan_changed_handler, self->project);
    }
  g_clear_object (&self->running_check);
  g_clear_object (&self->last_check);
  g_clear_object (&self->job_cancellable);
  fw_window_fused_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), FW_TYPE_WINDOW);
  g_clear_object (&self->layout);
  g_clear_object (&self->project);
  g_clear_pointer (&self->model_path, g_free);
  g_clear_pointer (&self->extra_rules, g_strfreev);
  g_clear_pointer (&self->extra_whitelists, g_strfreev);
  g_clear_pointer (&self->symbols, g_strfreev);
  g_clear_pointer (&self->dim_bindings, g_hash_table_unref);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (fw_window_parent_class)->dispose (object);
}

static void
fw_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwWindow *self = FW_WINDOW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_LAYOUT:
      g_value_set_object (value, self->layout);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, fw_window_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_window_class_init (FwWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = fw_window_dispose;
  object_class->get_property = fw_window_get_property;
  window_class->close_request = fw_window_close_request;

  properties[PROP_PROJECT] = g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_LAYOUT] = g_param_spec_object ("layout", NULL, NULL, FW_TYPE_LAYOUT,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (FW_TYPE_GRAPH_VIEW);
  g_type_ensure (FW_TYPE_CANDIDATE_LIST);
  g_type_ensure (FW_TYPE_INSPECTOR);
  g_type_ensure (FW_TYPE_ROOFLINE_VIEW);
  g_type_ensure (FW_TYPE_SUMMARY_VIEW);
  g_type_ensure (FW_TYPE_SUPERKERNEL_LIST);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/fusionworkbench/FusionWorkbench/fw-window.ui");
  gtk_widget_class_bind_template_child (widget_class, FwWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, progress_label);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, graph_view);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, candidate_list);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, inspector);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, side_stack);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, roofline_view);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, summary_view);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, superkernel_list);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, dims_revealer);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, dims_label);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, dims_entries);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, dims_apply);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, empty_plan_label);
  gtk_widget_class_bind_template_callback (widget_class, on_dims_apply);
  gtk_widget_class_bind_template_callback (widget_class, on_overlay_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_fused_toggled);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, fused_button);
  gtk_widget_class_bind_template_child (widget_class, FwWindow, overlay_dropdown);
  gtk_widget_class_bind_template_callback (widget_class, on_list_candidate_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_graph_candidate_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_roofline_candidate_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_graph_node_selected);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_search_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_search_next);
  gtk_widget_class_bind_template_callback (widget_class, on_search_previous);
  gtk_widget_class_bind_template_callback (widget_class, on_search_stop);
}

static void
on_recent_changed (FwWindow *self)
{
  rebuild_recent_section (self);
}

static void
fw_window_init (FwWindow *self)
{
  GtkDropTarget *drop;
  GtkEventController *key;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = fw_settings_new ();
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));

  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  key = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_search_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), key);

  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));

  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (on_recent_changed), self, G_CONNECT_SWAPPED);
  rebuild_recent_section (self);

  fw_window_actions_init (self);
  fw_window_superkernel_init (self);
  fw_window_add_shortcuts (self);
  fw_window_actions_update (self);
}

FwWindow *
fw_window_new (AdwApplication *application)
{
  return g_object_new (FW_TYPE_WINDOW, "application", application, NULL);
}

GtkWindow *
fw_window_show_export (FwWindow *self)
{
  FwExportDialog *dialog;

  g_return_val_if_fail (FW_IS_WINDOW (self), NULL);

  if (self->project == NULL)
    return NULL;
  /* One export dialog per window: a second request brings the open one forward. */
  if (self->export_dialog != NULL)
    {
      gtk_window_present (self->export_dialog);
      return self->export_dialog;
    }
  dialog = fw_export_dialog_new (self);
  g_set_weak_pointer (&self->export_dialog, GTK_WINDOW (dialog));
  gtk_window_present (GTK_WINDOW (dialog));
  return GTK_WINDOW (dialog);
}
