#include "config.h"

#include <string.h>

#include "fw-dtype.h"

static const struct {
  const char *name;
  guint bits;
} dtype_info[FW_DTYPE_N_TYPES] = {
  [FW_DTYPE_UNDEFINED] = { "undefined", 0 },
  [FW_DTYPE_FLOAT] = { "float32", 32 },
  [FW_DTYPE_UINT8] = { "uint8", 8 },
  [FW_DTYPE_INT8] = { "int8", 8 },
  [FW_DTYPE_UINT16] = { "uint16", 16 },
  [FW_DTYPE_INT16] = { "int16", 16 },
  [FW_DTYPE_INT32] = { "int32", 32 },
  [FW_DTYPE_INT64] = { "int64", 64 },
  [FW_DTYPE_STRING] = { "string", 0 },
  [FW_DTYPE_BOOL] = { "bool", 8 },
  [FW_DTYPE_FLOAT16] = { "float16", 16 },
  [FW_DTYPE_DOUBLE] = { "float64", 64 },
  [FW_DTYPE_UINT32] = { "uint32", 32 },
  [FW_DTYPE_UINT64] = { "uint64", 64 },
  [FW_DTYPE_COMPLEX64] = { "complex64", 64 },
  [FW_DTYPE_COMPLEX128] = { "complex128", 128 },
  [FW_DTYPE_BFLOAT16] = { "bfloat16", 16 },
  [FW_DTYPE_FLOAT8E4M3FN] = { "float8e4m3fn", 8 },
  [FW_DTYPE_FLOAT8E4M3FNUZ] = { "float8e4m3fnuz", 8 },
  [FW_DTYPE_FLOAT8E5M2] = { "float8e5m2", 8 },
  [FW_DTYPE_FLOAT8E5M2FNUZ] = { "float8e5m2fnuz", 8 },
  [FW_DTYPE_UINT4] = { "uint4", 4 },
  [FW_DTYPE_INT4] = { "int4", 4 },
};

gboolean
fw_dtype_is_valid (gint64 code)
{
  return code > FW_DTYPE_UNDEFINED && code < FW_DTYPE_N_TYPES;
}

guint
fw_dtype_bits (FwDType dtype)
{
  if ((guint) dtype >= FW_DTYPE_N_TYPES)
    return 0;
  return dtype_info[dtype].bits;
}

const char *
fw_dtype_name (FwDType dtype)
{
  if ((guint) dtype >= FW_DTYPE_N_TYPES)
    return "undefined";
  return dtype_info[dtype].name;
}

gboolean
fw_dtype_from_name (const char *name, FwDType *out)
{
  for (guint i = 1; i < FW_DTYPE_N_TYPES; i++)
    if (strcmp (dtype_info[i].name, name) == 0)
      {
        *out = (FwDType) i;
        return TRUE;
      }
  if (strcmp (name, "float") == 0)
    {
      *out = FW_DTYPE_FLOAT;
      return TRUE;
    }
  if (strcmp (name, "double") == 0)
    {
      *out = FW_DTYPE_DOUBLE;
      return TRUE;
    }
  return FALSE;
}

gboolean
fw_dtype_is_float (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
    case FW_DTYPE_FLOAT16:
    case FW_DTYPE_DOUBLE:
    case FW_DTYPE_BFLOAT16:
    case FW_DTYPE_FLOAT8E4M3FN:
    case FW_DTYPE_FLOAT8E4M3FNUZ:
    case FW_DTYPE_FLOAT8E5M2:
    case FW_DTYPE_FLOAT8E5M2FNUZ:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
fw_dtype_is_integer (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_UINT8:
    case FW_DTYPE_INT8:
    case FW_DTYPE_UINT16:
    case FW_DTYPE_INT16:
    case FW_DTYPE_INT32:
    case FW_DTYPE_INT64:
    case FW_DTYPE_UINT32:
    case FW_DTYPE_UINT64:
    case FW_DTYPE_UINT4:
    case FW_DTYPE_INT4:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
fw_dtype_is_4bit (FwDType dtype)
{
  return dtype == FW_DTYPE_INT4 || dtype == FW_DTYPE_UINT4;
}

gint
fw_dtype_unpack_4bit (FwDType dtype, const guint8 *packed, gint64 index)
{
  gint nibble = (packed[index / 2] >> (4 * (index % 2))) & 0xf;

  return dtype == FW_DTYPE_INT4 ? (nibble ^ 8) - 8 : nibble;
}

gboolean
fw_dtype_bytes_for (FwDType dtype, gint64 n_elements, gint64 *out_bytes)
{
  guint bits = fw_dtype_bits (dtype);

  if (bits == 0 || n_elements < 0)
    return FALSE;
  if (n_elements > G_MAXINT64 / 16)
    return FALSE;
  *out_bytes = (n_elements * bits + 7) / 8;
  return TRUE;
}
