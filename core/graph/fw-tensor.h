/* fw-tensor.h: constant tensor data (initializers, Constant attributes, folded shape values).
 *
 * Data is held as a GBytes so an initializer can point into the mmap'd model file without a copy; a tensor
 * never owns more than a reference to that mapping. Elements are little-endian, packed as ONNX raw_data
 * lays them out. STRING tensors keep their strings in a separate array. */
#pragma once

#include <glib.h>

#include "fw-dtype.h"

G_BEGIN_DECLS

/* No tensor may claim more elements than this: by default 2^39, about 5.5e11 (a 2 TiB float32 tensor).
 * Beyond it a model is hostile or broken; 10^12-element claims are refused. The cap is process-wide and
 * may be raised once at start-up (--max-tensor-elements), before any model is read. */
#define FW_TENSOR_DEFAULT_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 39)
#define FW_TENSOR_MAX_ELEMENTS (fw_tensor_get_max_elements ())
#define FW_MAX_RANK 64

typedef struct _FwTensor FwTensor;

struct _FwTensor
{
  gatomicrefcount ref_count;
  FwDType dtype;
  guint rank;
  gint64 *dims;
  gint64 n_elements;
  GBytes *data;        /* n_elements × dtype size bytes; NULL for STRING */
  GPtrArray *strings;  /* GBytes per element for STRING tensors */
  /* Where the bytes came from, so a writer can keep external data external. */
  char *external_location;
  gint64 external_offset;
  /* An aligned copy of data, made on first use where data is not aligned (fw_tensor_get_aligned_bytes). */
  GBytes *aligned;
};

/* The tensor's bytes starting at a multiple of align (at most 16): data itself when it does, else a copy
 * made once, kept with the tensor and shared by every later caller (thread-safe). Owned by the tensor. */
GBytes       *fw_tensor_get_aligned_bytes (FwTensor *tensor,
                                           gsize     align);

/* Takes a reference on data; data must hold exactly the bytes n_elements needs. */
FwTensor     *fw_tensor_new             (FwDType        dtype,
                                         guint          rank,
                                         const gint64  *dims,
                                         GBytes        *data);
FwTensor     *fw_tensor_new_strings     (guint          rank,
                                         const gint64  *dims,
                                         GPtrArray     *strings);
FwTensor     *fw_tensor_new_int64       (guint          rank,
                                         const gint64  *dims,
                                         const gint64  *values);
FwTensor     *fw_tensor_new_float       (guint          rank,
                                         const gint64  *dims,
                                         const float   *values);
FwTensor     *fw_tensor_ref             (FwTensor      *tensor);
void          fw_tensor_unref           (FwTensor      *tensor);
gconstpointer fw_tensor_get_data        (const FwTensor *tensor,
                                         gsize         *size);
gsize         fw_tensor_get_byte_size   (const FwTensor *tensor);
/* Element i converted; FALSE if the dtype has no such conversion (string, complex). */
gboolean      fw_tensor_get_int64       (const FwTensor *tensor,
                                         gint64         index,
                                         gint64        *out);
gboolean      fw_tensor_get_double      (const FwTensor *tensor,
                                         gint64         index,
                                         double        *out);
gint64        fw_tensor_get_max_elements (void);
/* Clamped to [1, 2^62]. */
void          fw_tensor_set_max_elements (gint64         n);
/* The cap as users read it in messages: "2^39" by default, else the number. */
char         *fw_tensor_format_max_elements (void);
/* Product of dims with overflow and FW_TENSOR_MAX_ELEMENTS checks. */
gboolean      fw_dims_product           (guint          rank,
                                         const gint64  *dims,
                                         gint64        *out);
float         fw_half_to_float          (guint16        h);
guint16       fw_float_to_half          (float          f);
float         fw_bfloat16_to_float      (guint16        b);
/* Round to nearest even; NaN stays NaN. */
guint16       fw_float_to_bfloat16      (float          f);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwTensor, fw_tensor_unref)

G_END_DECLS
