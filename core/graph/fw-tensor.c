#include "config.h"

#include <string.h>

#include "fw-tensor.h"

static gint64 max_elements = FW_TENSOR_DEFAULT_MAX_ELEMENTS;

gint64
fw_tensor_get_max_elements (void)
{
  return max_elements;
}

void
fw_tensor_set_max_elements (gint64 n)
{
  max_elements = CLAMP (n, 1, G_GINT64_CONSTANT (1) << 62);
}

char *
fw_tensor_format_max_elements (void)
{
  if (max_elements == FW_TENSOR_DEFAULT_MAX_ELEMENTS)
    return g_strdup ("2^39");
  return g_strdup_printf ("%" G_GINT64_FORMAT, max_elements);
}

gboolean
fw_dims_product (guint rank, const gint64 *dims, gint64 *out)
{
  gint64 n = 1;

  for (guint i = 0; i < rank; i++)
    {
      if (dims[i] < 0)
        return FALSE;
      if (dims[i] == 0)
        {
          n = 0;
          continue;
        }
      if (n != 0 && dims[i] > FW_TENSOR_MAX_ELEMENTS / MAX (n, 1))
        {
          /* Keep scanning: a later zero dim makes the product 0, which is legal. */
          for (guint j = i + 1; j < rank; j++)
            if (dims[j] == 0)
              {
                *out = 0;
                return TRUE;
              }
          return FALSE;
        }
      n *= dims[i];
    }
  if (n > FW_TENSOR_MAX_ELEMENTS)
    return FALSE;
  *out = n;
  return TRUE;
}

static FwTensor *
tensor_alloc (FwDType dtype, guint rank, const gint64 *dims)
{
  FwTensor *t = g_new0 (FwTensor, 1);

  g_atomic_ref_count_init (&t->ref_count);
  t->dtype = dtype;
  t->rank = rank;
  t->dims = g_new0 (gint64, MAX (rank, 1));
  if (rank > 0)
    memcpy (t->dims, dims, rank * sizeof (gint64));
  if (!fw_dims_product (rank, dims, &t->n_elements))
    t->n_elements = -1;
  return t;
}

FwTensor *
fw_tensor_new (FwDType dtype, guint rank, const gint64 *dims, GBytes *data)
{
  FwTensor *t = tensor_alloc (dtype, rank, dims);

  t->data = data ? g_bytes_ref (data) : g_bytes_new (NULL, 0);
  return t;
}

FwTensor *
fw_tensor_new_strings (guint rank, const gint64 *dims, GPtrArray *strings)
{
  FwTensor *t = tensor_alloc (FW_DTYPE_STRING, rank, dims);

  t->strings = g_ptr_array_ref (strings);
  return t;
}

FwTensor *
fw_tensor_new_int64 (guint rank, const gint64 *dims, const gint64 *values)
{
  gint64 n = 1;
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  bytes = g_bytes_new (values, n * sizeof (gint64));
  return fw_tensor_new (FW_DTYPE_INT64, rank, dims, bytes);
}

FwTensor *
fw_tensor_new_float (guint rank, const gint64 *dims, const float *values)
{
  gint64 n = 1;
  g_autoptr(GBytes) bytes = NULL;

  for (guint i = 0; i < rank; i++)
    n *= dims[i];
  bytes = g_bytes_new (values, n * sizeof (float));
  return fw_tensor_new (FW_DTYPE_FLOAT, rank, dims, bytes);
}

FwTensor *
fw_tensor_ref (FwTensor *tensor)
{
  g_atomic_ref_count_inc (&tensor->ref_count);
  return tensor;
}

void
fw_tensor_unref (FwTensor *tensor)
{
  if (tensor == NULL)
    return;
  if (!g_atomic_ref_count_dec (&tensor->ref_count))
    return;
  g_clear_pointer (&tensor->data, g_bytes_unref);
  g_clear_pointer (&tensor->aligned, g_bytes_unref);
  g_clear_pointer (&tensor->strings, g_ptr_array_unref);
  g_free (tensor->external_location);
  g_free (tensor->dims);
  g_free (tensor);
}

/* raw_data sits wherever the protobuf put it inside the file's mapping, and the loader never copies it; but
 * kernels read floats and int64 that must be aligned. Copying on every run had cost resnet18 its 46 MB of
 * weights in memcpy per inference; the copy is made once here instead (malloc aligns to 16). */
GBytes *
fw_tensor_get_aligned_bytes (FwTensor *tensor, gsize align)
{
  gconstpointer p;
  GBytes *copy;
  gsize size = 0;

  g_return_val_if_fail (tensor != NULL && align <= 16, NULL);
  if (tensor->data == NULL)
    return NULL;
  p = g_bytes_get_data (tensor->data, &size);
  if (p == NULL || align <= 1 || (guintptr) p % align == 0)
    return tensor->data;
  copy = g_atomic_pointer_get (&tensor->aligned);
  if (copy != NULL)
    return copy;
  copy = g_bytes_new (p, size);
  if (!g_atomic_pointer_compare_and_exchange (&tensor->aligned, NULL, copy))
    {
      g_bytes_unref (copy);
      copy = g_atomic_pointer_get (&tensor->aligned);
    }
  return copy;
}

gconstpointer
fw_tensor_get_data (const FwTensor *tensor, gsize *size)
{
  if (tensor->data == NULL)
    {
      if (size)
        *size = 0;
      return NULL;
    }
  return g_bytes_get_data (tensor->data, size);
}

gsize
fw_tensor_get_byte_size (const FwTensor *tensor)
{
  return tensor->data ? g_bytes_get_size (tensor->data) : 0;
}

float
fw_half_to_float (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000) << 16;
  guint32 exp = (h >> 10) & 0x1f;
  guint32 mant = h & 0x3ff;
  guint32 bits;
  float f;

  if (exp == 0)
    {
      if (mant == 0)
        bits = sign;
      else
        {
          /* Subnormal: renormalise. */
          exp = 127 - 15 + 1;
          while ((mant & 0x400) == 0)
            {
              mant <<= 1;
              exp--;
            }
          mant &= 0x3ff;
          bits = sign | (exp << 23) | (mant << 13);
        }
    }
  else if (exp == 0x1f)
    bits = sign | 0x7f800000u | (mant << 13);
  else
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  memcpy (&f, &bits, sizeof f);
  return f;
}

guint16
fw_float_to_half (float f)
{
  guint32 x;
  guint32 sign, mant;
  gint32 exp;

  memcpy (&x, &f, sizeof x);
  sign = (x >> 16) & 0x8000;
  exp = (gint32) ((x >> 23) & 0xff) - 127 + 15;
  mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return (guint16) (sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 0x1f)
    return (guint16) (sign | 0x7c00);
  if (exp <= 0)
    {
      if (exp < -10)
        return (guint16) sign;
      mant |= 0x800000;
      {
        guint32 shift = (guint32) (14 - exp);
        guint32 half = mant >> shift;
        guint32 rem = mant & ((1u << shift) - 1);
        guint32 mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
          half++;
        return (guint16) (sign | half);
      }
    }
  {
    guint32 half = sign | ((guint32) exp << 10) | (mant >> 13);
    guint32 rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
      half++;
    return (guint16) half;
  }
}

float
fw_bfloat16_to_float (guint16 b)
{
  guint32 bits = (guint32) b << 16;
  float f;

  memcpy (&f, &bits, sizeof f);
  return f;
}

guint16
fw_float_to_bfloat16 (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return (guint16) ((u >> 16) | 0x40);   /* NaN stays a quiet NaN after truncation */
  u += 0x7fffu + ((u >> 16) & 1u);         /* round to nearest even */
  return (guint16) (u >> 16);
}

gboolean
fw_tensor_get_double (const FwTensor *tensor, gint64 index, double *out)
{
  gsize size = 0;
  const guint8 *p = fw_tensor_get_data (tensor, &size);
  guint bits = fw_dtype_bits (tensor->dtype);

  if (fw_dtype_is_4bit (tensor->dtype))
    {
      gint64 v;

      if (!fw_tensor_get_int64 (tensor, index, &v))
        return FALSE;
      *out = (double) v;
      return TRUE;
    }
  if (bits < 8 || index < 0 || (gsize) (index + 1) * (bits / 8) > size)
    return FALSE;
  p += index * (bits / 8);
  switch (tensor->dtype)
    {
    case FW_DTYPE_FLOAT: { float v; memcpy (&v, p, 4); *out = v; return TRUE; }
    case FW_DTYPE_DOUBLE: { double v; memcpy (&v, p, 8); *out = v; return TRUE; }
    case FW_DTYPE_FLOAT16: { guint16 v; memcpy (&v, p, 2); *out = fw_half_to_float (v); return TRUE; }
    case FW_DTYPE_BFLOAT16: { guint16 v; memcpy (&v, p, 2); *out = fw_bfloat16_to_float (v); return TRUE; }
    case FW_DTYPE_UINT64: { guint64 v; memcpy (&v, p, 8); *out = (double) v; return TRUE; }
    default:
      {
        gint64 v;
        if (!fw_tensor_get_int64 (tensor, index, &v))
          return FALSE;
        *out = (double) v;
        return TRUE;
      }
    }
}

gboolean
fw_tensor_get_int64 (const FwTensor *tensor, gint64 index, gint64 *out)
{
  gsize size = 0;
  const guint8 *p = fw_tensor_get_data (tensor, &size);
  guint bits = fw_dtype_bits (tensor->dtype);

  if (fw_dtype_is_4bit (tensor->dtype))
    {
      if (index < 0 || (gsize) index / 2 >= size)
        return FALSE;
      *out = fw_dtype_unpack_4bit (tensor->dtype, p, index);
      return TRUE;
    }
  if (bits < 8 || index < 0 || (gsize) (index + 1) * (bits / 8) > size)
    return FALSE;
  p += index * (bits / 8);
  switch (tensor->dtype)
    {
    case FW_DTYPE_INT64: { gint64 v; memcpy (&v, p, 8); *out = v; return TRUE; }
    case FW_DTYPE_INT32: { gint32 v; memcpy (&v, p, 4); *out = v; return TRUE; }
    case FW_DTYPE_INT16: { gint16 v; memcpy (&v, p, 2); *out = v; return TRUE; }
    case FW_DTYPE_INT8: { gint8 v; memcpy (&v, p, 1); *out = v; return TRUE; }
    case FW_DTYPE_UINT8:
    case FW_DTYPE_BOOL: { *out = p[0]; return TRUE; }
    case FW_DTYPE_UINT16: { guint16 v; memcpy (&v, p, 2); *out = v; return TRUE; }
    case FW_DTYPE_UINT32: { guint32 v; memcpy (&v, p, 4); *out = v; return TRUE; }
    case FW_DTYPE_UINT64: { guint64 v; memcpy (&v, p, 8); *out = (gint64) v; return TRUE; }
    case FW_DTYPE_FLOAT:
    case FW_DTYPE_DOUBLE:
    case FW_DTYPE_FLOAT16:
    case FW_DTYPE_BFLOAT16:
      {
        double d;
        if (!fw_tensor_get_double (tensor, index, &d) || !(d >= -9.2e18 && d <= 9.2e18))
          return FALSE;
        *out = (gint64) d;
        return TRUE;
      }
    default:
      return FALSE;
    }
}
