/* fw-onnx-reader-graph.c: GraphProto and what it holds: value infos and their types, nodes and their
 * attributes (subgraphs recurse here), initializers. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-reader-private.h"

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
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "dim_value", error))
            return FALSE;
          if ((gint64) f.varint < 0)
            return fw_rd_fail (ctx, f.offset, error, FW_ERROR_INVALID,
                               _("dim %u is negative (%" PRId64 ")"), vi->dims->len, (gint64) f.varint);
          if ((gint64) f.varint > FW_TENSOR_MAX_ELEMENTS)
            {
              g_autofree char *cap = fw_tensor_format_max_elements ();
              return fw_rd_fail (ctx, f.offset, error, FW_ERROR_LIMIT,
                                 _("dim %u is %" PRId64 ", more than %s (raise the cap with --max-tensor-elements)"),
                                 vi->dims->len, (gint64) f.varint, cap);
            }
          dim.value = (gint64) f.varint;
          dim.symbol = NULL;
        }
      else if (f.field == DIM_PARAM)
        {
          char *sym = NULL;
          if (!fw_rd_take_name (ctx, &f, N_("dim_param"), &sym, error))
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
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_LIMIT, _("shape has more than %d dims"), FW_MAX_RANK);
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
      if (!fw_rd_expect_wire (ctx, &d, FW_PB_LEN, "dim", error) || !parse_dim (ctx, &d, vi, error))
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
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "elem_type", error))
            return FALSE;
          if (f.varint != 0 && !fw_dtype_is_valid ((gint64) f.varint))
            return fw_rd_fail (ctx, f.offset, error, FW_ERROR_INVALID,
                               _("element type %" PRId64 " is not an ONNX element type"), (gint64) f.varint);
          vi->dtype = (FwDType) f.varint;
        }
      else if (f.field == TENSOR_TYPE_SHAPE)
        {
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "shape", error) || !parse_shape (ctx, &f, vi, error))
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
          if (!fw_rd_expect_wire (ctx, &t, FW_PB_LEN, "tensor_type", error) || !parse_tensor_type (ctx, &t, vi, error))
            return FALSE;
        }
    }
  if (_st == FW_PB_ERROR)
    return FALSE;
  if (!is_tensor)
    {
      /* Sequences, maps and optionals are kept whole for the writer; their values stay untyped here. */
      g_clear_pointer (&vi->type_raw, g_bytes_unref);
      vi->type_raw = g_bytes_new_from_bytes (ctx->bytes, fw_rd_offset_of (ctx, outer->data), outer->len);
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
  if (!fw_rd_expect_wire (ctx, outer, FW_PB_LEN, "value_info", error) || !fw_rd_enter (ctx, outer->data, error))
    return FALSE;
  {
    FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
      {
        if (f.field == VI_NAME && !fw_rd_take_name (ctx, &f, N_("value name"), &vi->name, error))
          return FALSE;
        if (f.field == VI_DOC_STRING && f.wire == FW_PB_LEN)
          {
            g_free (vi->doc_string);
            vi->doc_string = g_utf8_make_valid ((const char *) f.data, f.len);
          }
        if (f.field == VI_TYPE)
          {
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "type", error) || !parse_type (ctx, &f, vi, error))
              return FALSE;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }
  fw_rd_leave (ctx);
  if (vi->name == NULL || vi->name[0] == '\0')
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("a value_info has no name"));
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
          return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_LIMIT,
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
          if (!fw_rd_take_name (ctx, &f, N_("attribute name"), &a->name, error))
            return FALSE;
          g_string_truncate (ctx->where, mark);
          g_string_append_printf (ctx->where, ".attribute “%s”", a->name);
          break;
        case ATTR_REF_ATTR_NAME:
          if (!fw_rd_take_name (ctx, &f, N_("ref_attr_name"), &a->ref, error))
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
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "type", error))
            return FALSE;
          a->type = (gint64) f.varint;
          break;
        case ATTR_F:
          {
            guint32 bits;
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_FIXED32, "f", error))
              return FALSE;
            bits = (guint32) f.varint;
            memcpy (&a->fv, &bits, 4);
            a->have_f = TRUE;
          }
          break;
        case ATTR_I:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_VARINT, "i", error))
            return FALSE;
          a->iv = (gint64) f.varint;
          a->have_i = TRUE;
          break;
        case ATTR_S:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "s", error))
            return FALSE;
          a->s_field = f;
          a->have_s = TRUE;
          break;
        case ATTR_T:
        case ATTR_TENSORS:
          {
            FwTensor *t = NULL;
            if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "tensor", error) ||
                !fw_rd_parse_tensor (ctx, f.data, f.len, &t, NULL, error))
              return FALSE;
            g_ptr_array_add (a->tensors, t);
          }
          break;
        case ATTR_G:
        case ATTR_GRAPHS:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "graph", error))
            return FALSE;
          g_ptr_array_add (a->graph_fields, g_memdup2 (&f, sizeof f));
          break;
        case ATTR_FLOATS:
          if (!fw_rd_append_fixed (ctx, &f, 4, a->floats, error))
            return FALSE;
          break;
        case ATTR_INTS:
          if (!fw_rd_append_varints (ctx, &f, a->ints, error))
            return FALSE;
          break;
        case ATTR_STRINGS:
          if (!fw_rd_expect_wire (ctx, &f, FW_PB_LEN, "strings", error))
            return FALSE;
          if (!fw_rd_account (ctx, f.len, f.offset, error))
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
        return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("attribute has no type and no value"));
    }
  if (a->type < 0 || a->type > FW_ATTR_TYPE_PROTOS)
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("attribute type %" PRId64 " is unknown"),
                       a->type);
  return TRUE;
}

/* A graph attribute's one subgraph or a graphs attribute's list, parsed as children of the node. */
static gboolean
set_attr_graphs (Ctx *ctx, const FwPbField *outer, FwNode *node, FwAttr *attr, AttrFields *a, GError **error)
{
  if (a->type == FW_ATTR_GRAPH && a->graph_fields->len != 1)
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("graph attribute holds %u graphs"),
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
      if (!fw_rd_parse_graph (ctx, gf->data, gf->len, sub, error))
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
        return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("tensor attribute holds %u tensors"),
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

  if (!fw_rd_expect_wire (ctx, outer, FW_PB_LEN, "attribute", error) || !fw_rd_enter (ctx, outer->data, error))
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
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("an attribute has no name"));
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
  fw_rd_leave (ctx);
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

  if (!fw_rd_expect_wire (ctx, outer, FW_PB_LEN, "node", error) || !fw_rd_enter (ctx, outer->data, error))
    return FALSE;
  if (++ctx->n_nodes > ctx->max_nodes)
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_LIMIT,
                       _("the model has more than %u nodes (raise the limit with --max-nodes)"), ctx->max_nodes);
  if ((ctx->n_nodes & 1023) == 0)
    {
      if (g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        return FALSE;
      if (ctx->progress && ctx->size > 0)
        ctx->progress ((gdouble) fw_rd_offset_of (ctx, outer->data) / ctx->size, ctx->progress_data);
    }
  g_string_append_printf (ctx->where, ".node[%u]", index);
  {
    FOR_EACH_FIELD (ctx, outer->data, outer->len, f, error)
      {
        char *s = NULL;
        switch (f.field)
          {
          case NODE_INPUT:
            if (!fw_rd_take_name (ctx, &f, N_("input name"), &s, error))
              return FALSE;
            g_ptr_array_add (inputs, s);
            break;
          case NODE_OUTPUT:
            if (!fw_rd_take_name (ctx, &f, N_("output name"), &s, error))
              return FALSE;
            g_ptr_array_add (outputs, s);
            break;
          case NODE_NAME:
            if (!fw_rd_take_name (ctx, &f, N_("node name"), &name, error))
              return FALSE;
            g_string_truncate (ctx->where, mark);
            g_string_append_printf (ctx->where, ".node[%u] “%s”", index, name);
            break;
          case NODE_OP_TYPE:
            if (!fw_rd_take_name (ctx, &f, N_("op_type"), &op_type, error))
              return FALSE;
            break;
          case NODE_DOMAIN:
            if (!fw_rd_take_name (ctx, &f, N_("domain"), &domain, error))
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
            g_ptr_array_add (extra, fw_rd_encoded_field (ctx, &f, &_r));
            break;
          }
      }
    if (_st == FW_PB_ERROR)
      return FALSE;
  }
  if (op_type == NULL || op_type[0] == '\0')
    return fw_rd_fail (ctx, outer->offset, error, FW_ERROR_INVALID, _("node has no op_type"));

  node = fw_graph_add_node (graph, op_type, domain ? domain : "", name ? name : "",
                            inputs->len, (const char * const *) inputs->pdata,
                            outputs->len, (const char * const *) outputs->pdata, &local);
  if (node == NULL)
    {
      fw_rd_fail (ctx, outer->offset, error, local->code, "%s", local->message);
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
  fw_rd_leave (ctx);
  return TRUE;
}

gboolean
fw_rd_parse_graph (Ctx *ctx, const guint8 *data, gsize len, FwGraph *graph, GError **error)
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

  if (!fw_rd_enter (ctx, data, error))
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
              if (!fw_rd_take_name (ctx, &f, N_("graph name"), &name, error))
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
            g_ptr_array_add (graph->extra_raw, fw_rd_encoded_field (ctx, &f, &_r));
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

      if (!fw_rd_expect_wire (ctx, fi, FW_PB_LEN, "initializer", error))
        return FALSE;
      g_string_append_printf (ctx->where, ".initializer[%u]", i);
      if (!fw_rd_parse_tensor (ctx, fi->data, fi->len, &tensor, &name, error))
        return FALSE;
      if (name == NULL || name[0] == '\0')
        return fw_rd_fail (ctx, fi->offset, error, FW_ERROR_INVALID, _("initializer has no name"));
      if (fw_graph_add_initializer (graph, name, tensor, &local) == NULL)
        {
          fw_rd_fail (ctx, fi->offset, error, local->code, "%s", local->message);
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
          fw_rd_fail (ctx, fi->offset, error, local->code, "%s", local->message);
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
  fw_rd_leave (ctx);
  return TRUE;
}
