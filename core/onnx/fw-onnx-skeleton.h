/* fw-onnx-skeleton.h: reads an ONNX file's structure without touching its weights.
 *
 * Mapping a 350 MB model and parsing it in place makes the kernel fault in (large folios of) the weights
 * next to every tensor header, which shows up as resident memory of the same order as the weights. Instead
 * a light first pass finds the raw_data payloads with pread, and the structure around them is read into an
 * anonymous, lazily backed buffer of the file's size at the same offsets. The reader parses that buffer and
 * takes tensor bytes as slices of the file mapping, which stays untouched until someone reads a weight. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FwOnnxSkeleton FwOnnxSkeleton;

/* NULL with errno-style error only for I/O failures; a malformed file gives a skeleton holding all of it,
 * so the real parser reports the problem with its place. */
FwOnnxSkeleton *fw_onnx_skeleton_read   (int              fd,
                                         gsize            file_size,
                                         guint            max_depth,
                                         GError         **error);
const guint8   *fw_onnx_skeleton_data   (FwOnnxSkeleton  *skeleton);
/* Bytes actually read from the file (the structure), for benchmarks. */
gsize           fw_onnx_skeleton_bytes_read (FwOnnxSkeleton *skeleton);
void            fw_onnx_skeleton_free   (FwOnnxSkeleton  *skeleton);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwOnnxSkeleton, fw_onnx_skeleton_free)

G_END_DECLS
