/* fw-array.c: run-time tensors. */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#include "fw-array.h"
#include "fw-array-pool-private.h"
#include "fw-error.h"

#define FW_ARRAY_ALIGN 64

gsize
fw_array_element_size (FwDType dtype)
{
  return fw_dtype_is_4bit (dtype) ? 1 : fw_dtype_bits (dtype) / 8;
}

/* Storage bytes of n elements: one byte per 4-bit element (see fw-array.h), else the dtype's own size. */
static gboolean
storage_bytes (FwDType dtype, gint64 n, gint64 *out)
{
  if (!fw_dtype_is_4bit (dtype))
    return fw_dtype_bytes_for (dtype, n, out);
  if (n < 0 || n > G_MAXINT64 / 16)
    return FALSE;
  *out = n;
  return TRUE;
}

static gboolean
check_dtype (FwDType dtype, GError **error)
{
  if (dtype == FW_DTYPE_STRING || fw_array_element_size (dtype) == 0 ||
      (fw_dtype_bits (dtype) % 8 != 0 && !fw_dtype_is_4bit (dtype)))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("tensors of type %s cannot be computed on the host"), fw_dtype_name (dtype));
      return FALSE;
    }
  return TRUE;
}

static FwArray *
array_alloc (FwDType dtype, guint rank, const gint64 *dims, gboolean zero, GError **error)
{
  gint64 n = 1, n_bytes = 0;
  FwArray *array;
  gpointer data = NULL;

  if (!check_dtype (dtype, error))
    return NULL;
  if (rank > FW_MAX_RANK)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("rank %u is over the limit of %d"), rank, FW_MAX_RANK);
      return NULL;
    }
  for (guint i = 0; i < rank; i++)
    if (dims[i] < 0)
      {
        g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("dimension %u is negative (%" PRId64 ")"),
                     i, dims[i]);
        return NULL;
      }
  if (!fw_dims_product (rank, dims, &n) || !storage_bytes (dtype, n, &n_bytes))
    {
      g_autofree char *cap = fw_tensor_format_max_elements ();
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT,
                   _("a tensor of this shape would have more than %s elements (--max-tensor-elements raises the cap)"),
                   cap);
      return NULL;
    }
  data = fw_array_pool_take (MAX (n_bytes, 1));
  if (data == NULL && (posix_memalign (&data, FW_ARRAY_ALIGN, MAX (n_bytes, 1)) != 0 || data == NULL))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("cannot allocate %" PRId64 " bytes for a tensor"),
                   n_bytes);
      return NULL;
    }
  if (zero)
    memset (data, 0, MAX (n_bytes, 1));
  array = fw_array_pool_new_struct ();
  g_atomic_ref_count_init (&array->ref_count);
  array->dtype = dtype;
  array->rank = rank;
  if (rank > 0)
    memcpy (array->dims, dims, rank * sizeof (gint64));
  array->n_elements = n;
  array->n_bytes = (gsize) n_bytes;
  array->data = data;
  array->owned = TRUE;
  return array;
}

FwArray *
fw_array_new (FwDType dtype, guint rank, const gint64 *dims, GError **error)
{
  return array_alloc (dtype, rank, dims, FALSE, error);
}

FwArray *
fw_array_new0 (FwDType dtype, guint rank, const gint64 *dims, GError **error)
{
  return array_alloc (dtype, rank, dims, TRUE, error);
}

/* A 4-bit constant's packed bytes (two elements a byte, the low nibble first, as ONNX stores them) spread
 * to one byte an element, int4 sign-extended: kernels then index it like int8 or uint8. The caller has
 * checked the byte count. */
static FwArray *
unpack_4bit (FwTensor *tensor, const guint8 *packed, GError **error)
{
  gsize size = fw_tensor_get_byte_size (tensor);
  FwArray *array;

  if (size != (gsize) (tensor->n_elements + 1) / 2)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("a %s constant of %" PRId64 " elements holds %zu bytes; packed two a byte it needs %" PRId64),
                   fw_dtype_name (tensor->dtype), tensor->n_elements, size, (tensor->n_elements + 1) / 2);
      return NULL;
    }
  if ((array = fw_array_new (tensor->dtype, tensor->rank, tensor->dims, error)) == NULL)
    return NULL;
  for (gint64 i = 0; i < array->n_elements; i++)
    ((guint8 *) array->data)[i] = (guint8) fw_dtype_unpack_4bit (tensor->dtype, packed, i);
  return array;
}

/* Storage for empty tensors borrowed from constants with no bytes. */
static guint64 empty_storage[8];

FwArray *
fw_array_new_from_tensor (FwTensor *tensor, GError **error)
{
  FwArray *array;
  GBytes *bytes;
  gsize size = 0;
  gconstpointer data;

  if (!check_dtype (tensor->dtype, error))
    return NULL;
  if (tensor->rank > FW_MAX_RANK)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("rank %u is over the limit of %d"), tensor->rank,
                   FW_MAX_RANK);
      return NULL;
    }
  data = tensor->data ? g_bytes_get_data (tensor->data, &size) : NULL;
  if (size != fw_tensor_get_byte_size (tensor))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("a constant holds %zu bytes where its shape needs %zu"),
                   size, fw_tensor_get_byte_size (tensor));
      return NULL;
    }
  if (fw_dtype_is_4bit (tensor->dtype))
    return unpack_4bit (tensor, (const guint8 *) data, error);
  /* raw_data sits wherever the protobuf put it inside the mapping; kernels read it as float or int64,
   * which must be aligned: what is not is read from the tensor's aligned copy, made once. */
  bytes = tensor->data ? fw_tensor_get_aligned_bytes (tensor, MAX (1u, MIN (16u, fw_dtype_bits (tensor->dtype) / 8)))
                       : NULL;
  data = bytes ? g_bytes_get_data (bytes, &size) : NULL;
  array = fw_array_pool_new_struct ();
  g_atomic_ref_count_init (&array->ref_count);
  array->dtype = tensor->dtype;
  array->rank = tensor->rank;
  if (tensor->rank > 0)
    memcpy (array->dims, tensor->dims, tensor->rank * sizeof (gint64));
  array->n_elements = tensor->n_elements;
  array->n_bytes = size;
  array->data = (gpointer) (data != NULL ? data : (gconstpointer) empty_storage);
  array->borrowed = bytes ? g_bytes_ref (bytes) : NULL;
  return array;
}

FwArray *
fw_array_copy (const FwArray *array, GError **error)
{
  FwArray *copy = fw_array_new (array->dtype, array->rank, array->dims, error);

  if (copy != NULL && array->n_bytes > 0)
    memcpy (copy->data, array->data, array->n_bytes);
  if (copy != NULL)
    {
      copy->nhwc = array->nhwc;
      copy->block = array->block;
    }
  return copy;
}

/* (N, C, H, W) ↔ (N, H, W, C) element copy, or ↔ the NHWC layout of (N · C / block, block, H, W) when
 * block is not 0; to_nhwc says which way. */
static FwArray *
transpose_channels (const FwArray *array, gboolean to_nhwc, guint block, GError **error)
{
  const gint64 N = array->dims[0], C = array->dims[1], HW = array->dims[2] * array->dims[3];
  const gint64 B = block != 0 ? (gint64) block : C;
  gsize es = fw_array_element_size (array->dtype);
  FwArray *out;

  if (array->rank != 4 || es == 0 || array->nhwc == to_nhwc || B == 0 || C % B != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("only a rank-4 array changes to or from channels-last"));
      return NULL;
    }
  if ((out = fw_array_new (array->dtype, array->rank, array->dims, error)) == NULL)
    return NULL;
  for (gint64 n = 0; n < N; n++)
    for (gint64 c = 0; c < C; c++)
      for (gint64 p = 0; p < HW; p++)
        {
          gint64 plain = (n * C + c) * HW + p, last = ((n * (C / B) + c / B) * HW + p) * B + c % B;
          memcpy ((guint8 *) out->data + (to_nhwc ? last : plain) * es,
                  (const guint8 *) array->data + (to_nhwc ? plain : last) * es, es);
        }
  out->nhwc = to_nhwc;
  out->block = to_nhwc ? block : 0;
  return out;
}

FwArray *
fw_array_to_plain (FwArray *array, GError **error)
{
  return array->nhwc ? transpose_channels (array, FALSE, array->block, error) : fw_array_ref (array);
}

FwArray *
fw_array_to_nhwc (const FwArray *array, guint block, GError **error)
{
  return transpose_channels (array, TRUE, block, error);
}

FwArray *
fw_array_reshape (FwArray *array, guint rank, const gint64 *dims, GError **error)
{
  FwArray *view;
  gint64 n = 1;

  if (array->nhwc)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("a channels-last array cannot be viewed with other dims"));
      return NULL;
    }
  if (rank > FW_MAX_RANK)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("rank %u is over the limit of %d"), rank, FW_MAX_RANK);
      return NULL;
    }
  for (guint i = 0; i < rank; i++)
    if (dims[i] < 0)
      {
        g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("dimension %u is negative (%" PRId64 ")"),
                     i, dims[i]);
        return NULL;
      }
  if (!fw_dims_product (rank, dims, &n) || n != array->n_elements)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("cannot view %" PRId64 " elements with a shape of another size"), array->n_elements);
      return NULL;
    }
  view = fw_array_pool_new_struct ();
  g_atomic_ref_count_init (&view->ref_count);
  view->dtype = array->dtype;
  view->rank = rank;
  if (rank > 0)
    memcpy (view->dims, dims, rank * sizeof (gint64));
  view->n_elements = n;
  view->n_bytes = array->n_bytes;
  view->data = array->data;
  view->base = fw_array_ref (array);
  return view;
}

FwArray *
fw_array_ref (FwArray *array)
{
  g_atomic_ref_count_inc (&array->ref_count);
  return array;
}

void
fw_array_unref (FwArray *array)
{
  if (array == NULL || !g_atomic_ref_count_dec (&array->ref_count))
    return;
  if (array->owned)
    fw_array_pool_give (array->data, MAX (array->n_bytes, 1));
  if (array->borrowed)
    g_bytes_unref (array->borrowed);
  if (array->base)
    fw_array_unref (array->base);
  fw_array_pool_free_struct (array);
}

gdouble
fw_array_get_double (const FwArray *array, gint64 index)
{
  const guint8 *p = array->data;

  switch (array->dtype)
    {
    case FW_DTYPE_FLOAT: return ((const float *) p)[index];
    case FW_DTYPE_DOUBLE: return ((const double *) p)[index];
    case FW_DTYPE_FLOAT16: return fw_half_to_float (((const guint16 *) p)[index]);
    case FW_DTYPE_BFLOAT16: return fw_bfloat16_to_float (((const guint16 *) p)[index]);
    case FW_DTYPE_INT8:
    case FW_DTYPE_INT4: return ((const gint8 *) p)[index];
    case FW_DTYPE_UINT8:
    case FW_DTYPE_UINT4: return ((const guint8 *) p)[index];
    case FW_DTYPE_BOOL: return ((const guint8 *) p)[index] != 0;
    case FW_DTYPE_INT16: return ((const gint16 *) p)[index];
    case FW_DTYPE_UINT16: return ((const guint16 *) p)[index];
    case FW_DTYPE_INT32: return ((const gint32 *) p)[index];
    case FW_DTYPE_UINT32: return ((const guint32 *) p)[index];
    case FW_DTYPE_INT64: return (gdouble) ((const gint64 *) p)[index];
    case FW_DTYPE_UINT64: return (gdouble) ((const guint64 *) p)[index];
    default: return 0.0;
    }
}

gint64
fw_array_get_int64 (const FwArray *array, gint64 index)
{
  const guint8 *p = array->data;

  switch (array->dtype)
    {
    case FW_DTYPE_INT64: return ((const gint64 *) p)[index];
    case FW_DTYPE_UINT64: return (gint64) ((const guint64 *) p)[index];
    case FW_DTYPE_INT32: return ((const gint32 *) p)[index];
    case FW_DTYPE_UINT32: return ((const guint32 *) p)[index];
    case FW_DTYPE_INT16: return ((const gint16 *) p)[index];
    case FW_DTYPE_UINT16: return ((const guint16 *) p)[index];
    case FW_DTYPE_INT8:
    case FW_DTYPE_INT4: return ((const gint8 *) p)[index];
    case FW_DTYPE_UINT8:
    case FW_DTYPE_UINT4: return ((const guint8 *) p)[index];
    case FW_DTYPE_BOOL: return ((const guint8 *) p)[index] != 0;
    default:
      {
        gdouble d = fw_array_get_double (array, index);
        /* Saturate: casting an out-of-range double to an integer is undefined. */
        if (!(d == d))
          return 0;
        if (d >= 9.2233720368547758e18)
          return G_MAXINT64;
        if (d <= -9.2233720368547758e18)
          return G_MININT64;
        return (gint64) d;
      }
    }
}

void
fw_array_set_double (FwArray *array, gint64 index, gdouble value)
{
  guint8 *p = array->data;
  gint64 iv;

  switch (array->dtype)
    {
    case FW_DTYPE_FLOAT: ((float *) p)[index] = (float) value; return;
    case FW_DTYPE_DOUBLE: ((double *) p)[index] = value; return;
    case FW_DTYPE_FLOAT16: ((guint16 *) p)[index] = fw_float_to_half ((float) value); return;
    case FW_DTYPE_BFLOAT16: ((guint16 *) p)[index] = fw_float_to_bfloat16 ((float) value); return;
    case FW_DTYPE_BOOL: p[index] = value != 0.0; return;
    default:
      break;
    }
  if (!(value == value))
    iv = 0;
  else if (value >= 9.2233720368547758e18)
    iv = G_MAXINT64;
  else if (value <= -9.2233720368547758e18)
    iv = G_MININT64;
  else
    iv = (gint64) value;
  switch (array->dtype)
    {
    case FW_DTYPE_INT64: ((gint64 *) p)[index] = iv; break;
    case FW_DTYPE_UINT64: ((guint64 *) p)[index] = (guint64) iv; break;
    case FW_DTYPE_INT32: ((gint32 *) p)[index] = (gint32) iv; break;
    case FW_DTYPE_UINT32: ((guint32 *) p)[index] = (guint32) iv; break;
    case FW_DTYPE_INT16: ((gint16 *) p)[index] = (gint16) iv; break;
    case FW_DTYPE_UINT16: ((guint16 *) p)[index] = (guint16) iv; break;
    case FW_DTYPE_INT8: ((gint8 *) p)[index] = (gint8) iv; break;
    case FW_DTYPE_UINT8: p[index] = (guint8) iv; break;
    /* Wrapped to 4 bits as a cast would, int4 sign-extended back into its byte. */
    case FW_DTYPE_INT4: ((gint8 *) p)[index] = (gint8) (((iv & 0xf) ^ 8) - 8); break;
    case FW_DTYPE_UINT4: p[index] = (guint8) (iv & 0xf); break;
    default: break;
    }
}

FwTensor *
fw_array_to_tensor (const FwArray *array)
{
  g_autoptr(GBytes) bytes = NULL;

  if (fw_dtype_is_4bit (array->dtype))
    {
      /* Back to the file's form: two a byte, the low nibble first, the last high nibble 0 when odd. */
      gsize n = (gsize) (array->n_elements + 1) / 2;
      guint8 *packed = g_malloc0 (MAX (n, 1));

      for (gint64 i = 0; i < array->n_elements; i++)
        packed[i / 2] |= (guint8) ((((const guint8 *) array->data)[i] & 0xf) << (4 * (i % 2)));
      bytes = g_bytes_new_take (packed, n);
    }
  else
    bytes = g_bytes_new (array->data, array->n_bytes);

  return fw_tensor_new (array->dtype, array->rank, array->dims, bytes);
}

char *
fw_array_format_shape (const FwArray *array)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < array->rank; i++)
    g_string_append_printf (s, "%s%" PRId64, i ? "," : "", array->dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

gboolean
fw_array_same_shape (const FwArray *a, const FwArray *b)
{
  return a->rank == b->rank && (a->rank == 0 || memcmp (a->dims, b->dims, a->rank * sizeof (gint64)) == 0);
}
