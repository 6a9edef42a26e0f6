/* fw-export.h: what leaves the workbench for a model: the fused model, the fusion whitelist, the kernel
 * package (host SuperKernels and Ascend C) and the report, each optional, into one folder. Batch mode
 * (--export DIR) and the window's export dialog both go through here.
 *
 * Files are named after the model: MODEL.fused.onnx, MODEL.fusion.yaml, kernels/, MODEL.report.json and
 * MODEL.report.md. Every file is written atomically, and no path may be the input model or one of its
 * external data files: such an export fails before anything is written.
 *
 * A blocking form and an _async/_finish pair with progress (`fraction`, `message`) and cancellation. The
 * run only reads the plan: the caller keeps it still (the window marks its FwProject busy). No GTK. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "codegen/fw-targets.h"
#include "exec/fw-fused.h"
#include "graph/fw-model.h"
#include "plan/fw-plan.h"
#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

typedef struct
{
  gboolean          fused_model;
  gboolean          whitelist;
  gboolean          kernels;
  gboolean          report;
  gboolean          host;           /* kernels: host SuperKernels (compiled) */
  gboolean          ascend;         /* kernels: Ascend C sources */
  const char       *cache_dir;      /* kernels: NULL for the default kernel cache */
  /* Borrowed, optional: kernels already built for this plan (else built here when kernels is set); the
   * report's model part (else a minimal one from the model); verification and measurement of this plan. */
  FwTargets        *targets;
  JsonNode         *model_report;
  FwVerifyResult   *verify;
  FwMeasureResult  *measure;
  const FwSkPlan   *superkernel;  /* its scopes' Ascend SuperKernels go into the kernel package and the
                                     scopes into the report's "superkernel" (borrowed; NULL: none) */
} FwExportOptions;

typedef enum
{
  FW_EXPORT_FUSED_MODEL,
  FW_EXPORT_WHITELIST,
  FW_EXPORT_KERNELS,
  FW_EXPORT_REPORT_JSON,
  FW_EXPORT_REPORT_MARKDOWN,
} FwExportPart;

/* The name a part gets in the export folder for model ("bert.fused.onnx", "kernels"). */
char        *fw_export_file_name     (FwModel               *model,
                                      FwExportPart           part);

/* MODEL-export beside the model: a folder of its own, so exports of two models never mix. */
char        *fw_export_default_folder (FwModel              *model);

/* Everything on, both targets, nothing borrowed. */
void         fw_export_options_init  (FwExportOptions *options);

#define FW_TYPE_EXPORT (fw_export_get_type ())
G_DECLARE_FINAL_TYPE (FwExport, fw_export, FW, EXPORT, GObject)

/* model and plan are borrowed and must outlive the export; options is copied (its borrowed pointers are
 * not). */
FwExport    *fw_export_new           (FwModel               *model,
                                      FwPlan                *plan,
                                      const char            *dir,
                                      const FwExportOptions *options);
gdouble      fw_export_get_fraction  (FwExport              *self);
const char  *fw_export_get_message   (FwExport              *self);
/* The paths the export wrote, in order (files, then the kernels folder); valid after a run. */
GPtrArray   *fw_export_get_written   (FwExport              *self);

gboolean     fw_export_run           (FwExport              *self,
                                      GCancellable          *cancellable,
                                      GError               **error);
void         fw_export_run_async     (FwExport              *self,
                                      GCancellable          *cancellable,
                                      GAsyncReadyCallback    callback,
                                      gpointer               user_data);
gboolean     fw_export_run_finish    (FwExport              *self,
                                      GAsyncResult          *result,
                                      GError               **error);

G_END_DECLS
