/* fw-test-pb.h: hand-encoding of ONNX protobuf messages, so tests can build files that our own writer
 * would never produce (wrong wire types, bad lengths, cycles). */
#pragma once

#include "onnx/fw-pb.h"
#include "onnx/fw-onnx-fields.h"

G_BEGIN_DECLS

typedef void (*FwTestGraphBody) (GByteArray *graph, gpointer user_data);

/* A ModelProto with ir_version, one ai.onnx opset import and a graph written by body. */
GBytes  *fw_test_pb_model       (gint64           ir_version,
                                 gint64           opset,
                                 FwTestGraphBody  body,
                                 gpointer         user_data);
void     fw_test_pb_node        (GByteArray      *g,
                                 const char      *op_type,
                                 const char      *name,
                                 const char      *in0,
                                 const char      *in1,
                                 const char      *out0);
/* A float tensor value_info; dims < 0 become dim_param "n". */
void     fw_test_pb_value_info  (GByteArray      *g,
                                 guint32          field,
                                 const char      *name,
                                 guint            rank,
                                 const gint64    *dims);
/* An initializer of float32 with raw_data of raw_len bytes (contents zero). */
void     fw_test_pb_initializer (GByteArray      *g,
                                 const char      *name,
                                 guint            rank,
                                 const gint64    *dims,
                                 gsize            raw_len);
/* An initializer whose data is external: location, offset and length as given (length < 0: omitted). */
void     fw_test_pb_external    (GByteArray      *g,
                                 const char      *name,
                                 gint64           n_floats,
                                 const char      *location,
                                 gint64           offset,
                                 gint64           length);

G_END_DECLS
