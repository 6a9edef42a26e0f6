/* fw-onnx-text.h: a serialized ONNX model as protobuf text format (.pbtxt), for people and Netron. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The text of model (a serialized ModelProto). Tensor data over 1 KiB is left out with a comment; FW_ERROR_PARSE
 * when the bytes are not a well-formed message. */
char *fw_onnx_to_text (GBytes  *model,
                       GError **error);

G_END_DECLS
