/* fw-export-dialog.c: choose a folder and what to write, then FwExport in a thread with progress. */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "fw-export-dialog.h"
#include "fw-window-private.h"
#include "export/fw-export.h"
#include "report/fw-model-explorer.h"

struct _FwExportDialog
{
  AdwWindow parent_instance;

  FwWindow *window;          /* weak: the dialog is transient for it and dies with it */
  FwProject *project;
  char *folder;
  char *error;
  FwExport *export;          /* while running */
  GCancellable *cancellable;

  AdwActionRow *folder_row;
  AdwActionRow *fused_row;
  AdwActionRow *whitelist_row;
  AdwActionRow *report_row;
  AdwActionRow *model_explorer_row;
  GtkCheckButton *fused_check;
  GtkCheckButton *whitelist_check;
  GtkCheckButton *kernels_check;
  GtkCheckButton *report_check;
  GtkCheckButton *model_explorer_check;
  GtkButton *export_button;
  GtkButton *cancel_button;
  GtkButton *choose_button;
  GtkWidget *contents_group;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkLabel *progress_label;
};

G_DEFINE_FINAL_TYPE (FwExportDialog, fw_export_dialog, ADW_TYPE_WINDOW)

enum {
  PROP_0,
  PROP_FOLDER,
  PROP_RUNNING,
  PROP_ERROR,
  N_PROPS
};

enum {
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static gboolean
anything_chosen (FwExportDialog *self)
{
  return gtk_check_button_get_active (self->fused_check) || gtk_check_button_get_active (self->whitelist_check) ||
         gtk_check_button_get_active (self->kernels_check) || gtk_check_button_get_active (self->report_check) ||
         gtk_check_button_get_active (self->model_explorer_check);
}

static void
update_sensitivity (FwExportDialog *self)
{
  gboolean running = self->export != NULL;

  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button),
                            !running && self->folder != NULL && anything_chosen (self));
  gtk_widget_set_sensitive (GTK_WIDGET (self->choose_button), !running);
  gtk_widget_set_sensitive (self->contents_group, !running);
}

static void
on_contents_changed (FwExportDialog *self)
{
  update_sensitivity (self);
}

void
fw_export_dialog_set_folder (FwExportDialog *self, const char *folder)
{
  g_return_if_fail (FW_IS_EXPORT_DIALOG (self));

  if (g_strcmp0 (self->folder, folder) == 0)
    return;
  g_free (self->folder);
  self->folder = g_strdup (folder);
  adw_action_row_set_subtitle (self->folder_row, folder != NULL ? folder : "");
  update_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLDER]);
}

const char *
fw_export_dialog_get_folder (FwExportDialog *self)
{
  g_return_val_if_fail (FW_IS_EXPORT_DIALOG (self), NULL);
  return self->folder;
}

void
fw_export_dialog_set_contents (FwExportDialog *self, gboolean fused_model, gboolean whitelist, gboolean kernels,
                               gboolean report)
{
  g_return_if_fail (FW_IS_EXPORT_DIALOG (self));

  gtk_check_button_set_active (self->fused_check, fused_model);
  gtk_check_button_set_active (self->whitelist_check, whitelist);
  gtk_check_button_set_active (self->kernels_check, kernels);
  gtk_check_button_set_active (self->report_check, report);
}

void
fw_export_dialog_set_model_explorer (FwExportDialog *self, gboolean model_explorer)
{
  g_return_if_fail (FW_IS_EXPORT_DIALOG (self));
  gtk_check_button_set_active (self->model_explorer_check, model_explorer);
}

/* MODEL for MODEL.onnx: the name the Model Explorer files take. */
static char *
model_base_name (FwProject *project)
{
  const char *path = fw_model_get_path (fw_project_get_model (project));
  char *base = g_path_get_basename (path != NULL ? path : "model");

  if (g_str_has_suffix (base, ".onnx"))
    base[strlen (base) - strlen (".onnx")] = '\0';
  return base;
}

/* After the export proper: Model Explorer's graph and node data, with the check's timings when it measured
 * this plan. Quick next to the export, so on the main thread. */
static gboolean
write_model_explorer (FwExportDialog *self, FwCheck *check, guint *n_written, GError **error)
{
  g_autofree char *base = NULL;
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func (g_free);

  if (!gtk_check_button_get_active (self->model_explorer_check))
    return TRUE;
  base = model_base_name (self->project);
  if (!fw_model_explorer_write (fw_project_get_plan (self->project), check ? fw_check_get_measure (check) : NULL,
                                self->folder, base, written, error))
    return FALSE;
  *n_written += written->len;
  return TRUE;
}

gboolean
fw_export_dialog_get_running (FwExportDialog *self)
{
  g_return_val_if_fail (FW_IS_EXPORT_DIALOG (self), FALSE);
  return self->export != NULL;
}

const char *
fw_export_dialog_get_error (FwExportDialog *self)
{
  g_return_val_if_fail (FW_IS_EXPORT_DIALOG (self), NULL);
  return self->error;
}

static void
set_error (FwExportDialog *self, const char *message)
{
  g_free (self->error);
  self->error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR]);
}

static void
on_export_progress (FwExportDialog *self)
{
  gtk_progress_bar_set_fraction (self->progress_bar, fw_export_get_fraction (self->export));
  if (fw_export_get_message (self->export) != NULL)
    gtk_label_set_text (self->progress_label, fw_export_get_message (self->export));
}

static void
on_export_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwExportDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = fw_export_run_finish (FW_EXPORT (object), result, &error);
  guint n_written = fw_export_get_written (FW_EXPORT (object))->len;
  g_autoptr(FwCheck) check = g_object_get_data (object, "check") ? g_object_ref (g_object_get_data (object, "check")) : NULL;

  g_signal_handlers_disconnect_by_data (object, self);
  g_clear_object (&self->export);
  g_clear_object (&self->cancellable);
  fw_project_set_busy (self->project, FALSE);
  if (self->window != NULL)
    fw_window_end_job (self->window);
  /* Closed with its window while the export ran: nothing left to show. */
  if (self->progress_bar == NULL)
    return;
  update_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);

  /* Written with the plan still as exported: the project is not busy any more, but nothing ran since. */
  if (ok)
    ok = write_model_explorer (self, check, &n_written, &error);
  if (!ok)
    {
      const char *message = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                            ? _("Export cancelled; files already written are complete, nothing was left half-written")
                            : error->message;
      set_error (self, message);
      gtk_label_set_text (self->progress_label, message);
      gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
      g_signal_emit (self, signals[FINISHED], 0, FALSE);
      return;
    }
  set_error (self, NULL);
  g_signal_emit (self, signals[FINISHED], 0, TRUE);
  if (self->window != NULL)
    {
      /* TRANSLATORS: %u files or folders, %s the folder */
      g_autofree char *message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Exported %u item to %s",
                                                               "Exported %u items to %s", n_written),
                                                  n_written, self->folder);
      fw_window_toast (self->window, message);
    }
  gtk_window_close (GTK_WINDOW (self));
}

void
fw_export_dialog_start (FwExportDialog *self)
{
  FwExportOptions options;
  FwCheck *check;

  g_return_if_fail (FW_IS_EXPORT_DIALOG (self));

  if (self->export != NULL || self->folder == NULL || !anything_chosen (self))
    return;
  if (fw_project_get_busy (self->project) || (self->window != NULL && fw_window_get_busy (self->window)))
    {
      set_error (self, _("Another task is running on this model; wait for it or cancel it"));
      gtk_label_set_text (self->progress_label, self->error);
      gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
      return;
    }
  fw_export_options_init (&options);
  options.fused_model = gtk_check_button_get_active (self->fused_check);
  options.whitelist = gtk_check_button_get_active (self->whitelist_check);
  options.kernels = gtk_check_button_get_active (self->kernels_check);
  options.report = gtk_check_button_get_active (self->report_check);
  options.model_report = fw_project_get_model_report (self->project);
  /* Scopes the user made go into the report and the package; the automatic ones only with batch's
   * --superkernel auto, as before. */
  {
    g_autoptr(GPtrArray) decided = fw_plan_get_user_scopes (fw_project_get_plan (self->project));

    if (decided->len > 0)
      options.superkernel = fw_project_get_superkernel_plan (self->project);
  }
  /* A check of this very plan (same revision) puts its verification and timings into the report. */
  check = self->window != NULL ? fw_window_get_last_check (self->window) : NULL;
  if (check != NULL && fw_check_get_project (check) == self->project &&
      fw_check_get_revision (check) == fw_project_get_revision (self->project))
    {
      options.verify = fw_check_get_verify (check);
      options.measure = fw_check_get_measure (check);
    }
  self->export = fw_export_new (fw_project_get_model (self->project), fw_project_get_plan (self->project),
                                self->folder, &options);
  /* The check's results are borrowed: keep it alive for the run. */
  if (check != NULL)
    g_object_set_data_full (G_OBJECT (self->export), "check", g_object_ref (check), g_object_unref);
  g_signal_connect_swapped (self->export, "notify::fraction", G_CALLBACK (on_export_progress), self);
  g_signal_connect_swapped (self->export, "notify::message", G_CALLBACK (on_export_progress), self);
  set_error (self, NULL);
  gtk_progress_bar_set_fraction (self->progress_bar, 0.0);
  gtk_label_set_text (self->progress_label, _("Exporting…"));
  gtk_revealer_set_reveal_child (self->progress_revealer, TRUE);
  fw_project_set_busy (self->project, TRUE);
  /* The window's Cancel button and closing the window stop the export too. */
  if (self->window != NULL)
    {
      fw_window_begin_job (self->window, _("Exporting…"));
      self->cancellable = g_object_ref (self->window->job_cancellable);
    }
  else
    self->cancellable = g_cancellable_new ();
  update_sensitivity (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
  fw_export_run_async (self->export, self->cancellable, on_export_done, g_object_ref (self));
}

void
fw_export_dialog_cancel (FwExportDialog *self)
{
  g_return_if_fail (FW_IS_EXPORT_DIALOG (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

static void
on_export_clicked (FwExportDialog *self)
{
  fw_export_dialog_start (self);
}

static void
on_cancel_clicked (FwExportDialog *self)
{
  if (self->export != NULL)
    fw_export_dialog_cancel (self);
  else
    gtk_window_close (GTK_WINDOW (self));
}

static void
on_folder_chosen (GtkNativeDialog *native, int response, gpointer user_data)
{
  g_autoptr(FwExportDialog) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        fw_export_dialog_set_folder (self, path);
    }
  gtk_native_dialog_destroy (native);
  g_object_unref (native);
}

static void
on_choose_clicked (FwExportDialog *self)
{
  GtkFileChooserNative *native = gtk_file_chooser_native_new (_("Export To"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                              _("_Select"), _("_Cancel"));

  if (self->folder != NULL && g_file_test (self->folder, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GFile) current = g_file_new_for_path (self->folder);
      gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (native), current, NULL);
    }
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect (native, "response", G_CALLBACK (on_folder_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* Closing while an export runs cancels it; the dialog goes once the task has returned. */
static gboolean
fw_export_dialog_close_request (GtkWindow *window)
{
  FwExportDialog *self = FW_EXPORT_DIALOG (window);

  if (self->export != NULL)
    {
      fw_export_dialog_cancel (self);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (fw_export_dialog_parent_class)->close_request (window);
}

static void
fw_export_dialog_dispose (GObject *object)
{
  FwExportDialog *self = FW_EXPORT_DIALOG (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_weak_pointer (&self->window);
  gtk_widget_dispose_template (GTK_WIDGET (self), FW_TYPE_EXPORT_DIALOG);
  G_OBJECT_CLASS (fw_export_dialog_parent_class)->dispose (object);
}

static void
fw_export_dialog_finalize (GObject *object)
{
  FwExportDialog *self = FW_EXPORT_DIALOG (object);

  g_clear_object (&self->project);
  g_clear_object (&self->export);
  g_clear_object (&self->cancellable);
  g_free (self->folder);
  g_free (self->error);
  G_OBJECT_CLASS (fw_export_dialog_parent_class)->finalize (object);
}

static void
fw_export_dialog_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwExportDialog *self = FW_EXPORT_DIALOG (object);

  switch (prop_id)
    {
    case PROP_FOLDER: g_value_set_string (value, self->folder); break;
    case PROP_RUNNING: g_value_set_boolean (value, self->export != NULL); break;
    case PROP_ERROR: g_value_set_string (value, self->error); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_export_dialog_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwExportDialog *self = FW_EXPORT_DIALOG (object);

  switch (prop_id)
    {
    case PROP_FOLDER: fw_export_dialog_set_folder (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_export_dialog_class_init (FwExportDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = fw_export_dialog_dispose;
  object_class->finalize = fw_export_dialog_finalize;
  object_class->get_property = fw_export_dialog_get_property;
  object_class->set_property = fw_export_dialog_set_property;
  window_class->close_request = fw_export_dialog_close_request;

  properties[PROP_FOLDER] = g_param_spec_string ("folder", NULL, NULL, NULL,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                 G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  properties[PROP_ERROR] = g_param_spec_string ("error", NULL, NULL, NULL,
                                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                    NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/fusionworkbench/FusionWorkbench/fw-export-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, folder_row);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, fused_row);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, whitelist_row);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, report_row);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, model_explorer_row);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, model_explorer_check);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, fused_check);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, whitelist_check);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, kernels_check);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, report_check);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, export_button);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, choose_button);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, contents_group);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, progress_revealer);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, FwExportDialog, progress_label);
  gtk_widget_class_bind_template_callback (widget_class, on_contents_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_export_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_cancel_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_choose_clicked);
}

static void
fw_export_dialog_init (FwExportDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

FwExportDialog *
fw_export_dialog_new (FwWindow *window)
{
  FwExportDialog *self;
  FwProject *project;
  FwModel *model;
  g_autofree char *folder = NULL, *fused = NULL, *whitelist = NULL, *json = NULL, *markdown = NULL;
  g_autofree char *report = NULL;

  g_return_val_if_fail (FW_IS_WINDOW (window), NULL);
  project = fw_window_get_project (window);
  g_return_val_if_fail (project != NULL, NULL);

  self = g_object_new (FW_TYPE_EXPORT_DIALOG, "transient-for", window, "destroy-with-parent", TRUE, NULL);
  g_set_weak_pointer (&self->window, window);
  self->project = g_object_ref (project);

  model = fw_project_get_model (project);
  fused = fw_export_file_name (model, FW_EXPORT_FUSED_MODEL);
  whitelist = fw_export_file_name (model, FW_EXPORT_WHITELIST);
  json = fw_export_file_name (model, FW_EXPORT_REPORT_JSON);
  markdown = fw_export_file_name (model, FW_EXPORT_REPORT_MARKDOWN);
  report = g_strconcat (json, ", ", markdown, NULL);
  adw_action_row_set_subtitle (self->fused_row, fused);
  adw_action_row_set_subtitle (self->whitelist_row, whitelist);
  adw_action_row_set_subtitle (self->report_row, report);
  {
    g_autofree char *base = model_base_name (project);
    /* Translators: the files the Model Explorer export writes; %s is the model's name */
    g_autofree char *explorer = g_strdup_printf (_("%s.model-explorer.json and node data (refusal codes, µs saved)"),
                                                 base);

    adw_action_row_set_subtitle (self->model_explorer_row, explorer);
  }
  folder = fw_export_default_folder (model);
  fw_export_dialog_set_folder (self, folder);
  return self;
}
