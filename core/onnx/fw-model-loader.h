/* fw-model-loader.h: loads a model and infers its shapes, with progress and cancellation, for the window
 * (async, in a GTask thread) and batch mode (blocking) alike.
 *
 * Progress is reported through the `fraction` and `message` properties; with the async form their
 * notifications are emitted in the thread-default main context of the caller, never in the worker thread. */
#pragma once

#include <gio/gio.h>

#include "graph/fw-model.h"
#include "shape/fw-shape-infer.h"

G_BEGIN_DECLS

#define FW_TYPE_MODEL_LOADER (fw_model_loader_get_type ())

G_DECLARE_FINAL_TYPE (FwModelLoader, fw_model_loader, FW, MODEL_LOADER, GObject)

FwModelLoader       *fw_model_loader_new                (const char           *path);
const char          *fw_model_loader_get_path           (FwModelLoader        *self);
/* symbol → gint64*; the table is referenced, not copied. */
void                 fw_model_loader_set_bindings       (FwModelLoader        *self,
                                                         GHashTable           *bindings);
void                 fw_model_loader_set_limits         (FwModelLoader        *self,
                                                         guint                 max_nodes,
                                                         guint                 max_depth);
/* Bytes the model may make the reader copy (0: default 2 GiB). */
void                 fw_model_loader_set_max_alloc      (FwModelLoader        *self,
                                                         guint64               bytes);
gdouble              fw_model_loader_get_fraction       (FwModelLoader        *self);
const char          *fw_model_loader_get_message        (FwModelLoader        *self);
/* The symbolic dims the model declares (before bindings), sorted; valid after a successful load. */
const char * const  *fw_model_loader_get_symbols        (FwModelLoader        *self);
/* What inference found, valid after a successful load. */
const FwInferReport *fw_model_loader_get_infer_report   (FwModelLoader        *self);
FwModel             *fw_model_loader_load               (FwModelLoader        *self,
                                                         GCancellable         *cancellable,
                                                         GError              **error);
void                 fw_model_loader_load_async         (FwModelLoader        *self,
                                                         GCancellable         *cancellable,
                                                         GAsyncReadyCallback   callback,
                                                         gpointer              user_data);
FwModel             *fw_model_loader_load_finish        (FwModelLoader        *self,
                                                         GAsyncResult         *result,
                                                         GError              **error);

G_END_DECLS
