/* fw-onnx-reader-tensor.c: TensorProto: its fields, and its elements from raw_data (a slice of the file
 * mapping), the typed fields, or external data files inside the model's folder. */
#include "config.h"

#include <inttypes.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-reader-private.h"

/* ---- tensors ---- */

static gboolean
safe_relative_path (const char *location)
{
  g_auto(GStrv) parts = NULL;

  if (location[0] == '\0' || g_path_is_absolute (location) || strchr (location, '\\') != NULL)
    return FALSE;
  parts = g_strsplit (location, "/", -1);
  for (guint i = 0; parts[i]; i++)
    if (strcmp (parts[i], "..") == 0)
      return FALSE;
  return TRUE;
}

static GBytes *
map_external (Ctx *ctx, gsize offset, const char *location, gint64 ext_offset, gint64 ext_length,
              gint64 expected, GError **error)
{
  g_autofree char *joined = NULL;
  g_autofree char *real = NULL;
  g_autofree char *prefix = NULL;
  GMappedFile *mapped;
  struct stat st;
  gsize file_size;

  if (ctx->base_dir_real == NULL)
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("tensor data is external (“%s”) but the model was not read from a folder"), location);
      return NULL;
    }
  if (!safe_relative_path (location))
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("external data location “%s” leaves the model's folder; only relative paths inside it are allowed"),
                  location);
      return NULL;
    }
  joined = g_build_filename (ctx->base_dir_real, location, NULL);
  real = realpath (joined, NULL);
  if (real == NULL)
    {
      int saved = errno;
      fw_rd_fail (ctx, offset, error, FW_ERROR_IO, _("cannot open external data file “%s”: %s"), location,
                  g_strerror (saved));
      return NULL;
    }
  prefix = g_strconcat (ctx->base_dir_real, "/", NULL);
  if (!g_str_has_prefix (real, prefix))
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("external data location “%s” resolves to “%s”, outside the model's folder"),
                  location, real);
      return NULL;
    }
  if (stat (real, &st) != 0 || !S_ISREG (st.st_mode))
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("external data location “%s” is not a regular file"), location);
      return NULL;
    }
  mapped = g_hash_table_lookup (ctx->model->external_maps, real);
  if (mapped == NULL)
    {
      GError *local = NULL;
      mapped = g_mapped_file_new (real, FALSE, &local);
      if (mapped == NULL)
        {
          fw_rd_fail (ctx, offset, error, FW_ERROR_IO, _("cannot map external data file “%s”: %s"), location,
                      local->message);
          g_error_free (local);
          return NULL;
        }
      if (g_mapped_file_get_length (mapped) > 0)
        madvise (g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped), MADV_RANDOM);
      g_hash_table_insert (ctx->model->external_maps, g_strdup (real), mapped);
    }
  file_size = g_mapped_file_get_length (mapped);
  if (ext_length >= 0 && ext_length != expected)
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("external data “%s” gives length %" PRId64 " but the tensor needs %" PRId64 " bytes"),
                  location, ext_length, expected);
      return NULL;
    }
  if (ext_offset < 0 || (guint64) ext_offset > file_size || (guint64) expected > file_size - (guint64) ext_offset)
    {
      fw_rd_fail (ctx, offset, error, FW_ERROR_INVALID,
                  _("external data “%s”: bytes %" PRId64 "–%" PRId64 " run past the end of the file (%zu bytes)"),
                  location, ext_offset, ext_offset + expected, file_size);
      return NULL;
    }
  {
    g_autoptr(GBytes) whole = g_mapped_file_get_bytes (mapped);
    return g_bytes_new_from_bytes (whole, (gsize) ext_offset, (gsize) expected);
  }
}

gboolean
fw_rd_parse_entry (Ctx *ctx, const FwPbField *outer, char **key, char **value, GError **error)
{
  FwPbField f;
  FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
    {
      if (f.field == ENTRY_KEY && !fw_rd_take_name (ctx, &f, N_("key"), key, error))
        return FALSE;
      if (f.field == ENTRY_VALUE && !fw_rd_take_name (ctx, &f, N_("value"), value, error))
        return FALSE;
    }
  return _st != FW_PB_ERROR;
}

/* Converts the varints of int32_data / int64_data / uint64_data to packed little-endian elements. */
static GBytes *
pack_ints (FwDType dtype, GArray *values)
{
  guint bits = fw_dtype_bits (dtype);
  gsize width = bits / 8;
  guint8 *buf = g_malloc0 (MAX (values->len * width, 1));

  for (guint i = 0; i < values->len; i++)
    {
      gint64 v = g_array_index (values, gint64, i);
      guint64 le = GUINT64_TO_LE ((guint64) v);
      /* Little-endian truncation: the low `width` bytes of the 64-bit value. */
      memcpy (buf + i * width, &le, width);
    }
  return g_bytes_new_take (buf, values->len * width);
}

/* What a TensorProto's fields say, before they are checked against each other. */
typedef struct
{
  GArray     *dims;          /* gint64 */
  GArray     *ints;          /* gint64: int32_data, int64_data, uint64_data */
  GByteArray *fixed;         /* float_data or double_data, little-endian */
  GPtrArray  *strings;       /* GBytes */
  char       *name;
  char       *location;      /* external_data */
  gint64      dtype_code, data_location, ext_offset, ext_length;
  FwPbField   raw_field;
  gboolean    have_raw, have_float, have_double, have_ints, have_int32, have_uint64;
} TensorFields;

/* int4 / uint4 in int32_data: onnx.proto stores them packed there too, one byte (two elements, the first in
 * the low nibble) per int32, so a tensor of n elements has (n + 1) / 2 entries of 0 to 255. */
static GBytes *
pack_4bit_ints (Ctx *ctx, const guint8 *data, TensorFields *t, gint64 n_elements, GError **error)
{
  gint64 want = (n_elements + 1) / 2;
  guint8 *buf;

  if ((gint64) t->ints->len != want)
    {
      fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                  _("int32_data holds %u entries but %" PRId64 " elements of %s, packed two an entry, need %" PRId64),
                  t->ints->len, n_elements, fw_dtype_name ((FwDType) t->dtype_code), want);
      return NULL;
    }
  buf = g_malloc0 (MAX (want, 1));
  for (guint i = 0; i < t->ints->len; i++)
    {
      gint64 v = g_array_index (t->ints, gint64, i);

      if (v < 0 || v > 255)
        {
          g_free (buf);
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                      _("int32_data entry %u of a %s tensor is %" PRId64 ", not a byte of two packed elements"),
                      i, fw_dtype_name ((FwDType) t->dtype_code), v);
          return NULL;
        }
      buf[i] = (guint8) v;
    }
  return g_bytes_new_take (buf, (gsize) want);
}

static void
tensor_fields_clear (TensorFields *t)
{
  g_clear_pointer (&t->dims, g_array_unref);
  g_clear_pointer (&t->ints, g_array_unref);
  g_clear_pointer (&t->fixed, g_byte_array_unref);
  g_clear_pointer (&t->strings, g_ptr_array_unref);
  g_clear_pointer (&t->name, g_free);
  g_clear_pointer (&t->location, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (TensorFields, tensor_fields_clear)

/* One external_data entry: location, offset or length; other keys are ignored. */
static gboolean
parse_external_entry (Ctx *ctx, const FwPbField *f, TensorFields *t, GError **error)
{
  g_autofree char *key = NULL;
  g_autofree char *value = NULL;

  if (!fw_rd_expect_wire (ctx, f, FW_PB_LEN, "external_data", error) ||
      !fw_rd_parse_entry (ctx, f, &key, &value, error))
    return FALSE;
  if (key == NULL || value == NULL)
    return fw_rd_fail (ctx, f->offset, error, FW_ERROR_INVALID, _("external_data entry lacks a key or value"));
  if (strcmp (key, "location") == 0)
    { g_free (t->location); t->location = g_strdup (value); }
  else if (strcmp (key, "offset") == 0 || strcmp (key, "length") == 0)
    {
      char *end = NULL;
      gint64 v;
      errno = 0;
      v = g_ascii_strtoll (value, &end, 10);
      if (errno != 0 || end == value || *end != '\0' || v < 0)
        return fw_rd_fail (ctx, f->offset, error, FW_ERROR_INVALID,
                           _("external_data %s “%s” is not a non-negative integer"), key, value);
      if (key[0] == 'o')
        t->ext_offset = v;
      else
        t->ext_length = v;
    }
  return TRUE;
}

/* Reads the fields; from the name on, ctx->where (from mark) names the tensor. */
static gboolean
read_tensor_fields (Ctx *ctx, const guint8 *data, gsize len, gsize mark, TensorFields *t, GError **error)
{
  FwPbField f;

  FOR_EACH_FIELD (ctx, data, len, f, error)
    {
      switch (f.field)
        {
        case TENSOR_DIMS:
          if (!fw_rd_append_varints (ctx, &f, t->dims, error))
            return FALSE;
          if (t->dims->len > FW_MAX_RANK)
            return fw_rd_fail (ctx, f.offset, error, FW_ERROR_LIMIT, _("tensor has more than %d dims"), FW_MAX_RANK);
          break;
        case TENSOR_DATA_TYPE:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "data_type", error))
            return FALSE;
          t->dtype_code = (gint64) f.varint;
          break;
        case TENSOR_SEGMENT:
          return fw_rd_fail (ctx, f.offset, error, FW_ERROR_UNSUPPORTED, _("segmented tensors are not supported"));
        case TENSOR_FLOAT_DATA:
          t->have_float = TRUE;
          if (!fw_rd_append_fixed (ctx, &f, 4, t->fixed, error))
            return FALSE;
          break;
        case TENSOR_DOUBLE_DATA:
          t->have_double = TRUE;
          if (!fw_rd_append_fixed (ctx, &f, 8, t->fixed, error))
            return FALSE;
          break;
        case TENSOR_INT32_DATA:
        case TENSOR_INT64_DATA:
          t->have_ints = TRUE;
          t->have_int32 = t->have_int32 || f.field == TENSOR_INT32_DATA;
          if (!fw_rd_append_varints (ctx, &f, t->ints, error))
            return FALSE;
          break;
        case TENSOR_UINT64_DATA:
          t->have_uint64 = TRUE;
          if (!fw_rd_append_varints (ctx, &f, t->ints, error))
            return FALSE;
          break;
        case TENSOR_STRING_DATA:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "string_data", error))
            return FALSE;
          if (!fw_rd_account (ctx, f.len, f.offset, error))
            return FALSE;
          g_ptr_array_add (t->strings, g_bytes_new (f.data, f.len));
          break;
        case TENSOR_NAME:
          if (!fw_rd_take_name (ctx, &f, N_("tensor name"), &t->name, error))
            return FALSE;
          g_string_truncate (ctx->where, mark);
          g_string_append_printf (ctx->where, " “%s”", t->name);
          break;
        case TENSOR_RAW_DATA:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "raw_data", error))
            return FALSE;
          t->raw_field = f;
          t->have_raw = TRUE;
          break;
        case TENSOR_EXTERNAL_DATA:
          if (!parse_external_entry (ctx, &f, t, error))
            return FALSE;
          break;
        case TENSOR_DATA_LOCATION:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "data_location", error))
            return FALSE;
          t->data_location = (gint64) f.varint;
          break;
        default:
          break;
        }
    }
  return _st != FW_PB_ERROR;
}

/* The elements from the typed fields (float_data, double_data, the int fields), which must match dtype. */
static GBytes *
typed_field_bytes (Ctx *ctx, const guint8 *data, TensorFields *t, gint64 n_elements, GError **error)
{
  FwDType dt = (FwDType) t->dtype_code;
  gint64 count;
  gboolean ok_field;

  if (t->have_float || t->have_double)
    {
      guint width = t->have_float ? 4 : 8;
      ok_field = (t->have_float && (dt == FW_DTYPE_FLOAT || dt == FW_DTYPE_COMPLEX64)) ||
                 (t->have_double && (dt == FW_DTYPE_DOUBLE || dt == FW_DTYPE_COMPLEX128));
      count = t->fixed->len / width;
      if (dt == FW_DTYPE_COMPLEX64 || dt == FW_DTYPE_COMPLEX128)
        count /= 2;
      if (!ok_field)
        {
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                      _("tensor of %s stores its values in the wrong typed field"), fw_dtype_name (dt));
          return NULL;
        }
      if (count != n_elements)
        {
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                      _("tensor holds %" PRId64 " values for %" PRId64 " elements"), count, n_elements);
          return NULL;
        }
      return g_byte_array_free_to_bytes (g_steal_pointer (&t->fixed));
    }
  if (fw_dtype_is_4bit (dt) && t->have_int32 && !t->have_uint64)
    return pack_4bit_ints (ctx, data, t, n_elements, error);
  if (t->have_ints || t->have_uint64)
    {
      if (fw_dtype_bits (dt) < 8 || dt == FW_DTYPE_FLOAT || dt == FW_DTYPE_DOUBLE ||
          dt == FW_DTYPE_COMPLEX64 || dt == FW_DTYPE_COMPLEX128)
        {
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_UNSUPPORTED,
                      _("tensor of %s in typed int fields is not supported; use raw_data"), fw_dtype_name (dt));
          return NULL;
        }
      if ((gint64) t->ints->len != n_elements)
        {
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                      _("tensor holds %u values for %" PRId64 " elements"), t->ints->len, n_elements);
          return NULL;
        }
      return pack_ints (dt, t->ints);
    }
  if (n_elements == 0)
    return g_bytes_new (NULL, 0);
  fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
              _("tensor of %" PRId64 " elements has no data"), n_elements);
  return NULL;
}

/* The element bytes: from an external file, a slice of raw_data, or the typed fields. */
static GBytes *
tensor_bytes (Ctx *ctx, const guint8 *data, TensorFields *t, gint64 n_elements, gint64 expected, GError **error)
{
  const FwPbField *raw = t->have_raw ? &t->raw_field : NULL;

  if (t->data_location == 1 || t->location != NULL)
    {
      if (t->location == NULL)
        {
          fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                      _("tensor is marked external but its external_data has no location"));
          return NULL;
        }
      return map_external (ctx, fw_rd_offset_of (ctx, data), t->location, t->ext_offset, t->ext_length, expected,
                           error);
    }
  if (raw != NULL)
    {
      if ((gint64) raw->len != expected && fw_dtype_is_4bit ((FwDType) t->dtype_code))
        {
          fw_rd_fail (ctx, raw->offset, error, FW_ERROR_INVALID,
                      _("raw_data holds %zu bytes but %" PRId64 " elements of %s, packed two a byte, need %" PRId64),
                      raw->len, n_elements, fw_dtype_name ((FwDType) t->dtype_code), expected);
          return NULL;
        }
      if ((gint64) raw->len != expected)
        {
          fw_rd_fail (ctx, raw->offset, error, FW_ERROR_INVALID,
                      _("raw_data holds %zu bytes but %" PRId64 " elements of %s need %" PRId64),
                      raw->len, n_elements, fw_dtype_name ((FwDType) t->dtype_code), expected);
          return NULL;
        }
      /* A slice of the mapping: the weights are never copied, nor even read. */
      return g_bytes_new_from_bytes (ctx->weights, fw_rd_offset_of (ctx, raw->data), raw->len);
    }
  return typed_field_bytes (ctx, data, t, n_elements, error);
}

gboolean
fw_rd_parse_tensor (Ctx *ctx, const guint8 *data, gsize len, FwTensor **out, char **name_out, GError **error)
{
  g_auto(TensorFields) t = { 0 };
  gsize mark = ctx->where->len;
  gint64 n_elements, expected;
  g_autoptr(GBytes) bytes = NULL;
  FwTensor *tensor;

  if (!fw_rd_enter (ctx, data, error))
    return FALSE;
  t.dims = g_array_new (FALSE, FALSE, sizeof (gint64));
  t.ints = g_array_new (FALSE, FALSE, sizeof (gint64));
  t.fixed = g_byte_array_new ();
  t.strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  t.ext_length = -1;
  if (!read_tensor_fields (ctx, data, len, mark, &t, error))
    return FALSE;

  if (!fw_dtype_is_valid (t.dtype_code))
    return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                       _("tensor has data type %" PRId64 ", which is not an ONNX element type"), t.dtype_code);
  for (guint i = 0; i < t.dims->len; i++)
    if (g_array_index (t.dims, gint64, i) < 0)
      return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                         _("tensor dim %u is negative (%" PRId64 ")"), i, g_array_index (t.dims, gint64, i));
  if (!fw_dims_product (t.dims->len, (const gint64 *) t.dims->data, &n_elements))
    {
      g_autofree char *cap = fw_tensor_format_max_elements ();
      return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_LIMIT,
                         _("tensor claims more than %s elements (raise the cap with --max-tensor-elements)"), cap);
    }

  if (t.dtype_code == FW_DTYPE_STRING)
    {
      if (t.strings->len != (guint) n_elements)
        return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID,
                           _("string tensor has %u strings for %" PRId64 " elements"), t.strings->len, n_elements);
      tensor = fw_tensor_new_strings (t.dims->len, (const gint64 *) t.dims->data, t.strings);
    }
  else
    {
      if (!fw_dtype_bytes_for ((FwDType) t.dtype_code, n_elements, &expected))
        return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_INVALID, _("tensor size overflows"));
      bytes = tensor_bytes (ctx, data, &t, n_elements, expected, error);
      if (bytes == NULL)
        return FALSE;
      tensor = fw_tensor_new ((FwDType) t.dtype_code, t.dims->len, (const gint64 *) t.dims->data, bytes);
      if (t.location)
        {
          tensor->external_location = g_strdup (t.location);
          tensor->external_offset = t.ext_offset;
        }
    }
  g_string_truncate (ctx->where, mark);
  fw_rd_leave (ctx);
  *out = tensor;
  if (name_out)
    *name_out = g_steal_pointer (&t.name);
  return TRUE;
}
