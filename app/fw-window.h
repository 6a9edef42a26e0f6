/* fw-window.h: the workbench window: opens a model (chooser, drop, recent files, command line), loads it,
 * plans it into an FwProject and lays it out, all off the main thread with progress and a Cancel button,
 * then hands the project and layout to the graph view, the candidate list and the inspector and keeps
 * them in step. It holds no model state of its own beyond what it passes to the views. */
#pragma once

#include <adwaita.h>

#include "layout/fw-layout.h"
#include "session/fw-check.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_WINDOW (fw_window_get_type ())

G_DECLARE_FINAL_TYPE (FwWindow, fw_window, FW, WINDOW, AdwApplicationWindow)

FwWindow  *fw_window_new          (AdwApplication *application);
/* Rule files or folders and whitelists every later open loads after those of the preferences (the command
 * line's --rules and --whitelist); NULL for none. */
void       fw_window_set_open_files (FwWindow *self, const char * const *rules, const char * const *whitelists);
/* Loads file (asynchronously, through FwOpen); a load in progress is cancelled. */
void       fw_window_open         (FwWindow *self, GFile *file);
/* "project" and "layout": NULL until a model is loaded and laid out. */
FwProject *fw_window_get_project  (FwWindow *self);
FwLayout  *fw_window_get_layout   (FwWindow *self);
/* "busy": a model is being loaded, planned or laid out, or a check or an export runs. */
gboolean   fw_window_get_busy     (FwWindow *self);
/* Compiles and verifies (and with measure, times) the fused plan in a thread; results go to the project. */
void       fw_window_run_check    (FwWindow *self, gboolean measure);
/* The last check that finished for the shown project, or NULL. */
FwCheck   *fw_window_get_last_check (FwWindow *self);
/* Opens the export dialog (the window's "export" action) and returns it. */
GtkWindow *fw_window_show_export  (FwWindow *self);
/* Shows message as a toast. */
void       fw_window_toast        (FwWindow *self, const char *message);

G_END_DECLS
