/* fw-onnx-reader-wire.c: the reader's footing: errors that say where in the model they happened, the
 * allocation cap, nesting depth, names, and repeated scalars packed or not. */
#include "config.h"

#include <stdarg.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-reader-private.h"

G_GNUC_PRINTF (5, 6) gboolean
fw_rd_fail (Ctx *ctx, gsize offset, GError **error, gint code, const char *format, ...)
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

gsize
fw_rd_offset_of (Ctx *ctx, const guint8 *p)
{
  return (gsize) (p - ctx->base);
}

/* What a file makes us copy is bounded by its own size, but a packed varint list grows eightfold: every
 * copy is counted against a cap, so a hostile file cannot make the program allocate without limit. */
gboolean
fw_rd_account (Ctx *ctx, guint64 bytes, gsize offset, GError **error)
{
  if (bytes > ctx->max_alloc || ctx->allocated > ctx->max_alloc - bytes)
    {
      g_autofree char *cap = g_format_size_full (ctx->max_alloc, G_FORMAT_SIZE_IEC_UNITS);
      return fw_rd_fail (ctx, offset, error, FW_ERROR_LIMIT,
                         _("the model would make the program allocate more than %s (raise the cap with --max-alloc-mb)"),
                         cap);
    }
  ctx->allocated += bytes;
  return TRUE;
}

static gboolean
wire_error (Ctx *ctx, gsize offset, const char *message, GError **error)
{
  return fw_rd_fail (ctx, offset, error, FW_ERROR_PARSE, "%s", _(message));
}

gboolean
fw_rd_expect_wire (Ctx *ctx, const FwPbField *f, FwPbWireType wire, const char *what, GError **error)
{
  if (f->wire == wire)
    return TRUE;
  return fw_rd_fail (ctx, f->offset, error, FW_ERROR_PARSE,
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
gboolean
fw_rd_take_name (Ctx *ctx, const FwPbField *f, const char *what, char **out, GError **error)
{
  const char *end = NULL;

  if (!fw_rd_expect_wire (ctx, f, FW_PB_LEN, what, error) || !fw_rd_account (ctx, f->len + 1, f->offset, error))
    return FALSE;
  if (!g_utf8_validate ((const char *) f->data, f->len, &end))
    {
      g_autofree char *shown = printable (f->data, f->len);
      return fw_rd_fail (ctx, f->offset, error, FW_ERROR_INVALID,
                         _("%s “%s” is not valid UTF-8 (bad byte at position %zu)"),
                         _(what), shown, (gsize) (end - (const char *) f->data));
    }
  g_free (*out);
  *out = g_strndup ((const char *) f->data, f->len);
  return TRUE;
}

gboolean
fw_rd_next_field (Ctx *ctx, FwPbReader *r, FwPbField *f, FwPbStatus *status, GError **error)
{
  const char *message = NULL;
  gsize offset = 0;

  *status = fw_pb_next (r, f, &message, &offset);
  if (*status == FW_PB_ERROR)
    return wire_error (ctx, offset, message, error);
  return TRUE;
}

gboolean
fw_rd_enter (Ctx *ctx, const guint8 *data, GError **error)
{
  if (++ctx->depth > ctx->max_depth)
    return fw_rd_fail (ctx, fw_rd_offset_of (ctx, data), error, FW_ERROR_LIMIT,
                       _("messages are nested more than %u deep (raise the limit with --max-nesting)"), ctx->max_depth);
  return TRUE;
}

void
fw_rd_leave (Ctx *ctx)
{
  ctx->depth--;
}

GBytes *
fw_rd_encoded_field (Ctx *ctx, const FwPbField *f, const FwPbReader *r)
{
  return g_bytes_new_from_bytes (ctx->bytes, f->offset, fw_pb_offset (r) - f->offset);
}

/* ---- repeated scalars, packed or not ---- */

gboolean
fw_rd_append_varints (Ctx *ctx, const FwPbField *f, GArray *out, GError **error)
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
      if (!fw_rd_account (ctx, (guint64) f->len * 8, f->offset, error))
        return FALSE;
      while (p < end)
        {
          guint64 v;
          gint64 sv;
          if (!fw_pb_decode_varint (&p, end, &v))
            return fw_rd_fail (ctx, fw_rd_offset_of (ctx, p), error, FW_ERROR_PARSE,
                               _("packed varint list is truncated or holds a varint longer than 10 bytes"));
          sv = (gint64) v;
          g_array_append_val (out, sv);
        }
      return TRUE;
    }
  return fw_rd_fail (ctx, f->offset, error, FW_ERROR_PARSE,
                     _("field %u has wire type %u, expected a varint or a packed list"), f->field, f->wire);
}

/* Fixed-width elements (float, double): appended as raw little-endian bytes. */
gboolean
fw_rd_append_fixed (Ctx *ctx, const FwPbField *f, guint width, GByteArray *out, GError **error)
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
        return fw_rd_fail (ctx, f->offset, error, FW_ERROR_PARSE,
                           _("packed list of %u-byte values has %zu bytes"), width, f->len);
      if (!fw_rd_account (ctx, f->len, f->offset, error))
        return FALSE;
      g_byte_array_append (out, f->data, f->len);
      return TRUE;
    }
  return fw_rd_fail (ctx, f->offset, error, FW_ERROR_PARSE,
                     _("field %u has wire type %u, expected fixed%u or a packed list"), f->field, f->wire, width * 8);
}
