/* fw-pb.h: the protobuf wire format, read and written by hand.
 *
 * Reading never allocates: a FwPbReader walks a byte range and hands out sub-ranges for length-delimited
 * fields. It checks every length against the bytes left, rejects varints longer than 10 bytes and unknown
 * wire types, and reports the byte offset from the start of the buffer. Writing appends to a GByteArray. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  FW_PB_VARINT = 0,
  FW_PB_FIXED64 = 1,
  FW_PB_LEN = 2,
  FW_PB_SGROUP = 3,
  FW_PB_EGROUP = 4,
  FW_PB_FIXED32 = 5,
} FwPbWireType;

typedef struct
{
  const guint8 *base;  /* start of the whole buffer, for offsets */
  const guint8 *p;
  const guint8 *end;
} FwPbReader;

typedef struct
{
  guint32       field;
  FwPbWireType  wire;
  gsize         offset;  /* of the tag */
  guint64       varint;  /* VARINT, FIXED32, FIXED64 payload */
  const guint8 *data;    /* LEN payload */
  gsize         len;
} FwPbField;

typedef enum {
  FW_PB_OK,
  FW_PB_END,
  FW_PB_ERROR,
} FwPbStatus;

void        fw_pb_reader_init    (FwPbReader   *reader,
                                  const guint8 *base,
                                  const guint8 *data,
                                  gsize         len);
/* Next field; on FW_PB_ERROR, *message says what was wrong and *offset where. */
FwPbStatus  fw_pb_next           (FwPbReader   *reader,
                                  FwPbField    *field,
                                  const char  **message,
                                  gsize        *offset);
gsize       fw_pb_offset         (const FwPbReader *reader);
/* Decodes a varint from [*p, end); FALSE when truncated or longer than 10 bytes. */
gboolean    fw_pb_decode_varint  (const guint8 **p,
                                  const guint8  *end,
                                  guint64       *out);

void        fw_pb_put_varint     (GByteArray   *out,
                                  guint64       value);
void        fw_pb_put_tag        (GByteArray   *out,
                                  guint32       field,
                                  FwPbWireType  wire);
void        fw_pb_put_int        (GByteArray   *out,
                                  guint32       field,
                                  gint64        value);
void        fw_pb_put_fixed32    (GByteArray   *out,
                                  guint32       field,
                                  guint32       value);
void        fw_pb_put_bytes      (GByteArray   *out,
                                  guint32       field,
                                  gconstpointer data,
                                  gsize         len);
void        fw_pb_put_string     (GByteArray   *out,
                                  guint32       field,
                                  const char   *str);
/* Length-delimited submessages: begin returns a mark, end back-patches the length. */
gsize       fw_pb_begin          (GByteArray   *out,
                                  guint32       field);
void        fw_pb_end            (GByteArray   *out,
                                  gsize         mark);

G_END_DECLS
