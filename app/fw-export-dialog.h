/* fw-export-dialog.h: the export dialog: the fused model, the whitelist, the kernel package and the report,
 * each optional, into a chosen folder, as a background task (FwExport) with progress and Cancel. The plan
 * is held still (the project is busy) while it runs; the input model is never overwritten (FwExport refuses
 * such a folder before writing anything). */
#pragma once

#include <adwaita.h>

#include "fw-window.h"

G_BEGIN_DECLS

#define FW_TYPE_EXPORT_DIALOG (fw_export_dialog_get_type ())
G_DECLARE_FINAL_TYPE (FwExportDialog, fw_export_dialog, FW, EXPORT_DIALOG, AdwWindow)

/* For window's project; verification and measurement of window's last check go into the report when they
 * still describe the plan. */
FwExportDialog *fw_export_dialog_new          (FwWindow       *window);
/* "folder": where to write (a local path). */
void            fw_export_dialog_set_folder   (FwExportDialog *self, const char *folder);
const char     *fw_export_dialog_get_folder   (FwExportDialog *self);
/* "fused-model", "whitelist", "kernels", "report": what to write. */
void            fw_export_dialog_set_contents (FwExportDialog *self,
                                               gboolean        fused_model,
                                               gboolean        whitelist,
                                               gboolean        kernels,
                                               gboolean        report);
/* Whether Model Explorer's graph and node data files are written too (on by default). */
void            fw_export_dialog_set_model_explorer (FwExportDialog *self,
                                                     gboolean        model_explorer);
/* Starts the export (the Export button). */
void            fw_export_dialog_start        (FwExportDialog *self);
/* Cancels a running export (the Cancel button while it runs). */
void            fw_export_dialog_cancel       (FwExportDialog *self);
/* "running": an export is in progress. */
gboolean        fw_export_dialog_get_running  (FwExportDialog *self);
/* The last export's error message, or NULL when it succeeded or none ran ("error" property). */
const char     *fw_export_dialog_get_error    (FwExportDialog *self);
/* Signal "finished" (gboolean success): after each export, before the dialog closes on success. */

G_END_DECLS
