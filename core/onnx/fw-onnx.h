/* fw-onnx.h: ONNX in and out.
 *
 * The reader is a small decoder of the protobuf wire format written from onnx.proto's field numbers: it
 * maps the file, points initializers at their bytes inside the mapping (and external data files, mapped
 * too) and copies only names and small typed fields. Every malformed input is a GError naming the file, the
 * byte offset and the path inside the model; nothing is allocated in proportion to a size the file claims
 * before that size is checked against the bytes that are really there.
 *
 * The writer encodes a model back; it writes to a temporary file in the target folder, syncs and renames,
 * and refuses to write over the model's own source file.
 *
 * Writing a model with node sets replaced by function nodes is fw-onnx-rewrite.h. Opening a model with
 * progress, inference and a plan is FwOpen (core/session/fw-open.h). */
#pragma once

#include <gio/gio.h>

#include "graph/fw-model.h"

G_BEGIN_DECLS

/* Called from the loading thread with the share of the file parsed so far. */
typedef void (*FwProgressFunc) (gdouble fraction, gpointer user_data);

typedef struct
{
  guint          max_nodes;      /* 0: default 5,000,000 (subgraphs included) */
  guint          max_depth;      /* 0: default 64 nested graphs / messages */
  FwProgressFunc progress;       /* may be NULL; called every 1,024 nodes */
  gpointer       progress_data;
  guint64        max_alloc_bytes; /* 0: default 2 GiB: names, typed tensor data and the structure read */
} FwOnnxLoadOptions;

typedef enum {
  FW_ONNX_WRITE_DEFAULT = 0,
  /* Tensors of at least external_threshold bytes go to "<file>.data" beside the model. */
  FW_ONNX_WRITE_EXTERNAL_DATA = 1 << 0,
  /* Add value_info for every intermediate value whose shape is known. */
  FW_ONNX_WRITE_INFERRED_SHAPES = 1 << 1,
} FwOnnxWriteFlags;

FwModel  *fw_onnx_load          (const char              *path,
                                 const FwOnnxLoadOptions *options,
                                 GCancellable            *cancellable,
                                 GError                 **error);
/* Parses a model from memory (tests, fuzzing); display_name is used in errors, external data resolves
 * relative to base_dir (NULL refuses external data). */
FwModel  *fw_onnx_load_bytes    (GBytes                  *bytes,
                                 const char              *display_name,
                                 const char              *base_dir,
                                 const FwOnnxLoadOptions *options,
                                 GError                 **error);

GBytes   *fw_onnx_serialize     (FwModel                 *model,
                                 FwOnnxWriteFlags         flags,
                                 GError                 **error);
gboolean  fw_onnx_write         (FwModel                 *model,
                                 const char              *path,
                                 FwOnnxWriteFlags         flags,
                                 GError                 **error);

G_END_DECLS
