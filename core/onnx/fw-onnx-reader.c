#include "config.h"

#include <inttypes.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-onnx.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-skeleton.h"
#include "fw-pb.h"
#include "graph/fw-model-private.h"
#include "ops/fw-op-registry.h"

#define DEFAULT_MAX_NODES 5000000u
#define DEFAULT_MAX_DEPTH 64u
#define DEFAULT_MAX_ALLOC (G_GUINT64_CONSTANT (2) << 30)
#define MIN_IR_VERSION 3
#define MAX_IR_VERSION 10
#define MIN_OPSET 7
#define MAX_OPSET 21

typedef struct
{
  const char   *display;     /* the file, as the user named it */
  const guint8 *base;
  gsize         size;
  GBytes       *bytes;       /* the structure: base..base+size */
  GBytes       *weights;     /* the same offsets in the file mapping, for raw_data slices */
  char         *base_dir_real;
  FwModel      *model;
  GString      *where;       /* path inside the model: graph.node[3] “conv1”.attribute “pads” */
  guint         depth;
  guint         max_depth;
  guint         n_nodes;
  guint         max_nodes;
  guint64       allocated;   /* bytes copied out of the file so far */
  guint64       max_alloc;
  GCancellable *cancellable;
  FwProgressFunc progress;
  gpointer      progress_data;
} Ctx;

static gboolean parse_graph (Ctx *ctx, const guint8 *data, gsize len, FwGraph *graph, GError **error);

G_GNUC_PRINTF (5, 6) static gboolean
fail (Ctx *ctx, gsize offset, GError **error, gint code, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (ctx->where->len > 0)
    g_set_error (error, FW_ERROR, code, _("%s: byte %zu, in %s: %s"),
                 ctx->display, offset, ctx->where->str, message);
  else
    g_set_error (error, FW_ERROR, code, _("%s: byte %zu: %s"), ctx->display, offset, message);
  return FALSE;
}

static gsize
offset_of (Ctx *ctx, const guint8 *p)
{
  return (gsize) (p - ctx->base);
}

/* What a file makes us copy is bounded by its own size, but a packed varint list grows eightfold: every
 * copy is counted against a cap, so a hostile file cannot make the program allocate without limit. */
static gboolean
account (Ctx *ctx, guint64 bytes, gsize offset, GError **error)
{
  if (bytes > ctx->max_alloc || ctx->allocated > ctx->max_alloc - bytes)
    {
      g_autofree char *cap = g_format_size_full (ctx->max_alloc, G_FORMAT_SIZE_IEC_UNITS);
      return fail (ctx, offset, error, FW_ERROR_LIMIT,
                   _("the model would make the program allocate more than %s (raise the cap with --max-alloc-mb)"),
                   cap);
    }
  ctx->allocated += bytes;
  return TRUE;
}

static gboolean
wire_error (Ctx *ctx, gsize offset, const char *message, GError **error)
{
  return fail (ctx, offset, error, FW_ERROR_PARSE, "%s", _(message));
}

static gboolean
expect_wire (Ctx *ctx, const FwPbField *f, FwPbWireType wire, const char *what, GError **error)
{
  if (f->wire == wire)
    return TRUE;
  return fail (ctx, f->offset, error, FW_ERROR_PARSE,
               _("field %u (%s) has wire type %u, expected %u"), f->field, what, f->wire, wire);
}

/* A printable form of bytes that may not be UTF-8, for messages. */
static char *
printable (const guint8 *data, gsize len)
{
  g_autofree char *valid = g_utf8_make_valid ((const char *) data, MIN (len, 200));
  return g_strescape (valid, NULL);
}

/* Names must be UTF-8 without NULs: they reach reports, the GUI and generated comments. `what` is marked
 * with N_() and translated only when it is shown: this runs for every name in the file. */
static gboolean
take_name (Ctx *ctx, const FwPbField *f, const char *what, char **out, GError **error)
{
  const char *end = NULL;

  if (!expect_wire (ctx, f, FW_PB_LEN, what, error) || !account (ctx, f->len + 1, f->offset, error))
    return FALSE;
  if (!g_utf8_validate ((const char *) f->data, f->len, &end))
    {
      g_autofree char *shown = printable (f->data, f->len);
      return fail (ctx, f->offset, error, FW_ERROR_INVALID,
                   _("%s “%s” is not valid UTF-8 (bad byte at position %zu)"),
                   _(what), shown, (gsize) (end - (const char *) f->data));
    }
  g_free (*out);
  *out = g_strndup ((const char *) f->data, f->len);
  return TRUE;
}

static gboolean
next_field (Ctx *ctx, FwPbReader *r, FwPbField *f, FwPbStatus *status, GError **error)
{
  const char *message = NULL;
  gsize offset = 0;

  *status = fw_pb_next (r, f, &message, &offset);
  if (*status == FW_PB_ERROR)
    return wire_error (ctx, offset, message, error);
  return TRUE;
}

#define FOR_EACH_FIELD(ctx, data, len, f, error)                               \
  FwPbReader _r;                                                               \
  FwPbStatus _st;                                                              \
  fw_pb_reader_init (&_r, (ctx)->base, (data), (len));                          \
  while (next_field ((ctx), &_r, &(f), &_st, (error)) ? _st == FW_PB_OK : (_st = FW_PB_ERROR, FALSE))

static gboolean
enter (Ctx *ctx, const guint8 *data, GError **error)
{
  if (++ctx->depth > ctx->max_depth)
    return fail (ctx, offset_of (ctx, data), error, FW_ERROR_LIMIT,
                 _("messages are nested more than %u deep (raise the limit with --max-nesting)"), ctx->max_depth);
  return TRUE;
}

static void
leave (Ctx *ctx)
{
  ctx->depth--;
}

static GBytes *
encoded_field (Ctx *ctx, const FwPbField *f, const FwPbReader *r)
{
  return g_bytes_new_from_bytes (ctx->bytes, f->offset, fw_pb_offset (r) - f->offset);
}

/* ---- repeated scalars, packed or not ---- */

static gboolean
append_varints (Ctx *ctx, const FwPbField *f, GArray *out, GError **error)
{
  if (f->wire == FW_PB_VARINT)
    {
      gint64 v = (gint64) f->varint;
      g_array_append_val (out, v);
      return TRUE;
    }
  if (f->wire == FW_PB_LEN)
    {
      const guint8 *p = f->data, *end = f->data + f->len;

      /* At most one value per byte, eight bytes each. */
      if (!account (ctx, (guint64) f->len * 8, f->offset, error))
        return FALSE;
      while (p < end)
        {
          guint64 v;
          gint64 sv;
          if (!fw_pb_decode_varint (&p, end, &v))
            return fail (ctx, offset_of (ctx, p), error, FW_ERROR_PARSE,
                         _("packed varint list is truncated or holds a varint longer than 10 bytes"));
          sv = (gint64) v;
          g_array_append_val (out, sv);
        }
      return TRUE;
    }
  return fail (ctx, f->offset, error, FW_ERROR_PARSE,
               _("field %u has wire type %u, expected a varint or a packed list"), f->field, f->wire);
}

/* Fixed-width elements (float, double): appended as raw little-endian bytes. */
static gboolean
append_fixed (Ctx *ctx, const FwPbField *f, guint width, GByteArray *out, GError **error)
{
  FwPbWireType scalar = width == 4 ? FW_PB_FIXED32 : FW_PB_FIXED64;

  if (f->wire == scalar)
    {
      guint64 le = GUINT64_TO_LE (f->varint);
      guint32 le32 = GUINT32_TO_LE ((guint32) f->varint);
      g_byte_array_append (out, width == 4 ? (const guint8 *) &le32 : (const guint8 *) &le, width);
      return TRUE;
    }
  if (f->wire == FW_PB_LEN)
    {
      if (f->len % width != 0)
        return fail (ctx, f->offset, error, FW_ERROR_PARSE,
                     _("packed list of %u-byte values has %zu bytes"), width, f->len);
      if (!account (ctx, f->len, f->offset, error))
        return FALSE;
      g_byte_array_append (out, f->data, f->len);
      return TRUE;
    }
  return fail (ctx, f->offset, error, FW_ERROR_PARSE,
               _("field %u has wire type %u, expected fixed%u or a packed list"), f->field, f->wire, width * 8);
}

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
      fail (ctx, offset, error, FW_ERROR_INVALID,
            _("tensor data is external (“%s”) but the model was not read from a folder"), location);
      return NULL;
    }
  if (!safe_relative_path (location))
    {
      fail (ctx, offset, error, FW_ERROR_INVALID,
            _("external data location “%s” leaves the model's folder; only relative paths inside it are allowed"),
            location);
      return NULL;
    }
  joined = g_build_filename (ctx->base_dir_real, location, NULL);
  real = realpath (joined, NULL);
  if (real == NULL)
    {
      int saved = errno;
      fail (ctx, offset, error, FW_ERROR_IO, _("cannot open external data file “%s”: %s"), location,
            g_strerror (saved));
      return NULL;
    }
  prefix = g_strconcat (ctx->base_dir_real, "/", NULL);
  if (!g_str_has_prefix (real, prefix))
    {
      fail (ctx, offset, error, FW_ERROR_INVALID,
            _("external data location “%s” resolves to “%s”, outside the model's folder"), location, real);
      return NULL;
    }
  if (stat (real, &st) != 0 || !S_ISREG (st.st_mode))
    {
      fail (ctx, offset, error, FW_ERROR_INVALID,
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
          fail (ctx, offset, error, FW_ERROR_IO, _("cannot map external data file “%s”: %s"), location,
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
      fail (ctx, offset, error, FW_ERROR_INVALID,
            _("external data “%s” gives length %" PRId64 " but the tensor needs %" PRId64 " bytes"),
            location, ext_length, expected);
      return NULL;
    }
  if (ext_offset < 0 || (guint64) ext_offset > file_size || (guint64) expected > file_size - (guint64) ext_offset)
    {
      fail (ctx, offset, error, FW_ERROR_INVALID,
            _("external data “%s”: bytes %" PRId64 "–%" PRId64 " run past the end of the file (%zu bytes)"),
            location, ext_offset, ext_offset + expected, file_size);
      return NULL;
    }
  {
    g_autoptr(GBytes) whole = g_mapped_file_get_bytes (mapped);
    return g_bytes_new_from_bytes (whole, (gsize) ext_offset, (gsize) expected);
  }
}

static gboolean
parse_entry (Ctx *ctx, const FwPbField *outer, char **key, char **value, GError **error)
{
  FwPbField f;
  FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
    {
      if (f.field == ENTRY_KEY && !take_name (ctx, &f, N_("key"), key, error))
        return FALSE;
      if (f.field == ENTRY_VALUE && !take_name (ctx, &f, N_("value"), value, error))
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
  gboolean    have_raw, have_float, have_double, have_ints, have_uint64;
} TensorFields;

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

  if (!expect_wire (ctx, f, FW_PB_LEN, "external_data", error) ||
      !parse_entry (ctx, f, &key, &value, error))
    return FALSE;
  if (key == NULL || value == NULL)
    return fail (ctx, f->offset, error, FW_ERROR_INVALID, _("external_data entry lacks a key or value"));
  if (strcmp (key, "location") == 0)
    { g_free (t->location); t->location = g_strdup (value); }
  else if (strcmp (key, "offset") == 0 || strcmp (key, "length") == 0)
    {
      char *end = NULL;
      gint64 v;
      errno = 0;
      v = g_ascii_strtoll (value, &end, 10);
      if (errno != 0 || end == value || *end != '\0' || v < 0)
        return fail (ctx, f->offset, error, FW_ERROR_INVALID,
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
          if (!append_varints (ctx, &f, t->dims, error))
            return FALSE;
          if (t->dims->len > FW_MAX_RANK)
            return fail (ctx, f.offset, error, FW_ERROR_LIMIT, _("tensor has more than %d dims"), FW_MAX_RANK);
          break;
        case TENSOR_DATA_TYPE:
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "data_type", error))
            return FALSE;
          t->dtype_code = (gint64) f.varint;
          break;
        case TENSOR_SEGMENT:
          return fail (ctx, f.offset, error, FW_ERROR_UNSUPPORTED, _("segmented tensors are not supported"));
        case TENSOR_FLOAT_DATA:
          t->have_float = TRUE;
          if (!append_fixed (ctx, &f, 4, t->fixed, error))
            return FALSE;
          break;
        case TENSOR_DOUBLE_DATA:
          t->have_double = TRUE;
          if (!append_fixed (ctx, &f, 8, t->fixed, error))
            return FALSE;
          break;
        case TENSOR_INT32_DATA:
        case TENSOR_INT64_DATA:
          t->have_ints = TRUE;
          if (!append_varints (ctx, &f, t->ints, error))
            return FALSE;
          break;
        case TENSOR_UINT64_DATA:
          t->have_uint64 = TRUE;
          if (!append_varints (ctx, &f, t->ints, error))
            return FALSE;
          break;
        case TENSOR_STRING_DATA:
          if (!expect_wire (ctx, &f, FW_PB_LEN, "string_data", error))
            return FALSE;
          if (!account (ctx, f.len, f.offset, error))
            return FALSE;
          g_ptr_array_add (t->strings, g_bytes_new (f.data, f.len));
          break;
        case TENSOR_NAME:
          if (!take_name (ctx, &f, N_("tensor name"), &t->name, error))
            return FALSE;
          g_string_truncate (ctx->where, mark);
          g_string_append_printf (ctx->where, " “%s”", t->name);
          break;
        case TENSOR_RAW_DATA:
          if (!expect_wire (ctx, &f, FW_PB_LEN, "raw_data", error))
            return FALSE;
          t->raw_field = f;
          t->have_raw = TRUE;
          break;
        case TENSOR_EXTERNAL_DATA:
          if (!parse_external_entry (ctx, &f, t, error))
            return FALSE;
          break;
        case TENSOR_DATA_LOCATION:
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "data_location", error))
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
          fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                _("tensor of %s stores its values in the wrong typed field"), fw_dtype_name (dt));
          return NULL;
        }
      if (count != n_elements)
        {
          fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                _("tensor holds %" PRId64 " values for %" PRId64 " elements"), count, n_elements);
          return NULL;
        }
      return g_byte_array_free_to_bytes (g_steal_pointer (&t->fixed));
    }
  if (t->have_ints || t->have_uint64)
    {
      if (fw_dtype_bits (dt) < 8 || dt == FW_DTYPE_FLOAT || dt == FW_DTYPE_DOUBLE ||
          dt == FW_DTYPE_COMPLEX64 || dt == FW_DTYPE_COMPLEX128)
        {
          fail (ctx, offset_of (ctx, data), error, FW_ERROR_UNSUPPORTED,
                _("tensor of %s in typed int fields is not supported; use raw_data"), fw_dtype_name (dt));
          return NULL;
        }
      if ((gint64) t->ints->len != n_elements)
        {
          fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                _("tensor holds %u values for %" PRId64 " elements"), t->ints->len, n_elements);
          return NULL;
        }
      return pack_ints (dt, t->ints);
    }
  if (n_elements == 0)
    return g_bytes_new (NULL, 0);
  fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
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
          fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                _("tensor is marked external but its external_data has no location"));
          return NULL;
        }
      return map_external (ctx, offset_of (ctx, data), t->location, t->ext_offset, t->ext_length, expected, error);
    }
  if (raw != NULL)
    {
      if ((gint64) raw->len != expected)
        {
          fail (ctx, raw->offset, error, FW_ERROR_INVALID,
                _("raw_data holds %zu bytes but %" PRId64 " elements of %s need %" PRId64),
                raw->len, n_elements, fw_dtype_name ((FwDType) t->dtype_code), expected);
          return NULL;
        }
      /* A slice of the mapping: the weights are never copied, nor even read. */
      return g_bytes_new_from_bytes (ctx->weights, offset_of (ctx, raw->data), raw->len);
    }
  return typed_field_bytes (ctx, data, t, n_elements, error);
}

static gboolean
parse_tensor (Ctx *ctx, const guint8 *data, gsize len, FwTensor **out, char **name_out, GError **error)
{
  g_auto(TensorFields) t = { 0 };
  gsize mark = ctx->where->len;
  gint64 n_elements, expected;
  g_autoptr(GBytes) bytes = NULL;
  FwTensor *tensor;

  if (!enter (ctx, data, error))
    return FALSE;
  t.dims = g_array_new (FALSE, FALSE, sizeof (gint64));
  t.ints = g_array_new (FALSE, FALSE, sizeof (gint64));
  t.fixed = g_byte_array_new ();
  t.strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  t.ext_length = -1;
  if (!read_tensor_fields (ctx, data, len, mark, &t, error))
    return FALSE;

  if (!fw_dtype_is_valid (t.dtype_code))
    return fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                 _("tensor has data type %" PRId64 ", which is not an ONNX element type"), t.dtype_code);
  for (guint i = 0; i < t.dims->len; i++)
    if (g_array_index (t.dims, gint64, i) < 0)
      return fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                   _("tensor dim %u is negative (%" PRId64 ")"), i, g_array_index (t.dims, gint64, i));
  if (!fw_dims_product (t.dims->len, (const gint64 *) t.dims->data, &n_elements))
    {
      g_autofree char *cap = fw_tensor_format_max_elements ();
      return fail (ctx, offset_of (ctx, data), error, FW_ERROR_LIMIT,
                   _("tensor claims more than %s elements (raise the cap with --max-tensor-elements)"), cap);
    }

  if (t.dtype_code == FW_DTYPE_STRING)
    {
      if (t.strings->len != (guint) n_elements)
        return fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID,
                     _("string tensor has %u strings for %" PRId64 " elements"), t.strings->len, n_elements);
      tensor = fw_tensor_new_strings (t.dims->len, (const gint64 *) t.dims->data, t.strings);
    }
  else
    {
      if (!fw_dtype_bytes_for ((FwDType) t.dtype_code, n_elements, &expected))
        return fail (ctx, offset_of (ctx, data), error, FW_ERROR_INVALID, _("tensor size overflows"));
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
  leave (ctx);
  *out = tensor;
  if (name_out)
    *name_out = g_steal_pointer (&t.name);
  return TRUE;
}

/* ---- value info and types ---- */

typedef struct
{
  char    *name;
  FwDType  dtype;
  gint     rank;
  GArray  *dims;      /* FwDim, symbols point into `symbols` */
  GPtrArray *symbols;
  GBytes  *type_raw;  /* non-tensor types */
  char    *doc_string;
} ValueInfo;

static void
value_info_clear (ValueInfo *vi)
{
  g_free (vi->name);
  g_clear_pointer (&vi->dims, g_array_unref);
  g_clear_pointer (&vi->symbols, g_ptr_array_unref);
  g_clear_pointer (&vi->type_raw, g_bytes_unref);
  g_free (vi->doc_string);
}

static gboolean
parse_dim (Ctx *ctx, const FwPbField *outer, ValueInfo *vi, GError **error)
{
  FwPbField f;
  FwDim dim = FW_DIM_UNKNOWN;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
    {
      if (f.field == DIM_VALUE)
        {
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "dim_value", error))
            return FALSE;
          if ((gint64) f.varint < 0)
            return fail (ctx, f.offset, error, FW_ERROR_INVALID,
                         _("dim %u is negative (%" PRId64 ")"), vi->dims->len, (gint64) f.varint);
          if ((gint64) f.varint > FW_TENSOR_MAX_ELEMENTS)
            {
              g_autofree char *cap = fw_tensor_format_max_elements ();
              return fail (ctx, f.offset, error, FW_ERROR_LIMIT,
                           _("dim %u is %" PRId64 ", more than %s (raise the cap with --max-tensor-elements)"),
                           vi->dims->len, (gint64) f.varint, cap);
            }
          dim.value = (gint64) f.varint;
          dim.symbol = NULL;
        }
      else if (f.field == DIM_PARAM)
        {
          char *sym = NULL;
          if (!take_name (ctx, &f, N_("dim_param"), &sym, error))
            return FALSE;
          g_ptr_array_add (vi->symbols, sym);
          dim.value = -1;
          dim.symbol = sym[0] ? sym : NULL;
        }
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  g_array_append_val (vi->dims, dim);
  if (vi->dims->len > FW_MAX_RANK)
    return fail (ctx, outer->offset, error, FW_ERROR_LIMIT, _("shape has more than %d dims"), FW_MAX_RANK);
  return TRUE;
}

static gboolean
parse_shape (Ctx *ctx, const FwPbField *outer, ValueInfo *vi, GError **error)
{
  FwPbField d;

  g_array_set_size (vi->dims, 0);
  FOR_EACH_FIELD (ctx, outer->data, outer->len, d, error)
    {
      if (d.field != SHAPE_DIM)
        continue;
      if (!expect_wire (ctx, &d, FW_PB_LEN, "dim", error) || !parse_dim (ctx, &d, vi, error))
        return FALSE;
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  vi->rank = vi->dims->len;
  return TRUE;
}

static gboolean
parse_tensor_type (Ctx *ctx, const FwPbField *outer, ValueInfo *vi, GError **error)
{
  FwPbField f;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
    {
      if (f.field == TENSOR_TYPE_ELEM_TYPE)
        {
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "elem_type", error))
            return FALSE;
          if (f.varint != 0 && !fw_dtype_is_valid ((gint64) f.varint))
            return fail (ctx, f.offset, error, FW_ERROR_INVALID,
                         _("element type %" PRId64 " is not an ONNX element type"), (gint64) f.varint);
          vi->dtype = (FwDType) f.varint;
        }
      else if (f.field == TENSOR_TYPE_SHAPE)
        {
          if (!expect_wire (ctx, &f, FW_PB_LEN, "shape", error) || !parse_shape (ctx, &f, vi, error))
            return FALSE;
        }
    }
  return _st != FW_PB_ERROR;
}

static gboolean
parse_type (Ctx *ctx, const FwPbField *outer, ValueInfo *vi, GError **error)
{
  FwPbField t;
  gboolean is_tensor = FALSE;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, t, error)
    {
      if (t.field == TYPE_TENSOR)
        {
          is_tensor = TRUE;
          if (!expect_wire (ctx, &t, FW_PB_LEN, "tensor_type", error) || !parse_tensor_type (ctx, &t, vi, error))
            return FALSE;
        }
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  if (!is_tensor)
    {
      /* Sequences, maps and optionals are kept whole for the writer; their values stay untyped here. */
      g_clear_pointer (&vi->type_raw, g_bytes_unref);
      vi->type_raw = g_bytes_new_from_bytes (ctx->bytes, offset_of (ctx, outer->data), outer->len);
    }
  return TRUE;
}

static gboolean
parse_value_info (Ctx *ctx, const FwPbField *outer, ValueInfo *vi, GError **error)
{
  FwPbField f;

  memset (vi, 0, sizeof *vi);
  vi->rank = FW_RANK_UNKNOWN;
  vi->dims = g_array_new (FALSE, FALSE, sizeof (FwDim));
  vi->symbols = g_ptr_array_new_with_free_func (g_free);
  if (!expect_wire (ctx, outer, FW_PB_LEN, "value_info", error) || !enter (ctx, outer->data, error))
    return FALSE;
  {
    FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
      {
        if (f.field == VI_NAME && !take_name (ctx, &f, N_("value name"), &vi->name, error))
          return FALSE;
        if (f.field == VI_DOC_STRING && f.wire == FW_PB_LEN)
          {
            g_free (vi->doc_string);
            vi->doc_string = g_utf8_make_valid ((const char *) f.data, f.len);
          }
        if (f.field == VI_TYPE)
          {
            if (!expect_wire (ctx, &f, FW_PB_LEN, "type", error) || !parse_type (ctx, &f, vi, error))
              return FALSE;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }
  leave (ctx);
  if (vi->name == NULL || vi->name[0] == '\0')
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("a value_info has no name"));
  if (vi->rank > 0)
    {
      gint64 n = 1;
      gboolean all_static = TRUE;
      for (guint i = 0; i < vi->dims->len; i++)
        {
          FwDim *d = &g_array_index (vi->dims, FwDim, i);
          if (d->value < 0)
            all_static = FALSE;
          else if (n > 0 && d->value > 0)
            {
              if (d->value > FW_TENSOR_MAX_ELEMENTS / n)
                n = FW_TENSOR_MAX_ELEMENTS + 1;
              else
                n *= d->value;
            }
          else
            n = 0;
        }
      if (all_static && n > FW_TENSOR_MAX_ELEMENTS)
        {
          g_autofree char *cap = fw_tensor_format_max_elements ();
          return fail (ctx, outer->offset, error, FW_ERROR_LIMIT,
                       _("value “%s” claims more than %s elements (raise the cap with --max-tensor-elements)"),
                       vi->name, cap);
        }
    }
  return TRUE;
}

static void
apply_value_info (FwValue *value, ValueInfo *vi, gboolean declared)
{
  if (vi->type_raw)
    {
      g_clear_pointer (&value->type_raw, g_bytes_unref);
      value->type_raw = g_bytes_ref (vi->type_raw);
    }
  if (!value->is_initializer)
    fw_value_set_type (value, vi->dtype, vi->rank, (const FwDim *) vi->dims->data);
  if (vi->doc_string)
    value->doc_string = fw_graph_intern (value->graph, vi->doc_string);
  if (declared)
    value->has_value_info = TRUE;
}

/* ---- attributes and nodes ---- */

/* What an AttributeProto's fields say; the type decides which of them is the value. */
typedef struct
{
  char       *name;
  char       *ref;
  char       *doc;
  gint64      type;
  gboolean    have_f, have_i, have_s;
  float       fv;
  gint64      iv;
  FwPbField   s_field;
  GByteArray *floats;
  GArray     *ints;          /* gint64 */
  GPtrArray  *strings;       /* GBytes */
  GPtrArray  *tensors;       /* FwTensor */
  GPtrArray  *graph_fields;  /* FwPbField, parsed once the attribute exists */
  GByteArray *raw;           /* type protos and sparse tensors, kept encoded */
} AttrFields;

static void
attr_fields_clear (AttrFields *a)
{
  g_clear_pointer (&a->name, g_free);
  g_clear_pointer (&a->ref, g_free);
  g_clear_pointer (&a->doc, g_free);
  g_clear_pointer (&a->floats, g_byte_array_unref);
  g_clear_pointer (&a->ints, g_array_unref);
  g_clear_pointer (&a->strings, g_ptr_array_unref);
  g_clear_pointer (&a->tensors, g_ptr_array_unref);
  g_clear_pointer (&a->graph_fields, g_ptr_array_unref);
  g_clear_pointer (&a->raw, g_byte_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AttrFields, attr_fields_clear)

/* Reads the fields; from the name on, ctx->where (from mark) names the attribute. */
static gboolean
read_attr_fields (Ctx *ctx, const FwPbField *outer, gsize mark, AttrFields *a, GError **error)
{
  FwPbField f;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
    {
      switch (f.field)
        {
        case ATTR_NAME:
          if (!take_name (ctx, &f, N_("attribute name"), &a->name, error))
            return FALSE;
          g_string_truncate (ctx->where, mark);
          g_string_append_printf (ctx->where, ".attribute “%s”", a->name);
          break;
        case ATTR_REF_ATTR_NAME:
          if (!take_name (ctx, &f, N_("ref_attr_name"), &a->ref, error))
            return FALSE;
          break;
        case ATTR_DOC_STRING:
          if (f.wire == FW_PB_LEN)
            {
              g_free (a->doc);
              a->doc = g_utf8_make_valid ((const char *) f.data, f.len);
            }
          break;
        case ATTR_TYPE:
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "type", error))
            return FALSE;
          a->type = (gint64) f.varint;
          break;
        case ATTR_F:
          {
            guint32 bits;
            if (!expect_wire (ctx, &f, FW_PB_FIXED32, "f", error))
              return FALSE;
            bits = (guint32) f.varint;
            memcpy (&a->fv, &bits, 4);
            a->have_f = TRUE;
          }
          break;
        case ATTR_I:
          if (!expect_wire (ctx, &f, FW_PB_VARINT, "i", error))
            return FALSE;
          a->iv = (gint64) f.varint;
          a->have_i = TRUE;
          break;
        case ATTR_S:
          if (!expect_wire (ctx, &f, FW_PB_LEN, "s", error))
            return FALSE;
          a->s_field = f;
          a->have_s = TRUE;
          break;
        case ATTR_T:
        case ATTR_TENSORS:
          {
            FwTensor *t = NULL;
            if (!expect_wire (ctx, &f, FW_PB_LEN, "tensor", error) ||
                !parse_tensor (ctx, f.data, f.len, &t, NULL, error))
              return FALSE;
            g_ptr_array_add (a->tensors, t);
          }
          break;
        case ATTR_G:
        case ATTR_GRAPHS:
          if (!expect_wire (ctx, &f, FW_PB_LEN, "graph", error))
            return FALSE;
          g_ptr_array_add (a->graph_fields, g_memdup2 (&f, sizeof f));
          break;
        case ATTR_FLOATS:
          if (!append_fixed (ctx, &f, 4, a->floats, error))
            return FALSE;
          break;
        case ATTR_INTS:
          if (!append_varints (ctx, &f, a->ints, error))
            return FALSE;
          break;
        case ATTR_STRINGS:
          if (!expect_wire (ctx, &f, FW_PB_LEN, "strings", error))
            return FALSE;
          if (!account (ctx, f.len, f.offset, error))
            return FALSE;
          g_ptr_array_add (a->strings, g_bytes_new (f.data, f.len));
          break;
        case ATTR_TP:
        case ATTR_TYPE_PROTOS:
        case ATTR_SPARSE_TENSOR:
        case ATTR_SPARSE_TENSORS:
          g_byte_array_append (a->raw, ctx->base + f.offset, fw_pb_offset (&_r) - f.offset);
          break;
        default:
          break;
        }
    }
  return _st != FW_PB_ERROR;
}

/* The attribute's type, checked; IR 1 files may omit `type`, and it is inferred from the one field set. */
static gboolean
attr_type (Ctx *ctx, const FwPbField *outer, AttrFields *a, GError **error)
{
  if (a->type == 0)
    {
      if (a->have_f) a->type = FW_ATTR_FLOAT;
      else if (a->have_i) a->type = FW_ATTR_INT;
      else if (a->have_s) a->type = FW_ATTR_STRING;
      else if (a->tensors->len == 1) a->type = FW_ATTR_TENSOR;
      else if (a->graph_fields->len == 1) a->type = FW_ATTR_GRAPH;
      else if (a->floats->len) a->type = FW_ATTR_FLOATS;
      else if (a->ints->len) a->type = FW_ATTR_INTS;
      else if (a->strings->len) a->type = FW_ATTR_STRINGS;
      else if (a->ref == NULL)
        return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("attribute has no type and no value"));
    }
  if (a->type < 0 || a->type > FW_ATTR_TYPE_PROTOS)
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("attribute type %" PRId64 " is unknown"), a->type);
  return TRUE;
}

/* A graph attribute's one subgraph or a graphs attribute's list, parsed as children of the node. */
static gboolean
set_attr_graphs (Ctx *ctx, const FwPbField *outer, FwNode *node, FwAttr *attr, AttrFields *a, GError **error)
{
  if (a->type == FW_ATTR_GRAPH && a->graph_fields->len != 1)
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("graph attribute holds %u graphs"),
                 a->graph_fields->len);
  if (a->type == FW_ATTR_GRAPHS)
    {
      attr->n = a->graph_fields->len;
      attr->graphs = g_new0 (FwGraph *, MAX (a->graph_fields->len, 1));
    }
  for (guint i = 0; i < a->graph_fields->len; i++)
    {
      FwPbField *gf = g_ptr_array_index (a->graph_fields, i);
      FwGraph *sub = fw_graph_new (node->graph);
      sub->parent_node = node;
      if (a->type == FW_ATTR_GRAPH)
        attr->g = sub;
      else
        attr->graphs[i] = sub;
      if (!parse_graph (ctx, gf->data, gf->len, sub, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
set_attr_value (Ctx *ctx, const FwPbField *outer, FwNode *node, FwAttr *attr, AttrFields *a, GError **error)
{
  switch ((FwAttrType) a->type)
    {
    case FW_ATTR_FLOAT:
      attr->f = a->fv;
      break;
    case FW_ATTR_INT:
      attr->i = a->iv;
      break;
    case FW_ATTR_STRING:
      if (a->have_s)
        {
          /* g_string_chunk_insert_len keeps embedded bytes; the NUL it adds makes it usable as C text. */
          attr->s = g_string_chunk_insert_len (node->graph->strings, (const char *) a->s_field.data,
                                               a->s_field.len);
          attr->s_len = a->s_field.len;
        }
      else
        attr->s = "";
      break;
    case FW_ATTR_TENSOR:
      if (a->tensors->len != 1)
        return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("tensor attribute holds %u tensors"),
                     a->tensors->len);
      attr->t = fw_tensor_ref (g_ptr_array_index (a->tensors, 0));
      break;
    case FW_ATTR_FLOATS:
      attr->n = a->floats->len / 4;
      attr->floats = g_memdup2 (a->floats->data, MAX (a->floats->len, 1));
      break;
    case FW_ATTR_INTS:
      attr->n = a->ints->len;
      attr->ints = g_memdup2 (a->ints->data, MAX (a->ints->len, 1) * sizeof (gint64));
      break;
    case FW_ATTR_STRINGS:
      attr->n = a->strings->len;
      attr->strings = g_new0 (GBytes *, MAX (a->strings->len, 1));
      for (guint i = 0; i < a->strings->len; i++)
        attr->strings[i] = g_bytes_ref (g_ptr_array_index (a->strings, i));
      break;
    case FW_ATTR_TENSORS:
      attr->n = a->tensors->len;
      attr->tensors = g_new0 (FwTensor *, MAX (a->tensors->len, 1));
      for (guint i = 0; i < a->tensors->len; i++)
        attr->tensors[i] = fw_tensor_ref (g_ptr_array_index (a->tensors, i));
      break;
    case FW_ATTR_GRAPH:
    case FW_ATTR_GRAPHS:
      return set_attr_graphs (ctx, outer, node, attr, a, error);
    case FW_ATTR_SPARSE_TENSOR:
    case FW_ATTR_SPARSE_TENSORS:
    case FW_ATTR_TYPE_PROTO:
    case FW_ATTR_TYPE_PROTOS:
    case FW_ATTR_UNDEFINED:
    default:
      break;
    }
  return TRUE;
}

static gboolean
parse_attribute (Ctx *ctx, const FwPbField *outer, FwNode *node, GError **error)
{
  g_auto(AttrFields) a = { 0 };
  gsize mark = ctx->where->len;
  FwAttr *attr;

  if (!expect_wire (ctx, outer, FW_PB_LEN, "attribute", error) || !enter (ctx, outer->data, error))
    return FALSE;
  g_string_append (ctx->where, ".attribute");
  a.floats = g_byte_array_new ();
  a.ints = g_array_new (FALSE, FALSE, sizeof (gint64));
  a.strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  a.tensors = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_tensor_unref);
  a.graph_fields = g_ptr_array_new_with_free_func (g_free);
  a.raw = g_byte_array_new ();
  if (!read_attr_fields (ctx, outer, mark, &a, error))
    return FALSE;
  if (a.name == NULL || a.name[0] == '\0')
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("an attribute has no name"));
  if (!attr_type (ctx, outer, &a, error))
    return FALSE;

  attr = fw_node_add_attr (node, a.name, (FwAttrType) a.type);
  attr->ref_attr_name = a.ref ? fw_graph_intern (node->graph, a.ref) : NULL;
  attr->doc_string = a.doc ? fw_graph_intern (node->graph, a.doc) : NULL;
  if (!set_attr_value (ctx, outer, node, attr, &a, error))
    return FALSE;
  if (a.raw->len)
    attr->raw = g_byte_array_free_to_bytes (g_steal_pointer (&a.raw));
  g_string_truncate (ctx->where, mark);
  leave (ctx);
  return TRUE;
}

static gboolean
parse_node (Ctx *ctx, const FwPbField *outer, FwGraph *graph, guint index, GError **error)
{
  FwPbField f;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) outputs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) attr_fields = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  g_autoptr(GPtrArray) extra = NULL;
  g_autofree char *name = NULL;
  g_autofree char *op_type = NULL;
  g_autofree char *domain = NULL;
  g_autofree char *doc = NULL;
  gsize mark = ctx->where->len;
  FwNode *node;
  GError *local = NULL;

  if (!expect_wire (ctx, outer, FW_PB_LEN, "node", error) || !enter (ctx, outer->data, error))
    return FALSE;
  if (++ctx->n_nodes > ctx->max_nodes)
    return fail (ctx, outer->offset, error, FW_ERROR_LIMIT,
                 _("the model has more than %u nodes (raise the limit with --max-nodes)"), ctx->max_nodes);
  if ((ctx->n_nodes & 1023) == 0)
    {
      if (g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        return FALSE;
      if (ctx->progress && ctx->size > 0)
        ctx->progress ((gdouble) offset_of (ctx, outer->data) / ctx->size, ctx->progress_data);
    }
  g_string_append_printf (ctx->where, ".node[%u]", index);
  {
    FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
      {
        char *s = NULL;
        switch (f.field)
          {
          case NODE_INPUT:
            if (!take_name (ctx, &f, N_("input name"), &s, error))
              return FALSE;
            g_ptr_array_add (inputs, s);
            break;
          case NODE_OUTPUT:
            if (!take_name (ctx, &f, N_("output name"), &s, error))
              return FALSE;
            g_ptr_array_add (outputs, s);
            break;
          case NODE_NAME:
            if (!take_name (ctx, &f, N_("node name"), &name, error))
              return FALSE;
            g_string_truncate (ctx->where, mark);
            g_string_append_printf (ctx->where, ".node[%u] “%s”", index, name);
            break;
          case NODE_OP_TYPE:
            if (!take_name (ctx, &f, N_("op_type"), &op_type, error))
              return FALSE;
            break;
          case NODE_DOMAIN:
            if (!take_name (ctx, &f, N_("domain"), &domain, error))
              return FALSE;
            break;
          case NODE_DOC_STRING:
            if (f.wire == FW_PB_LEN)
              {
                g_free (doc);
                doc = g_utf8_make_valid ((const char *) f.data, f.len);
              }
            break;
          case NODE_ATTRIBUTE:
            g_array_append_val (attr_fields, f);
            break;
          default:
            if (extra == NULL)
              extra = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
            g_ptr_array_add (extra, encoded_field (ctx, &f, &_r));
            break;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }
  if (op_type == NULL || op_type[0] == '\0')
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("node has no op_type"));

  node = fw_graph_add_node (graph, op_type, domain ? domain : "", name ? name : "",
                            inputs->len, (const char * const *) inputs->pdata,
                            outputs->len, (const char * const *) outputs->pdata, &local);
  if (node == NULL)
    {
      fail (ctx, outer->offset, error, local->code, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  if (doc)
    node->doc_string = fw_graph_intern (graph, doc);
  node->extra_raw = g_steal_pointer (&extra);
  for (guint i = 0; i < attr_fields->len; i++)
    if (!parse_attribute (ctx, &g_array_index (attr_fields, FwPbField, i), node, error))
      return FALSE;
  g_string_truncate (ctx->where, mark);
  leave (ctx);
  return TRUE;
}

static gboolean
parse_graph (Ctx *ctx, const guint8 *data, gsize len, FwGraph *graph, GError **error)
{
  FwPbField f;
  guint n_nodes = 0;
  gsize mark = ctx->where->len;
  g_autoptr(GArray) inputs = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  g_autoptr(GArray) outputs = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  g_autoptr(GArray) infos = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  g_autoptr(GArray) inits = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  g_autoptr(GArray) nodes = g_array_new (FALSE, FALSE, sizeof (FwPbField));
  GError *local = NULL;

  if (!enter (ctx, data, error))
    return FALSE;
  g_string_append (ctx->where, ctx->where->len ? ".graph" : "graph");

  /* Collect first: the order of fields in the file is free, but initializers and inputs must exist
   * before nodes are checked against them. */
  {
    FOR_EACH_FIELD (ctx, data, len, f, error)
      {
        switch (f.field)
          {
          case GRAPH_NODE: g_array_append_val (nodes, f); break;
          case GRAPH_INITIALIZER: g_array_append_val (inits, f); break;
          case GRAPH_INPUT: g_array_append_val (inputs, f); break;
          case GRAPH_OUTPUT: g_array_append_val (outputs, f); break;
          case GRAPH_VALUE_INFO: g_array_append_val (infos, f); break;
          case GRAPH_NAME:
            {
              g_autofree char *name = NULL;
              if (!take_name (ctx, &f, N_("graph name"), &name, error))
                return FALSE;
              graph->name = fw_graph_intern (graph, name);
              g_string_truncate (ctx->where, mark);
              g_string_append_printf (ctx->where, "%sgraph “%s”", mark ? "." : "", name);
            }
            break;
          case GRAPH_DOC_STRING:
            if (f.wire == FW_PB_LEN)
              {
                g_autofree char *doc = g_utf8_make_valid ((const char *) f.data, f.len);
                graph->doc_string = fw_graph_intern (graph, doc);
              }
            break;
          default:
            if (graph->extra_raw == NULL)
              graph->extra_raw = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
            g_ptr_array_add (graph->extra_raw, encoded_field (ctx, &f, &_r));
            break;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }

  for (guint i = 0; i < inits->len; i++)
    {
      FwPbField *fi = &g_array_index (inits, FwPbField, i);
      g_autoptr(FwTensor) tensor = NULL;
      g_autofree char *name = NULL;
      gsize m2 = ctx->where->len;

      if (!expect_wire (ctx, fi, FW_PB_LEN, "initializer", error))
        return FALSE;
      g_string_append_printf (ctx->where, ".initializer[%u]", i);
      if (!parse_tensor (ctx, fi->data, fi->len, &tensor, &name, error))
        return FALSE;
      if (name == NULL || name[0] == '\0')
        return fail (ctx, fi->offset, error, FW_ERROR_INVALID, _("initializer has no name"));
      if (fw_graph_add_initializer (graph, name, tensor, &local) == NULL)
        {
          fail (ctx, fi->offset, error, local->code, "%s", local->message);
          g_error_free (local);
          return FALSE;
        }
      g_string_truncate (ctx->where, m2);
    }

  for (guint i = 0; i < inputs->len; i++)
    {
      FwPbField *fi = &g_array_index (inputs, FwPbField, i);
      ValueInfo vi;
      FwValue *value;

      if (!parse_value_info (ctx, fi, &vi, error))
        {
          value_info_clear (&vi);
          return FALSE;
        }
      value = fw_graph_add_input (graph, vi.name, vi.dtype, vi.rank, (const FwDim *) vi.dims->data, &local);
      if (value == NULL)
        {
          fail (ctx, fi->offset, error, local->code, "%s", local->message);
          g_error_free (local);
          value_info_clear (&vi);
          return FALSE;
        }
      apply_value_info (value, &vi, TRUE);
      value_info_clear (&vi);
    }

  for (guint i = 0; i < nodes->len; i++)
    if (!parse_node (ctx, &g_array_index (nodes, FwPbField, i), graph, n_nodes++, error))
      return FALSE;

  for (guint i = 0; i < outputs->len; i++)
    {
      FwPbField *fi = &g_array_index (outputs, FwPbField, i);
      ValueInfo vi;

      if (!parse_value_info (ctx, fi, &vi, error))
        {
          value_info_clear (&vi);
          return FALSE;
        }
      fw_graph_add_output (graph, vi.name, NULL);
      apply_value_info (fw_graph_lookup_value (graph, vi.name), &vi, TRUE);
      value_info_clear (&vi);
    }

  for (guint i = 0; i < infos->len; i++)
    {
      FwPbField *fi = &g_array_index (infos, FwPbField, i);
      ValueInfo vi;
      FwValue *value;

      if (!parse_value_info (ctx, fi, &vi, error))
        {
          value_info_clear (&vi);
          return FALSE;
        }
      value = fw_graph_lookup_value (graph, vi.name);
      /* value_info for a name nothing defines is dead weight; ONNX Runtime ignores it, so do we. */
      if (value != NULL && !value->is_input)
        apply_value_info (value, &vi, TRUE);
      value_info_clear (&vi);
    }

  g_string_truncate (ctx->where, mark);
  leave (ctx);
  return TRUE;
}

/* ---- the model ---- */

static void
assign_ops (FwModel *model, FwGraph *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);

      node->opset = fw_model_get_opset_version (model, node->domain);
      node->op = fw_op_lookup (node->domain, node->op_type);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          if (node->attrs[a].g)
            assign_ops (model, node->attrs[a].g);
          for (guint k = 0; node->attrs[a].graphs && k < node->attrs[a].n; k++)
            assign_ops (model, node->attrs[a].graphs[k]);
        }
    }
}

static gboolean
graph_uses_default_domain (FwGraph *graph)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (node->domain[0] == '\0' || strcmp (node->domain, "ai.onnx") == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
parse_opset (Ctx *ctx, const FwPbField *outer, GError **error)
{
  FwPbField o;
  g_autofree char *domain = NULL;
  gint64 version = -1;

  FOR_EACH_FIELD (ctx, outer->data, outer->len, o, error)
    {
      if (o.field == OPSET_DOMAIN && !take_name (ctx, &o, N_("opset domain"), &domain, error))
        return FALSE;
      if (o.field == OPSET_VERSION)
        {
          if (!expect_wire (ctx, &o, FW_PB_VARINT, "version", error))
            return FALSE;
          version = (gint64) o.varint;
        }
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  if (version < 1)
    return fail (ctx, outer->offset, error, FW_ERROR_INVALID,
                 _("opset import for domain “%s” has no valid version"), domain ? domain : "");
  fw_model_set_opset_version (ctx->model, domain ? domain : "", version);
  return TRUE;
}

static gboolean
parse_model (Ctx *ctx, GError **error)
{
  FwPbField f;
  FwModel *model = ctx->model;
  const FwPbField *graph_field = NULL;
  FwPbField gf;
  gboolean have_ir = FALSE;
  gint64 onnx_opset;

  {
    FOR_EACH_FIELD (ctx, ctx->base, ctx->size, f, error)
      {
        switch (f.field)
          {
          case MODEL_IR_VERSION:
            if (!expect_wire (ctx, &f, FW_PB_VARINT, "ir_version", error))
              return FALSE;
            model->ir_version = (gint64) f.varint;
            have_ir = TRUE;
            break;
          case MODEL_OPSET_IMPORT:
            if (!expect_wire (ctx, &f, FW_PB_LEN, "opset_import", error) || !parse_opset (ctx, &f, error))
              return FALSE;
            break;
          case MODEL_PRODUCER_NAME:
          case MODEL_PRODUCER_VERSION:
          case MODEL_DOMAIN:
            {
              g_autofree char *s = NULL;
              if (!take_name (ctx, &f, N_("model string"), &s, error))
                return FALSE;
              if (f.field == MODEL_PRODUCER_NAME)
                model->producer_name = fw_graph_intern (model->graph, s);
              else if (f.field == MODEL_PRODUCER_VERSION)
                model->producer_version = fw_graph_intern (model->graph, s);
              else
                model->domain = fw_graph_intern (model->graph, s);
            }
            break;
          case MODEL_MODEL_VERSION:
            if (!expect_wire (ctx, &f, FW_PB_VARINT, "model_version", error))
              return FALSE;
            model->model_version = (gint64) f.varint;
            break;
          case MODEL_DOC_STRING:
            if (f.wire == FW_PB_LEN)
              {
                g_autofree char *doc = g_utf8_make_valid ((const char *) f.data, f.len);
                model->doc_string = fw_graph_intern (model->graph, doc);
              }
            break;
          case MODEL_GRAPH:
            if (!expect_wire (ctx, &f, FW_PB_LEN, "graph", error))
              return FALSE;
            gf = f;
            graph_field = &gf;
            break;
          case MODEL_METADATA_PROPS:
            {
              g_autofree char *key = NULL;
              g_autofree char *value = NULL;
              if (!expect_wire (ctx, &f, FW_PB_LEN, "metadata_props", error) ||
                  !parse_entry (ctx, &f, &key, &value, error))
                return FALSE;
              g_ptr_array_add (model->metadata_props, g_strdup (key ? key : ""));
              g_ptr_array_add (model->metadata_props, g_strdup (value ? value : ""));
            }
            break;
          default:
            {
              FwRawField raw = { f.field, encoded_field (ctx, &f, &_r) };
              g_array_append_val (model->raw_fields, raw);
            }
            break;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }

  if (ctx->size == 0)
    return fail (ctx, 0, error, FW_ERROR_PARSE, _("the file is empty"));
  if (!have_ir)
    return fail (ctx, 0, error, FW_ERROR_INVALID, _("the model has no ir_version; is this an ONNX file?"));
  if (model->ir_version < MIN_IR_VERSION || model->ir_version > MAX_IR_VERSION)
    return fail (ctx, 0, error, FW_ERROR_UNSUPPORTED,
                 _("ONNX IR version %" PRId64 " is not supported (supported: %d to %d)"),
                 model->ir_version, MIN_IR_VERSION, MAX_IR_VERSION);
  if (graph_field == NULL)
    return fail (ctx, 0, error, FW_ERROR_INVALID, _("the model has no graph"));
  if (!parse_graph (ctx, graph_field->data, graph_field->len, model->graph, error))
    return FALSE;

  onnx_opset = fw_model_get_opset_version (model, "");
  if (onnx_opset == 0 && graph_uses_default_domain (model->graph))
    return fail (ctx, 0, error, FW_ERROR_INVALID, _("the model uses ai.onnx operators but imports no ai.onnx opset"));
  if (onnx_opset != 0 && (onnx_opset < MIN_OPSET || onnx_opset > MAX_OPSET))
    return fail (ctx, 0, error, FW_ERROR_UNSUPPORTED,
                 _("ai.onnx opset %" PRId64 " is not supported (supported: %d to %d)"),
                 onnx_opset, MIN_OPSET, MAX_OPSET);
  assign_ops (model, model->graph);

  {
    GError *local = NULL;
    if (!fw_graph_link (model->graph, &local))
      {
        g_set_error (error, FW_ERROR, local->code, "%s: %s", ctx->display, local->message);
        g_error_free (local);
        return FALSE;
      }
  }
  return TRUE;
}

static FwModel *
load_from_bytes (GBytes *bytes, GBytes *weights, const char *display, const char *base_dir,
                 const FwOnnxLoadOptions *options, GCancellable *cancellable, FwModel *model, GError **error)
{
  Ctx ctx = { 0 };
  gsize size = 0;
  gboolean ok;

  ctx.display = display;
  ctx.base = g_bytes_get_data (bytes, &size);
  if (ctx.base == NULL)
    ctx.base = (const guint8 *) "";
  ctx.size = size;
  ctx.bytes = bytes;
  ctx.weights = weights ? weights : bytes;
  ctx.model = model;
  ctx.where = g_string_new (NULL);
  ctx.max_depth = options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH;
  ctx.max_nodes = options && options->max_nodes ? options->max_nodes : DEFAULT_MAX_NODES;
  ctx.max_alloc = options && options->max_alloc_bytes ? options->max_alloc_bytes : DEFAULT_MAX_ALLOC;
  ctx.cancellable = cancellable;
  if (options)
    {
      ctx.progress = options->progress;
      ctx.progress_data = options->progress_data;
    }
  if (base_dir)
    ctx.base_dir_real = realpath (base_dir, NULL);
  model->file_size = size;

  ok = parse_model (&ctx, error);
  g_string_free (ctx.where, TRUE);
  free (ctx.base_dir_real);
  if (!ok)
    {
      g_object_unref (model);
      return NULL;
    }
  return model;
}

FwModel *
fw_onnx_load_bytes (GBytes *bytes, const char *display_name, const char *base_dir,
                    const FwOnnxLoadOptions *options, GError **error)
{
  return load_from_bytes (bytes, NULL, display_name ? display_name : "<memory>", base_dir, options, NULL,
                          fw_model_new (), error);
}

static void
skeleton_release (gpointer data)
{
  fw_onnx_skeleton_free (data);
}

FwModel *
fw_onnx_load (const char *path, const FwOnnxLoadOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr(GBytes) weights = NULL;
  g_autoptr(GBytes) structure = NULL;
  g_autofree char *dir = NULL;
  FwOnnxSkeleton *skeleton;
  GMappedFile *mapped;
  GError *local = NULL;
  FwModel *model;
  struct stat st;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot open: %s"), path, g_strerror (saved));
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: not a regular file"), path);
      return NULL;
    }
  skeleton = fw_onnx_skeleton_read (fd, (gsize) st.st_size,
                                    options && options->max_depth ? options->max_depth : DEFAULT_MAX_DEPTH, &local);
  if (skeleton == NULL)
    {
      close (fd);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, "%s: %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  {
    guint64 cap = options && options->max_alloc_bytes ? options->max_alloc_bytes : DEFAULT_MAX_ALLOC;
    if (fw_onnx_skeleton_bytes_read (skeleton) > cap)
      {
        g_autofree char *text = g_format_size_full (cap, G_FORMAT_SIZE_IEC_UNITS);
        fw_onnx_skeleton_free (skeleton);
        close (fd);
        g_set_error (error, FW_ERROR, FW_ERROR_LIMIT,
                     _("%s: its structure (everything but tensor data) is larger than %s (raise the cap with --max-alloc-mb)"),
                     path, text);
        return NULL;
      }
  }
  structure = g_bytes_new_with_free_func (fw_onnx_skeleton_data (skeleton), (gsize) st.st_size,
                                          skeleton_release, skeleton);
  mapped = g_mapped_file_new_from_fd (fd, FALSE, &local);
  close (fd);
  if (mapped == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot map: %s"), path, local->message);
      g_error_free (local);
      return NULL;
    }
  /* Weights are read only when someone computes with them, and then in no particular order. */
  if (g_mapped_file_get_length (mapped) > 0)
    madvise (g_mapped_file_get_contents (mapped), g_mapped_file_get_length (mapped), MADV_RANDOM);
  weights = g_mapped_file_get_bytes (mapped);
  model = fw_model_new ();
  model->mapped = mapped;
  fw_model_set_path (model, path);
  dir = g_path_get_dirname (path);
  return load_from_bytes (structure, weights, path, dir, options, cancellable, model, error);
}
