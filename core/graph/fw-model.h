/* fw-model.h: a loaded model: the root graph plus what the file said about itself (IR version, opset
 * imports, producer, metadata) and the file mappings its initializers point into.
 *
 * The model keeps its source file mapped for as long as it lives; it never writes to it. */
#pragma once

#include <gio/gio.h>

#include "fw-graph.h"

G_BEGIN_DECLS

#define FW_TYPE_MODEL (fw_model_get_type ())

G_DECLARE_FINAL_TYPE (FwModel, fw_model, FW, MODEL, GObject)

typedef struct
{
  const char *domain;   /* "" for ai.onnx */
  gint64      version;
} FwOpsetImport;

FwModel       *fw_model_new                 (void);
const char    *fw_model_get_path            (FwModel      *self);
FwGraph       *fw_model_get_graph           (FwModel      *self);
gint64         fw_model_get_ir_version      (FwModel      *self);
void           fw_model_set_ir_version      (FwModel      *self,
                                             gint64        ir_version);
guint          fw_model_get_n_opsets        (FwModel      *self);
const FwOpsetImport *fw_model_get_opset     (FwModel      *self,
                                             guint         index);
/* Version imported for domain ("" or "ai.onnx" for the default domain); 0 when not imported. */
gint64         fw_model_get_opset_version   (FwModel      *self,
                                             const char   *domain);
void           fw_model_set_opset_version   (FwModel      *self,
                                             const char   *domain,
                                             gint64        version);
const char    *fw_model_get_producer_name   (FwModel      *self);
const char    *fw_model_get_producer_version(FwModel      *self);
/* Bytes of all initializers (including nested subgraphs). */
guint64        fw_model_get_initializer_bytes (FwModel    *self);
guint64        fw_model_get_file_size       (FwModel      *self);
/* Whether path names (through any link) the model's own file or one of its external data files: nothing
 * may ever be written there. */
gboolean       fw_model_is_source_file      (FwModel      *self,
                                             const char   *path);

G_END_DECLS
