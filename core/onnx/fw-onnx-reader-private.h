/* fw-onnx-reader-private.h: what the ONNX reader's files share: the parse context, the field loop, the
 * helpers that report errors with the path inside the model and count allocations and nesting
 * (fw-onnx-reader-wire.c), tensors (fw-onnx-reader-tensor.c) and graphs (fw-onnx-reader-graph.c). */
#pragma once

#include "fw-onnx.h"
#include "fw-pb.h"
#include "graph/fw-model-private.h"

G_BEGIN_DECLS

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

/* Loops over the fields of a message; after it, _st is FW_PB_ERROR when it stopped on an error (then set).
 * _r is the reader, for the offset where the current field ends. */
#define FOR_EACH_FIELD(ctx, data, len, f, error)                               \
  FwPbReader _r;                                                               \
  FwPbStatus _st;                                                              \
  fw_pb_reader_init (&_r, (ctx)->base, (data), (len));                          \
  while (fw_rd_next_field ((ctx), &_r, &(f), &_st, (error)) ? _st == FW_PB_OK : (_st = FW_PB_ERROR, FALSE))

/* Sets error, prefixed with the file, the byte offset and ctx->where; returns FALSE. */
gboolean fw_rd_fail (Ctx *ctx, gsize offset, GError **error, gint code, const char *format, ...) G_GNUC_PRINTF (5, 6);

/* Where p lies in the file, for messages. */
gsize fw_rd_offset_of (Ctx *ctx, const guint8 *p);

/* What a file makes us copy is bounded by its own size, but a packed varint list grows eightfold: every
 * copy is counted against a cap, so a hostile file cannot make the program allocate without limit. */
gboolean fw_rd_account (Ctx *ctx, guint64 bytes, gsize offset, GError **error);

/* Refuses field f unless it has the wire type; what names the field in the message. */
gboolean fw_rd_expect_wire (Ctx *ctx, const FwPbField *f, FwPbWireType wire, const char *what, GError **error);

/* Names must be UTF-8 without NULs: they reach reports, the GUI and generated comments. `what` is marked
 * with N_() and translated only when it is shown: this runs for every name in the file. */
gboolean fw_rd_take_name (Ctx *ctx, const FwPbField *f, const char *what, char **out, GError **error);

/* The next field of r into f; a malformed one sets error and *status FW_PB_ERROR. */
gboolean fw_rd_next_field (Ctx *ctx, FwPbReader *r, FwPbField *f, FwPbStatus *status, GError **error);

/* One level deeper into nested messages, refused past ctx->max_depth; leave undoes it. */
gboolean fw_rd_enter (Ctx *ctx, const guint8 *data, GError **error);

void fw_rd_leave (Ctx *ctx);

/* Field f as it is encoded in the file (tag included), kept for fields the model stores raw. */
GBytes *fw_rd_encoded_field (Ctx *ctx, const FwPbField *f, const FwPbReader *r);

/* Appends a varint or a packed list of them to out (gint64). */
gboolean fw_rd_append_varints (Ctx *ctx, const FwPbField *f, GArray *out, GError **error);

/* Fixed-width elements (float, double): appended as raw little-endian bytes. */
gboolean fw_rd_append_fixed (Ctx *ctx, const FwPbField *f, guint width, GByteArray *out, GError **error);

/* A StringStringEntryProto: key and value, each NULL when absent. */
gboolean fw_rd_parse_entry (Ctx *ctx, const FwPbField *outer, char **key, char **value, GError **error);

/* A TensorProto; *name_out (when not NULL) takes its name. */
gboolean fw_rd_parse_tensor (Ctx *ctx, const guint8 *data, gsize len, FwTensor **out, char **name_out,
                             GError **error);

/* A GraphProto into graph (the main graph or a subgraph of an attribute). */
gboolean fw_rd_parse_graph (Ctx *ctx, const guint8 *data, gsize len, FwGraph *graph, GError **error);

G_END_DECLS
