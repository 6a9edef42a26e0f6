#include "config.h"

#include <inttypes.h>

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-skeleton.h"
#include "fw-pb.h"

/* raw_data payloads at least this large are left unread. */
#define HOLE_MIN (16 * 1024)
/* How much of a message header is read at once while looking for holes. */
#define CHUNK (64 * 1024)

struct _FwOnnxSkeleton
{
  guint8 *data;
  gsize   size;
  gsize   bytes_read;
};

typedef struct
{
  int     fd;
  gsize   size;
  GArray *holes;   /* pairs of gsize: start, end */
  guint   max_depth;
  gboolean bad;
  /* Headers are read through a window, so a pass over 100,000 nodes is a few hundred reads, not a
   * million. */
  guint8  window[CHUNK];
  gsize   window_start;
  gsize   window_len;
} Scan;

typedef enum { KIND_MODEL, KIND_GRAPH, KIND_NODE, KIND_ATTRIBUTE, KIND_TENSOR } Kind;

static gboolean
read_at (int fd, gsize offset, guint8 *buf, gsize len)
{
  while (len > 0)
    {
      ssize_t n = pread (fd, buf, len, (off_t) offset);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      buf += n;
      offset += n;
      len -= n;
    }
  return TRUE;
}

/* Reads a tag and, for length-delimited fields, the length, at offset; the varints fit in 20 bytes. */
static gboolean
read_header (Scan *scan, gsize offset, gsize end, guint32 *field, guint *wire, guint64 *value, gsize *header_len)
{
  gsize avail = MIN (20, end - offset);
  const guint8 *buf, *p;
  guint64 tag;

  if (offset < scan->window_start || offset + avail > scan->window_start + scan->window_len)
    {
      gsize len = MIN (CHUNK, scan->size - offset);
      if (!read_at (scan->fd, offset, scan->window, len))
        return FALSE;
      scan->window_start = offset;
      scan->window_len = len;
    }
  buf = scan->window + (offset - scan->window_start);
  p = buf;
  if (!fw_pb_decode_varint (&p, buf + avail, &tag))
    return FALSE;
  *field = (guint32) (tag >> 3);
  *wire = tag & 7;
  switch (*wire)
    {
    case FW_PB_VARINT:
    case FW_PB_LEN:
      if (!fw_pb_decode_varint (&p, buf + avail, value))
        return FALSE;
      break;
    case FW_PB_FIXED64:
      *value = 8;
      break;
    case FW_PB_FIXED32:
      *value = 4;
      break;
    default:
      return FALSE;
    }
  *header_len = (gsize) (p - buf);
  return TRUE;
}

static void
scan_message (Scan *scan, gsize start, gsize end, Kind kind, guint depth)
{
  gsize offset = start;

  if (depth > scan->max_depth)
    {
      scan->bad = TRUE;
      return;
    }
  while (offset < end && !scan->bad)
    {
      guint32 field;
      guint wire;
      guint64 value;
      gsize header, body;

      if (!read_header (scan, offset, end, &field, &wire, &value, &header))
        {
          scan->bad = TRUE;
          return;
        }
      body = offset + header;
      if (wire == FW_PB_VARINT)
        {
          offset = body;
          continue;
        }
      if (wire != FW_PB_LEN)
        {
          offset = body + value;
          continue;
        }
      if (value > end - body)
        {
          scan->bad = TRUE;
          return;
        }
      switch (kind)
        {
        case KIND_MODEL:
          if (field == MODEL_GRAPH)
            scan_message (scan, body, body + value, KIND_GRAPH, depth + 1);
          break;
        case KIND_GRAPH:
          if (field == GRAPH_INITIALIZER)
            scan_message (scan, body, body + value, KIND_TENSOR, depth + 1);
          else if (field == GRAPH_NODE)
            scan_message (scan, body, body + value, KIND_NODE, depth + 1);
          break;
        case KIND_NODE:
          if (field == NODE_ATTRIBUTE)
            scan_message (scan, body, body + value, KIND_ATTRIBUTE, depth + 1);
          break;
        case KIND_ATTRIBUTE:
          if (field == ATTR_T || field == ATTR_TENSORS)
            scan_message (scan, body, body + value, KIND_TENSOR, depth + 1);
          else if (field == ATTR_G || field == ATTR_GRAPHS)
            scan_message (scan, body, body + value, KIND_GRAPH, depth + 1);
          break;
        case KIND_TENSOR:
          if (field == TENSOR_RAW_DATA && value >= HOLE_MIN)
            {
              gsize hole[2] = { body, body + value };
              g_array_append_vals (scan->holes, hole, 2);
            }
          break;
        default:
          break;
        }
      offset = body + value;
    }
}

FwOnnxSkeleton *
fw_onnx_skeleton_read (int fd, gsize file_size, guint max_depth, GError **error)
{
  g_autoptr(GArray) holes = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autofree Scan *scan_buf = g_new0 (Scan, 1);
  Scan *scanp = scan_buf;
  FwOnnxSkeleton *skeleton;
  gsize offset = 0;

  scanp->fd = fd;
  scanp->size = file_size;
  scanp->holes = holes;
  scanp->max_depth = max_depth;
  scan_message (scanp, 0, file_size, KIND_MODEL, 0);
  if (scanp->bad)
    g_array_set_size (holes, 0);

  skeleton = g_new0 (FwOnnxSkeleton, 1);
  skeleton->size = file_size;
  if (file_size == 0)
    return skeleton;
  /* Anonymous pages cost nothing until written, so the holes stay free. */
  skeleton->data = mmap (NULL, file_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
  if (skeleton->data == MAP_FAILED)
    {
      int saved = errno;
      g_free (skeleton);
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot reserve %zu bytes: %s"), file_size,
                   g_strerror (saved));
      return NULL;
    }
  for (guint i = 0; i <= holes->len; i += 2)
    {
      gsize stop = i < holes->len ? g_array_index (holes, gsize, i) : file_size;
      if (stop > offset)
        {
          if (!read_at (fd, offset, skeleton->data + offset, stop - offset))
            {
              int saved = errno;
              fw_onnx_skeleton_free (skeleton);
              g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot read: %s"), g_strerror (saved ? saved : EIO));
              return NULL;
            }
          skeleton->bytes_read += stop - offset;
        }
      if (i < holes->len)
        offset = g_array_index (holes, gsize, i + 1);
    }
  return skeleton;
}

const guint8 *
fw_onnx_skeleton_data (FwOnnxSkeleton *skeleton)
{
  return skeleton->data ? skeleton->data : (const guint8 *) "";
}

gsize
fw_onnx_skeleton_bytes_read (FwOnnxSkeleton *skeleton)
{
  return skeleton->bytes_read;
}

void
fw_onnx_skeleton_free (FwOnnxSkeleton *skeleton)
{
  if (skeleton == NULL)
    return;
  if (skeleton->data != NULL && skeleton->size > 0)
    munmap (skeleton->data, skeleton->size);
  g_free (skeleton);
}
