/* fw-window-check.c: "Compile and Verify" and "Measure" from the window: an FwCheck in a GTask thread with
 * the window's progress bar and Cancel button; the list, the inspector and the pictures show the results. */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-window-private.h"

static void
on_check_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;
  FwCheck *check = FW_CHECK (object);
  g_autoptr(GError) error = NULL;
  gboolean ok = fw_check_run_finish (check, result, &error);

  g_signal_handlers_disconnect_by_data (check, self);
  if (self->running_check != check)
    return;
  g_clear_object (&self->running_check);
  fw_window_end_job (self);
  if (!ok)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        fw_window_toast (self, _("Check cancelled"));
      else
        {
          g_autofree char *message = g_strdup_printf (_("The check failed: %s"), error->message);
          fw_window_toast (self, message);
        }
      return;
    }
  g_set_object (&self->last_check, check);
  {
    FwTargets *targets = fw_check_get_targets (check);
    guint n = targets->kernels->len, failed = fw_check_get_n_failed (check);
    g_autofree char *message = NULL;

    if (failed == 0)
      message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u SuperKernel compiled and verified",
                                              "%u SuperKernels compiled and verified", n), n);
    else
      /* TRANSLATORS: %u of %u SuperKernels */
      message = g_strdup_printf (_("%u of %u SuperKernels failed to compile or verify, on the host or the Ascend C "
                                   "twin: see the list"), failed, n);
    fw_window_toast (self, message);
  }
  fw_window_actions_update (self);
}

void
fw_window_run_check (FwWindow *self, gboolean measure)
{
  FwCheckOptions options;

  g_return_if_fail (FW_IS_WINDOW (self));

  if (self->project == NULL || fw_window_get_busy (self) || fw_project_get_busy (self->project))
    return;
  fw_check_options_init (&options);
  options.measure = measure;
  /* Verify puts every Ascend kernel through the twin too: its verdict sits beside the host's in the list. */
  options.twin = TRUE;
  g_clear_object (&self->running_check);
  self->running_check = fw_check_new (self->project, &options);
  fw_window_follow_progress (self, G_OBJECT (self->running_check));
  fw_window_begin_job (self, measure ? _("Compiling, verifying and measuring…") : _("Compiling and verifying…"));
  fw_check_run_async (self->running_check, self->job_cancellable, on_check_done, g_object_ref (self));
}
