/* fw-dtype.h: element types, numbered as ONNX's TensorProto.DataType so no table maps between them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FW_DTYPE_UNDEFINED = 0,
  FW_DTYPE_FLOAT = 1,
  FW_DTYPE_UINT8 = 2,
  FW_DTYPE_INT8 = 3,
  FW_DTYPE_UINT16 = 4,
  FW_DTYPE_INT16 = 5,
  FW_DTYPE_INT32 = 6,
  FW_DTYPE_INT64 = 7,
  FW_DTYPE_STRING = 8,
  FW_DTYPE_BOOL = 9,
  FW_DTYPE_FLOAT16 = 10,
  FW_DTYPE_DOUBLE = 11,
  FW_DTYPE_UINT32 = 12,
  FW_DTYPE_UINT64 = 13,
  FW_DTYPE_COMPLEX64 = 14,
  FW_DTYPE_COMPLEX128 = 15,
  FW_DTYPE_BFLOAT16 = 16,
  FW_DTYPE_FLOAT8E4M3FN = 17,
  FW_DTYPE_FLOAT8E4M3FNUZ = 18,
  FW_DTYPE_FLOAT8E5M2 = 19,
  FW_DTYPE_FLOAT8E5M2FNUZ = 20,
  FW_DTYPE_UINT4 = 21,
  FW_DTYPE_INT4 = 22,
  FW_DTYPE_N_TYPES
} FwDType;

/* Bits per element; 0 for UNDEFINED and STRING (no fixed size). */
guint        fw_dtype_bits        (FwDType dtype);
/* Short lower-case name: "float32", "float16", "int64", "bool"… */
const char  *fw_dtype_name        (FwDType dtype);
gboolean     fw_dtype_from_name   (const char *name, FwDType *out);
gboolean     fw_dtype_is_valid    (gint64 code);
gboolean     fw_dtype_is_float    (FwDType dtype);
gboolean     fw_dtype_is_integer  (FwDType dtype);
/* int4 and uint4 (opset 21): two elements a byte in a tensor, the first in the low nibble. */
gboolean     fw_dtype_is_4bit     (FwDType dtype);
/* Element index of packed int4 / uint4 bytes (dtype says which), int4 sign-extended. */
gint         fw_dtype_unpack_4bit (FwDType dtype, const guint8 *packed, gint64 index);
/* Bytes needed for n elements, rounded up for 4-bit types; FALSE on overflow or for STRING. */
gboolean     fw_dtype_bytes_for   (FwDType dtype, gint64 n_elements, gint64 *out_bytes);

G_END_DECLS
