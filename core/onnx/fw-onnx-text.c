/* fw-onnx-text.c: a serialized ModelProto in protobuf's text format (.pbtxt), which Netron opens and a
 * person can read and diff: the graph dumps write one beside each .onnx.
 *
 * A schema of onnx.proto's messages (field number, name, how it is encoded) drives a walk of the wire
 * bytes, so every message the writer emits prints with its real field names. Bulk tensor data over
 * TEXT_DATA_LIMIT bytes is left out with a comment saying how much (the .onnx beside it has it); fields the
 * schema does not know are named by number in a comment. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-text.h"
#include "fw-pb.h"

#define TEXT_DATA_LIMIT 1024
#define TEXT_MAX_DEPTH 64

typedef enum {
  K_INT,       /* varint as a signed 64-bit integer (int32, int64) */
  K_UINT,      /* varint, unsigned */
  K_FLOAT,     /* fixed32 */
  K_DOUBLE,    /* fixed64 */
  K_STRING,
  K_BYTES,     /* bulk: left out past the limit */
  K_MESSAGE,
  K_ATTR_TYPE, /* AttributeProto.AttributeType */
  K_LOCATION,  /* TensorProto.DataLocation */
} Kind;

typedef struct Message Message;

typedef struct
{
  guint32        number;
  const char    *name;
  Kind           kind;
  const Message *message;  /* K_MESSAGE */
  gboolean       bulk;     /* numeric tensor data: left out past the limit */
} Field;

struct Message
{
  const Field *fields;
  guint        n_fields;
};

#define MSG(name) static const Message name
#define FIELDS(name, ...) static const Field name##_fields[] = { __VA_ARGS__ }; \
  MSG (name) = { name##_fields, G_N_ELEMENTS (name##_fields) }

extern const Message graph_msg, type_msg, tensor_msg, attr_msg, node_msg;

FIELDS (entry_msg, { 1, "key", K_STRING, NULL, FALSE }, { 2, "value", K_STRING, NULL, FALSE });
FIELDS (opset_msg, { 1, "domain", K_STRING, NULL, FALSE }, { 2, "version", K_INT, NULL, FALSE });
FIELDS (dim_msg, { 1, "dim_value", K_INT, NULL, FALSE }, { 2, "dim_param", K_STRING, NULL, FALSE },
        { 3, "denotation", K_STRING, NULL, FALSE });
FIELDS (shape_msg, { 1, "dim", K_MESSAGE, &dim_msg, FALSE });
FIELDS (tensor_type_msg, { 1, "elem_type", K_INT, NULL, FALSE }, { 2, "shape", K_MESSAGE, &shape_msg, FALSE });
FIELDS (sequence_type_msg, { 1, "elem_type", K_MESSAGE, &type_msg, FALSE });
FIELDS (map_type_msg, { 1, "key_type", K_INT, NULL, FALSE }, { 2, "value_type", K_MESSAGE, &type_msg, FALSE });
FIELDS (optional_type_msg, { 1, "elem_type", K_MESSAGE, &type_msg, FALSE });
FIELDS (sparse_type_msg, { 1, "elem_type", K_INT, NULL, FALSE }, { 2, "shape", K_MESSAGE, &shape_msg, FALSE });
static const Field type_fields[] = {
  { 1, "tensor_type", K_MESSAGE, &tensor_type_msg, FALSE }, { 4, "sequence_type", K_MESSAGE, &sequence_type_msg, FALSE },
  { 5, "map_type", K_MESSAGE, &map_type_msg, FALSE }, { 6, "denotation", K_STRING, NULL, FALSE },
  { 8, "sparse_tensor_type", K_MESSAGE, &sparse_type_msg, FALSE },
  { 9, "optional_type", K_MESSAGE, &optional_type_msg, FALSE },
};
const Message type_msg = { type_fields, G_N_ELEMENTS (type_fields) };
FIELDS (value_info_msg, { 1, "name", K_STRING, NULL, FALSE }, { 2, "type", K_MESSAGE, &type_msg, FALSE },
        { 3, "doc_string", K_STRING, NULL, FALSE }, { 4, "metadata_props", K_MESSAGE, &entry_msg, FALSE });
static const Field tensor_fields[] = {
  { 1, "dims", K_INT, NULL, FALSE }, { 2, "data_type", K_INT, NULL, FALSE },
  { 4, "float_data", K_FLOAT, NULL, TRUE }, { 5, "int32_data", K_INT, NULL, TRUE },
  { 6, "string_data", K_BYTES, NULL, TRUE }, { 7, "int64_data", K_INT, NULL, TRUE },
  { 8, "name", K_STRING, NULL, FALSE }, { 9, "raw_data", K_BYTES, NULL, TRUE },
  { 10, "double_data", K_DOUBLE, NULL, TRUE }, { 11, "uint64_data", K_UINT, NULL, TRUE },
  { 12, "doc_string", K_STRING, NULL, FALSE }, { 13, "external_data", K_MESSAGE, &entry_msg, FALSE },
  { 14, "data_location", K_LOCATION, NULL, FALSE }, { 16, "metadata_props", K_MESSAGE, &entry_msg, FALSE },
};
const Message tensor_msg = { tensor_fields, G_N_ELEMENTS (tensor_fields) };
FIELDS (sparse_msg, { 1, "values", K_MESSAGE, &tensor_msg, FALSE }, { 2, "indices", K_MESSAGE, &tensor_msg, FALSE },
        { 3, "dims", K_INT, NULL, FALSE });
static const Field attr_fields[] = {
  { 1, "name", K_STRING, NULL, FALSE }, { 2, "f", K_FLOAT, NULL, FALSE }, { 3, "i", K_INT, NULL, FALSE },
  { 4, "s", K_BYTES, NULL, FALSE }, { 5, "t", K_MESSAGE, &tensor_msg, FALSE },
  { 6, "g", K_MESSAGE, &graph_msg, FALSE }, { 7, "floats", K_FLOAT, NULL, FALSE },
  { 8, "ints", K_INT, NULL, FALSE }, { 9, "strings", K_BYTES, NULL, FALSE },
  { 10, "tensors", K_MESSAGE, &tensor_msg, FALSE }, { 11, "graphs", K_MESSAGE, &graph_msg, FALSE },
  { 13, "doc_string", K_STRING, NULL, FALSE }, { 14, "tp", K_MESSAGE, &type_msg, FALSE },
  { 15, "type_protos", K_MESSAGE, &type_msg, FALSE }, { 20, "type", K_ATTR_TYPE, NULL, FALSE },
  { 21, "ref_attr_name", K_STRING, NULL, FALSE }, { 22, "sparse_tensor", K_MESSAGE, &sparse_msg, FALSE },
  { 23, "sparse_tensors", K_MESSAGE, &sparse_msg, FALSE },
};
const Message attr_msg = { attr_fields, G_N_ELEMENTS (attr_fields) };
static const Field node_fields[] = {
  { 1, "input", K_STRING, NULL, FALSE }, { 2, "output", K_STRING, NULL, FALSE }, { 3, "name", K_STRING, NULL, FALSE },
  { 4, "op_type", K_STRING, NULL, FALSE }, { 5, "attribute", K_MESSAGE, &attr_msg, FALSE },
  { 6, "doc_string", K_STRING, NULL, FALSE }, { 7, "domain", K_STRING, NULL, FALSE },
  { 8, "overload", K_STRING, NULL, FALSE }, { 9, "metadata_props", K_MESSAGE, &entry_msg, FALSE },
};
const Message node_msg = { node_fields, G_N_ELEMENTS (node_fields) };
FIELDS (annotation_msg, { 1, "tensor_name", K_STRING, NULL, FALSE },
        { 2, "quant_parameter_tensor_names", K_MESSAGE, &entry_msg, FALSE });
static const Field graph_fields[] = {
  { 1, "node", K_MESSAGE, &node_msg, FALSE }, { 2, "name", K_STRING, NULL, FALSE },
  { 5, "initializer", K_MESSAGE, &tensor_msg, FALSE }, { 10, "doc_string", K_STRING, NULL, FALSE },
  { 11, "input", K_MESSAGE, &value_info_msg, FALSE }, { 12, "output", K_MESSAGE, &value_info_msg, FALSE },
  { 13, "value_info", K_MESSAGE, &value_info_msg, FALSE },
  { 14, "quantization_annotation", K_MESSAGE, &annotation_msg, FALSE },
  { 15, "sparse_initializer", K_MESSAGE, &sparse_msg, FALSE }, { 16, "metadata_props", K_MESSAGE, &entry_msg, FALSE },
};
const Message graph_msg = { graph_fields, G_N_ELEMENTS (graph_fields) };
FIELDS (function_msg, { 1, "name", K_STRING, NULL, FALSE }, { 4, "input", K_STRING, NULL, FALSE },
        { 5, "output", K_STRING, NULL, FALSE }, { 6, "attribute", K_STRING, NULL, FALSE },
        { 7, "node", K_MESSAGE, &node_msg, FALSE }, { 8, "doc_string", K_STRING, NULL, FALSE },
        { 9, "opset_import", K_MESSAGE, &opset_msg, FALSE }, { 10, "domain", K_STRING, NULL, FALSE },
        { 11, "attribute_proto", K_MESSAGE, &attr_msg, FALSE }, { 12, "value_info", K_MESSAGE, &value_info_msg, FALSE },
        { 13, "overload", K_STRING, NULL, FALSE }, { 14, "metadata_props", K_MESSAGE, &entry_msg, FALSE });
FIELDS (model_msg, { 1, "ir_version", K_INT, NULL, FALSE }, { 2, "producer_name", K_STRING, NULL, FALSE },
        { 3, "producer_version", K_STRING, NULL, FALSE }, { 4, "domain", K_STRING, NULL, FALSE },
        { 5, "model_version", K_INT, NULL, FALSE }, { 6, "doc_string", K_STRING, NULL, FALSE },
        { 7, "graph", K_MESSAGE, &graph_msg, FALSE }, { 8, "opset_import", K_MESSAGE, &opset_msg, FALSE },
        { 14, "metadata_props", K_MESSAGE, &entry_msg, FALSE }, { 25, "functions", K_MESSAGE, &function_msg, FALSE });

static const char *const attr_types[] = {
  "UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
  "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS",
};

static const Field *
find_field (const Message *m, guint32 number)
{
  for (guint i = 0; i < m->n_fields; i++)
    if (m->fields[i].number == number)
      return &m->fields[i];
  return NULL;
}

static void
indent (GString *out, guint depth)
{
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

/* Text format's C-like escapes; bytes outside printable ASCII as octal, so UTF-8 names stay exact. */
static void
append_quoted (GString *out, const guint8 *data, gsize len)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < len; i++)
    {
      guint8 c = data[i];
      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c >= 0x20 && c < 0x7f)
        g_string_append_c (out, (char) c);
      else
        g_string_append_printf (out, "\\%03o", c);
    }
  g_string_append_c (out, '"');
}

static void
append_scalar (GString *out, Kind kind, guint64 bits)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  switch (kind)
    {
    case K_FLOAT:
      {
        guint32 b32 = (guint32) bits;
        float f;
        memcpy (&f, &b32, sizeof f);
        g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.9g", f));
        break;
      }
    case K_DOUBLE:
      {
        double d;
        memcpy (&d, &bits, sizeof d);
        g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", d));
        break;
      }
    case K_UINT:
      g_string_append_printf (out, "%" G_GUINT64_FORMAT, bits);
      break;
    case K_ATTR_TYPE:
      if (bits < G_N_ELEMENTS (attr_types))
        g_string_append (out, attr_types[bits]);
      else
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, bits);
      break;
    case K_LOCATION:
      g_string_append (out, bits == 0 ? "DEFAULT" : bits == 1 ? "EXTERNAL" : "DEFAULT");
      break;
    case K_INT:
    case K_STRING:
    case K_BYTES:
    case K_MESSAGE:
    default:
      g_string_append_printf (out, "%" G_GINT64_FORMAT, (gint64) bits);
      break;
    }
}

/* A packed run of numbers: each as its own `name: value` line, as text format writes repeated fields. */
static gboolean
append_packed (GString *out, const Field *f, const guint8 *data, gsize len, guint depth)
{
  const guint8 *p = data, *end = data + len;

  while (p < end)
    {
      guint64 v = 0;
      if (f->kind == K_FLOAT || f->kind == K_DOUBLE)
        {
          gsize size = f->kind == K_FLOAT ? 4 : 8;
          if ((gsize) (end - p) < size)
            return FALSE;
          for (gsize b = 0; b < size; b++)
            v |= (guint64) p[b] << (8 * b);
          p += size;
        }
      else if (!fw_pb_decode_varint (&p, end, &v))
        return FALSE;
      indent (out, depth);
      g_string_append_printf (out, "%s: ", f->name);
      append_scalar (out, f->kind, v);
      g_string_append_c (out, '\n');
    }
  return TRUE;
}

static gboolean
append_message (GString *out, const Message *m, const guint8 *base, const guint8 *data, gsize len, guint depth,
                GError **error)
{
  FwPbReader reader;
  FwPbField field;
  FwPbStatus status;
  const char *message = NULL;
  gsize offset = 0;

  if (depth > TEXT_MAX_DEPTH)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("messages nested deeper than %d"), TEXT_MAX_DEPTH);
      return FALSE;
    }
  fw_pb_reader_init (&reader, base, data, len);
  while ((status = fw_pb_next (&reader, &field, &message, &offset)) == FW_PB_OK)
    {
      const Field *f = find_field (m, field.field);

      if (f == NULL)
        {
          indent (out, depth);
          g_string_append_printf (out, "# field %u (wire type %d) is not shown\n", field.field, field.wire);
          continue;
        }
      if (field.wire == FW_PB_LEN && f->bulk && field.len > TEXT_DATA_LIMIT)
        {
          indent (out, depth);
          g_string_append_printf (out, "# %s: %" G_GSIZE_FORMAT " bytes left out (the .onnx file has them)\n", f->name,
                                  field.len);
          continue;
        }
      if (f->kind == K_MESSAGE && field.wire == FW_PB_LEN)
        {
          indent (out, depth);
          g_string_append_printf (out, "%s {\n", f->name);
          if (!append_message (out, f->message, base, field.data, field.len, depth + 1, error))
            return FALSE;
          indent (out, depth);
          g_string_append (out, "}\n");
        }
      else if ((f->kind == K_STRING || f->kind == K_BYTES) && field.wire == FW_PB_LEN)
        {
          indent (out, depth);
          g_string_append_printf (out, "%s: ", f->name);
          append_quoted (out, field.data, field.len);
          g_string_append_c (out, '\n');
        }
      else if (field.wire == FW_PB_LEN)
        {
          if (!append_packed (out, f, field.data, field.len, depth))
            {
              g_autofree char *at = g_strdup_printf ("%" G_GSIZE_FORMAT, field.offset);
              g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("byte %s: a packed %s is cut short"), at, f->name);
              return FALSE;
            }
        }
      else if (field.wire == FW_PB_VARINT || field.wire == FW_PB_FIXED32 || field.wire == FW_PB_FIXED64)
        {
          indent (out, depth);
          g_string_append_printf (out, "%s: ", f->name);
          append_scalar (out, f->kind, field.varint);
          g_string_append_c (out, '\n');
        }
    }
  if (status == FW_PB_ERROR)
    {
      g_autofree char *at = g_strdup_printf ("%" G_GSIZE_FORMAT, offset);
      g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("byte %s: %s"), at, message);
      return FALSE;
    }
  return TRUE;
}

char *
fw_onnx_to_text (GBytes *model, GError **error)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (model, &len);
  g_autoptr(GString) out = g_string_new ("# ONNX ModelProto in protobuf text format, written by fusion-workbench\n");

  if (!append_message (out, &model_msg, data, data, len, 0, error))
    return NULL;
  return g_string_free (g_steal_pointer (&out), FALSE);
}
