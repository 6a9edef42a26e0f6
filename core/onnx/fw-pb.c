#include "config.h"

#include <string.h>

#include "fw-pb.h"

void
fw_pb_reader_init (FwPbReader *reader, const guint8 *base, const guint8 *data, gsize len)
{
  reader->base = base;
  reader->p = data;
  reader->end = data + len;
}

gsize
fw_pb_offset (const FwPbReader *reader)
{
  return (gsize) (reader->p - reader->base);
}

gboolean
fw_pb_decode_varint (const guint8 **pp, const guint8 *end, guint64 *out)
{
  const guint8 *p = *pp;
  guint64 v = 0;

  for (guint i = 0; i < 10; i++)
    {
      if (p >= end)
        return FALSE;
      v |= (guint64) (p[0] & 0x7f) << (7 * i);
      if ((p[0] & 0x80) == 0)
        {
          /* The tenth byte may only carry the top bit of a 64-bit value. */
          if (i == 9 && p[0] > 1)
            return FALSE;
          *pp = p + 1;
          *out = v;
          return TRUE;
        }
      p++;
    }
  return FALSE;
}

FwPbStatus
fw_pb_next (FwPbReader *reader, FwPbField *field, const char **message, gsize *offset)
{
  guint64 tag;
  const guint8 *p = reader->p;

  if (p >= reader->end)
    return FW_PB_END;
  field->offset = fw_pb_offset (reader);
  *offset = field->offset;
  if (!fw_pb_decode_varint (&p, reader->end, &tag))
    {
      *message = p >= reader->end || reader->end - p < 10 ? "truncated field tag" : "field tag varint longer than 10 bytes";
      return FW_PB_ERROR;
    }
  if (tag >> 3 == 0 || tag >> 3 > 536870911u)
    {
      *message = "invalid field number 0";
      return FW_PB_ERROR;
    }
  field->field = (guint32) (tag >> 3);
  field->wire = (FwPbWireType) (tag & 7);
  field->data = NULL;
  field->len = 0;
  field->varint = 0;
  *offset = (gsize) (p - reader->base);
  switch (field->wire)
    {
    case FW_PB_VARINT:
      if (!fw_pb_decode_varint (&p, reader->end, &field->varint))
        {
          *message = "truncated or over-long varint";
          return FW_PB_ERROR;
        }
      break;
    case FW_PB_FIXED64:
      if (reader->end - p < 8)
        {
          *message = "fixed64 field runs past the end of its message";
          return FW_PB_ERROR;
        }
      memcpy (&field->varint, p, 8);
      field->varint = GUINT64_FROM_LE (field->varint);
      p += 8;
      break;
    case FW_PB_FIXED32:
      {
        guint32 v;
        if (reader->end - p < 4)
          {
            *message = "fixed32 field runs past the end of its message";
            return FW_PB_ERROR;
          }
        memcpy (&v, p, 4);
        field->varint = GUINT32_FROM_LE (v);
        p += 4;
      }
      break;
    case FW_PB_LEN:
      {
        guint64 len;
        if (!fw_pb_decode_varint (&p, reader->end, &len))
          {
            *message = "truncated or over-long length varint";
            return FW_PB_ERROR;
          }
        if (len > (guint64) (reader->end - p))
          {
            *message = "length runs past the end of its message";
            return FW_PB_ERROR;
          }
        field->data = p;
        field->len = (gsize) len;
        p += len;
      }
      break;
    case FW_PB_SGROUP:
    case FW_PB_EGROUP:
      *message = "groups (wire types 3 and 4) are not used by ONNX";
      return FW_PB_ERROR;
    default:
      *message = "unknown wire type";
      return FW_PB_ERROR;
    }
  reader->p = p;
  return FW_PB_OK;
}

void
fw_pb_put_varint (GByteArray *out, guint64 value)
{
  guint8 buf[10];
  guint n = 0;

  do
    {
      buf[n] = value & 0x7f;
      value >>= 7;
      if (value)
        buf[n] |= 0x80;
      n++;
    }
  while (value);
  g_byte_array_append (out, buf, n);
}

void
fw_pb_put_tag (GByteArray *out, guint32 field, FwPbWireType wire)
{
  fw_pb_put_varint (out, ((guint64) field << 3) | wire);
}

void
fw_pb_put_int (GByteArray *out, guint32 field, gint64 value)
{
  fw_pb_put_tag (out, field, FW_PB_VARINT);
  fw_pb_put_varint (out, (guint64) value);
}

void
fw_pb_put_fixed32 (GByteArray *out, guint32 field, guint32 value)
{
  guint32 le = GUINT32_TO_LE (value);

  fw_pb_put_tag (out, field, FW_PB_FIXED32);
  g_byte_array_append (out, (const guint8 *) &le, 4);
}

void
fw_pb_put_bytes (GByteArray *out, guint32 field, gconstpointer data, gsize len)
{
  fw_pb_put_tag (out, field, FW_PB_LEN);
  fw_pb_put_varint (out, len);
  if (len)
    g_byte_array_append (out, data, len);
}

void
fw_pb_put_string (GByteArray *out, guint32 field, const char *str)
{
  fw_pb_put_bytes (out, field, str, strlen (str));
}

/* Submessage lengths are unknown until the body is written: reserve 5 bytes (enough for 4 GiB) and
 * move the body down once the real varint length is known. */
gsize
fw_pb_begin (GByteArray *out, guint32 field)
{
  static const guint8 pad[5] = { 0 };
  gsize mark;

  fw_pb_put_tag (out, field, FW_PB_LEN);
  mark = out->len;
  g_byte_array_append (out, pad, 5);
  return mark;
}

void
fw_pb_end (GByteArray *out, gsize mark)
{
  gsize body_start = mark + 5;
  guint64 len = out->len - body_start;
  guint8 buf[10];
  guint n = 0;
  guint64 v = len;

  do
    {
      buf[n] = v & 0x7f;
      v >>= 7;
      if (v)
        buf[n] |= 0x80;
      n++;
    }
  while (v);
  memcpy (out->data + mark, buf, n);
  if (n < 5)
    {
      memmove (out->data + mark + n, out->data + body_start, len);
      g_byte_array_set_size (out, mark + n + len);
    }
}
