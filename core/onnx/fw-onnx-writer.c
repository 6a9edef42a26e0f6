#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "fw-error.h"
#include "io/fw-file-write.h"
#include "fw-onnx.h"
#include "fw-onnx-fields.h"
#include "fw-onnx-rewrite-private.h"
#include "fw-pb.h"
#include "graph/fw-model-private.h"

/* Tensors at least this large go to the external data file when one is asked for. */
#define EXTERNAL_THRESHOLD 1024
/* protobuf's own parsers refuse messages of 2 GiB and more. */
#define MAX_PROTO_BYTES ((gsize) G_MAXINT32)

typedef struct
{
  FwOnnxWriteFlags flags;
  GByteArray      *external;      /* bytes for the .data file, or NULL */
  const char      *external_name; /* its file name, relative to the model */
  const FwOnnxRewrite *rewrite;   /* groups that become function nodes in the main graph, or NULL */
  gint64           ir_version;    /* what the file declares */
} Writer;

static void write_graph (Writer *w, GByteArray *out, const FwGraph *graph);

static void
put_raw_fields (GByteArray *out, GPtrArray *fields)
{
  for (guint i = 0; fields && i < fields->len; i++)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (g_ptr_array_index (fields, i), &len);
      g_byte_array_append (out, data, len);
    }
}

static void
write_tensor (Writer *w, GByteArray *out, guint32 field, const FwTensor *tensor, const char *name)
{
  gsize mark = fw_pb_begin (out, field);

  for (guint i = 0; i < tensor->rank; i++)
    fw_pb_put_int (out, TENSOR_DIMS, tensor->dims[i]);
  fw_pb_put_int (out, TENSOR_DATA_TYPE, tensor->dtype);
  if (name && name[0])
    fw_pb_put_string (out, TENSOR_NAME, name);
  if (tensor->dtype == FW_DTYPE_STRING)
    {
      for (guint i = 0; tensor->strings && i < tensor->strings->len; i++)
        {
          gsize len;
          const guint8 *data = g_bytes_get_data (g_ptr_array_index (tensor->strings, i), &len);
          fw_pb_put_bytes (out, TENSOR_STRING_DATA, data, len);
        }
    }
  else
    {
      gsize size;
      const guint8 *data = fw_tensor_get_data (tensor, &size);

      if (w->external != NULL && size >= EXTERNAL_THRESHOLD)
        {
          g_autofree char *offset = NULL;
          g_autofree char *length = NULL;
          gsize m2;
          static const guint8 zeros[64] = { 0 };

          /* 64-byte alignment lets a reader map tensors straight into SIMD loads. */
          if (w->external->len % 64)
            g_byte_array_append (w->external, zeros, 64 - w->external->len % 64);
          offset = g_strdup_printf ("%u", w->external->len);
          length = g_strdup_printf ("%" G_GSIZE_FORMAT, size);
          g_byte_array_append (w->external, data, size);

          m2 = fw_pb_begin (out, TENSOR_EXTERNAL_DATA);
          fw_pb_put_string (out, ENTRY_KEY, "location");
          fw_pb_put_string (out, ENTRY_VALUE, w->external_name);
          fw_pb_end (out, m2);
          m2 = fw_pb_begin (out, TENSOR_EXTERNAL_DATA);
          fw_pb_put_string (out, ENTRY_KEY, "offset");
          fw_pb_put_string (out, ENTRY_VALUE, offset);
          fw_pb_end (out, m2);
          m2 = fw_pb_begin (out, TENSOR_EXTERNAL_DATA);
          fw_pb_put_string (out, ENTRY_KEY, "length");
          fw_pb_put_string (out, ENTRY_VALUE, length);
          fw_pb_end (out, m2);
          fw_pb_put_int (out, TENSOR_DATA_LOCATION, 1);
        }
      else
        fw_pb_put_bytes (out, TENSOR_RAW_DATA, data, size);
    }
  fw_pb_end (out, mark);
}

static void
write_type (GByteArray *out, const FwValue *value)
{
  gsize mark, tmark;

  if (value->type_raw)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (value->type_raw, &len);
      fw_pb_put_bytes (out, VI_TYPE, data, len);
      return;
    }
  mark = fw_pb_begin (out, VI_TYPE);
  tmark = fw_pb_begin (out, TYPE_TENSOR);
  fw_pb_put_int (out, TENSOR_TYPE_ELEM_TYPE, value->dtype);
  if (value->rank >= 0)
    {
      gsize smark = fw_pb_begin (out, TENSOR_TYPE_SHAPE);
      for (gint i = 0; i < value->rank; i++)
        {
          gsize dmark = fw_pb_begin (out, SHAPE_DIM);
          if (value->dims[i].value >= 0)
            fw_pb_put_int (out, DIM_VALUE, value->dims[i].value);
          else if (value->dims[i].symbol)
            fw_pb_put_string (out, DIM_PARAM, value->dims[i].symbol);
          fw_pb_end (out, dmark);
        }
      fw_pb_end (out, smark);
    }
  fw_pb_end (out, tmark);
  fw_pb_end (out, mark);
}

static void
write_value_info (GByteArray *out, guint32 field, const FwValue *value)
{
  gsize mark = fw_pb_begin (out, field);

  fw_pb_put_string (out, VI_NAME, value->name);
  if (value->dtype != FW_DTYPE_UNDEFINED || value->type_raw)
    write_type (out, value);
  if (value->doc_string && value->doc_string[0])
    fw_pb_put_string (out, VI_DOC_STRING, value->doc_string);
  fw_pb_end (out, mark);
}

static void
write_attribute (Writer *w, GByteArray *out, const FwAttr *attr)
{
  gsize mark = fw_pb_begin (out, NODE_ATTRIBUTE);

  fw_pb_put_string (out, ATTR_NAME, attr->name);
  if (attr->ref_attr_name)
    fw_pb_put_string (out, ATTR_REF_ATTR_NAME, attr->ref_attr_name);
  if (attr->doc_string && attr->doc_string[0])
    fw_pb_put_string (out, ATTR_DOC_STRING, attr->doc_string);
  fw_pb_put_int (out, ATTR_TYPE, attr->type);
  switch (attr->type)
    {
    case FW_ATTR_FLOAT:
      {
        guint32 bits;
        memcpy (&bits, &attr->f, 4);
        fw_pb_put_fixed32 (out, ATTR_F, bits);
      }
      break;
    case FW_ATTR_INT:
      fw_pb_put_int (out, ATTR_I, attr->i);
      break;
    case FW_ATTR_STRING:
      fw_pb_put_bytes (out, ATTR_S, attr->s, attr->s_len);
      break;
    case FW_ATTR_TENSOR:
      if (attr->t)
        write_tensor (w, out, ATTR_T, attr->t, NULL);
      break;
    case FW_ATTR_GRAPH:
      if (attr->g)
        {
          gsize gmark = fw_pb_begin (out, ATTR_G);
          write_graph (w, out, attr->g);
          fw_pb_end (out, gmark);
        }
      break;
    case FW_ATTR_FLOATS:
      for (guint i = 0; i < attr->n; i++)
        {
          guint32 bits;
          memcpy (&bits, &attr->floats[i], 4);
          fw_pb_put_fixed32 (out, ATTR_FLOATS, bits);
        }
      break;
    case FW_ATTR_INTS:
      for (guint i = 0; i < attr->n; i++)
        fw_pb_put_int (out, ATTR_INTS, attr->ints[i]);
      break;
    case FW_ATTR_STRINGS:
      for (guint i = 0; i < attr->n; i++)
        {
          gsize len;
          const guint8 *data = g_bytes_get_data (attr->strings[i], &len);
          fw_pb_put_bytes (out, ATTR_STRINGS, data, len);
        }
      break;
    case FW_ATTR_TENSORS:
      for (guint i = 0; i < attr->n; i++)
        write_tensor (w, out, ATTR_TENSORS, attr->tensors[i], NULL);
      break;
    case FW_ATTR_GRAPHS:
      for (guint i = 0; i < attr->n; i++)
        {
          gsize gmark = fw_pb_begin (out, ATTR_GRAPHS);
          write_graph (w, out, attr->graphs[i]);
          fw_pb_end (out, gmark);
        }
      break;
    case FW_ATTR_UNDEFINED:
    case FW_ATTR_SPARSE_TENSOR:
    case FW_ATTR_SPARSE_TENSORS:
    case FW_ATTR_TYPE_PROTO:
    case FW_ATTR_TYPE_PROTOS:
    default:
      break;
    }
  if (attr->raw)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (attr->raw, &len);
      g_byte_array_append (out, data, len);
    }
  fw_pb_end (out, mark);
}

static void
write_node (Writer *w, GByteArray *out, guint32 field, const FwNode *node)
{
  gsize mark = fw_pb_begin (out, field);
  guint n_inputs = node->n_inputs;
  guint n_outputs = node->n_outputs;

  /* Trailing omitted optionals are dropped, as exporters do; inner ones stay as "". */
  while (n_inputs > 0 && node->inputs[n_inputs - 1] == NULL)
    n_inputs--;
  for (guint i = 0; i < n_inputs; i++)
    fw_pb_put_string (out, NODE_INPUT, node->inputs[i] ? node->inputs[i]->name : "");
  while (n_outputs > 0 && node->outputs[n_outputs - 1] == NULL)
    n_outputs--;
  for (guint i = 0; i < n_outputs; i++)
    fw_pb_put_string (out, NODE_OUTPUT, node->outputs[i] ? node->outputs[i]->name : "");
  if (node->name[0])
    fw_pb_put_string (out, NODE_NAME, node->name);
  fw_pb_put_string (out, NODE_OP_TYPE, node->op_type);
  if (node->domain[0])
    fw_pb_put_string (out, NODE_DOMAIN, node->domain);
  for (guint i = 0; i < node->n_attrs; i++)
    write_attribute (w, out, &node->attrs[i]);
  if (node->doc_string && node->doc_string[0])
    fw_pb_put_string (out, NODE_DOC_STRING, node->doc_string);
  put_raw_fields (out, node->extra_raw);
  fw_pb_end (out, mark);
}

static void
put_entries (GByteArray *out, guint32 field, GPtrArray *pairs)
{
  for (guint i = 0; pairs && i + 1 < pairs->len; i += 2)
    {
      gsize mark = fw_pb_begin (out, field);
      fw_pb_put_string (out, ENTRY_KEY, g_ptr_array_index (pairs, i));
      fw_pb_put_string (out, ENTRY_VALUE, g_ptr_array_index (pairs, i + 1));
      fw_pb_end (out, mark);
    }
}

static void
put_value_names (GByteArray *out, guint32 field, GPtrArray *values)
{
  for (guint i = 0; i < values->len; i++)
    fw_pb_put_string (out, field, ((FwValue *) g_ptr_array_index (values, i))->name);
}

/* A set's inputs: what it reads from outside, less the weights its packed product no longer reads, then the
 * packed initializers. */
static void
put_group_inputs (GByteArray *out, guint32 field, const FwOnnxFusedGroup *group)
{
  const FwOnnxPacked *p = group->packed;

  for (guint i = 0; i < group->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (group->inputs, i);
      if (p == NULL || !g_ptr_array_find (p->dropped, v, NULL))
        fw_pb_put_string (out, field, v->name);
    }
  if (p != NULL)
    {
      fw_pb_put_string (out, field, p->weight_name);
      if (p->bias_name != NULL)
        fw_pb_put_string (out, field, p->bias_name);
    }
}

/* A node the writer makes (not one of the model's): inputs, outputs, name, type, and one attribute or none. */
static void
put_made_node (Writer *w, GByteArray *out, const char *const *inputs, guint n_inputs, const char *const *outputs,
               guint n_outputs, const char *name, const char *op_type, const FwAttr *attr)
{
  gsize mark = fw_pb_begin (out, FUNCTION_NODE);

  for (guint i = 0; i < n_inputs; i++)
    fw_pb_put_string (out, NODE_INPUT, inputs[i]);
  for (guint i = 0; i < n_outputs; i++)
    fw_pb_put_string (out, NODE_OUTPUT, outputs[i]);
  fw_pb_put_string (out, NODE_NAME, name);
  fw_pb_put_string (out, NODE_OP_TYPE, op_type);
  if (attr != NULL)
    write_attribute (w, out, attr);
  fw_pb_end (out, mark);
}

/* The packed products: MatMul (A, packed weight) [+ packed bias], split along the last axis into the roots'
 * results. Split takes its sizes as an input from opset 13, as an attribute before. */
static void
write_packed (Writer *w, GByteArray *out, FwModel *model, const FwOnnxFusedGroup *group)
{
  const FwOnnxPacked *p = group->packed;
  g_autofree char *prod = g_strdup_printf ("%s.packed_product", group->op_type);
  g_autofree char *biased = g_strdup_printf ("%s.packed_biased", group->op_type);
  g_autofree char *sizes = g_strdup_printf ("%s.packed_split", group->op_type);
  g_autofree char *n1 = g_strdup_printf ("%s/packed_matmul", group->op_type);
  g_autofree char *n2 = g_strdup_printf ("%s/packed_bias", group->op_type);
  g_autofree char *n3 = g_strdup_printf ("%s/packed_split_sizes", group->op_type);
  g_autofree char *n4 = g_strdup_printf ("%s/packed_split", group->op_type);
  g_autofree const char **outs = g_new0 (const char *, p->roots->len + 1);
  const char *mm[2] = { p->a->name, p->weight_name }, *add[2] = { prod, p->bias_name }, *split[2];
  gint64 n = p->roots->len;
  FwAttr axis = { .name = "axis", .type = FW_ATTR_INT, .i = -1 };

  put_made_node (w, out, mm, 2, (const char *const *) &prod, 1, n1, "MatMul", NULL);
  if (p->bias_name != NULL)
    put_made_node (w, out, add, 2, (const char *const *) &biased, 1, n2, "Add", NULL);
  for (guint i = 0; i < p->roots->len; i++)
    outs[i] = ((FwNode *) g_ptr_array_index (p->roots, i))->outputs[0]->name;
  split[0] = p->bias_name != NULL ? biased : prod;
  split[1] = sizes;
  if (fw_model_get_opset_version (model, "") >= 13)
    {
      g_autoptr(FwTensor) t = fw_tensor_new_int64 (1, &n, (const gint64 *) p->columns->data);
      FwAttr value = { .name = "value", .type = FW_ATTR_TENSOR, .t = t };
      put_made_node (w, out, NULL, 0, (const char *const *) &sizes, 1, n3, "Constant", &value);
      put_made_node (w, out, split, 2, outs, p->roots->len, n4, "Split", &axis);
    }
  else
    {
      FwAttr attr = { .name = "split", .type = FW_ATTR_INTS, .n = p->roots->len, .ints = (gint64 *) p->columns->data };
      gsize mark = fw_pb_begin (out, FUNCTION_NODE);
      fw_pb_put_string (out, NODE_INPUT, split[0]);
      for (guint i = 0; i < p->roots->len; i++)
        fw_pb_put_string (out, NODE_OUTPUT, outs[i]);
      fw_pb_put_string (out, NODE_NAME, n4);
      fw_pb_put_string (out, NODE_OP_TYPE, "Split");
      write_attribute (w, out, &axis);
      write_attribute (w, out, &attr);
      fw_pb_end (out, mark);
    }
}

/* The node that stands for a group in the main graph; its outputs keep the original names, so the rest of
 * the graph reads them unchanged. */
static void
write_fused_node (Writer *w, GByteArray *out, const FwOnnxFusedGroup *group)
{
  gsize mark = fw_pb_begin (out, GRAPH_NODE);

  put_group_inputs (out, NODE_INPUT, group);
  put_value_names (out, NODE_OUTPUT, group->outputs);
  fw_pb_put_string (out, NODE_NAME, group->name);
  fw_pb_put_string (out, NODE_OP_TYPE, group->op_type);
  fw_pb_put_string (out, NODE_DOMAIN, FW_ONNX_FUSED_DOMAIN);
  if (group->doc_string && group->doc_string[0])
    fw_pb_put_string (out, NODE_DOC_STRING, group->doc_string);
  /* NodeProto.metadata_props came with IR 10; older readers would not know the field. */
  if (w->ir_version >= 10)
    put_entries (out, NODE_METADATA_PROPS, group->metadata);
  fw_pb_end (out, mark);
}

static void
write_opset_imports (GByteArray *out, guint32 field, FwModel *model, gboolean with_fused)
{
  gboolean has_fused = FALSE;

  for (guint i = 0; i < model->opsets->len; i++)
    {
      FwOpsetImport *imp = &g_array_index (model->opsets, FwOpsetImport, i);
      gsize omark = fw_pb_begin (out, field);
      fw_pb_put_string (out, OPSET_DOMAIN, imp->domain);
      fw_pb_put_int (out, OPSET_VERSION, imp->version);
      fw_pb_end (out, omark);
      if (strcmp (imp->domain, FW_ONNX_FUSED_DOMAIN) == 0)
        has_fused = TRUE;
    }
  if (with_fused && !has_fused)
    {
      gsize omark = fw_pb_begin (out, field);
      fw_pb_put_string (out, OPSET_DOMAIN, FW_ONNX_FUSED_DOMAIN);
      fw_pb_put_int (out, OPSET_VERSION, FW_ONNX_FUSED_DOMAIN_VERSION);
      fw_pb_end (out, omark);
    }
}

/* The body of a group: its original nodes, names and attributes, so ONNX Runtime's inlining gives back
 * exactly the graph that was fused. Functions cannot read initializers, which is why the group's
 * initializers are among its inputs. */
static void
write_function (Writer *w, GByteArray *out, FwModel *model, const FwOnnxFusedGroup *group)
{
  gsize mark = fw_pb_begin (out, MODEL_FUNCTIONS);

  fw_pb_put_string (out, FUNCTION_NAME, group->op_type);
  put_group_inputs (out, FUNCTION_INPUT, group);
  put_value_names (out, FUNCTION_OUTPUT, group->outputs);
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);
      guint at;
      /* Packed products: written once, where the first of them was. */
      if (group->packed != NULL && g_ptr_array_find (group->packed->roots, node, &at))
        {
          if (at == 0)
            write_packed (w, out, model, group);
          continue;
        }
      write_node (w, out, FUNCTION_NODE, node);
    }
  if (group->doc_string && group->doc_string[0])
    fw_pb_put_string (out, FUNCTION_DOC_STRING, group->doc_string);
  /* The model's own imports: ONNX Runtime refuses a function whose opset differs from the model's. */
  write_opset_imports (out, FUNCTION_OPSET_IMPORT, model, FALSE);
  fw_pb_put_string (out, FUNCTION_DOMAIN, FW_ONNX_FUSED_DOMAIN);
  fw_pb_end (out, mark);
}

/* An initializer only packed products read: their packed weight replaces it in the file. */
static gboolean
replaced_by_packed (const FwOnnxRewrite *rewrite, const FwValue *value)
{
  gboolean dropped = FALSE;

  if (rewrite == NULL || value->is_input || value->is_output || value->n_uses == 0)
    return FALSE;
  for (guint u = 0; u < value->n_uses; u++)
    {
      FwNode *node = value->uses[u].node;
      const FwOnnxFusedGroup *group = g_hash_table_lookup (rewrite->group_of, node);
      if (group == NULL || group->packed == NULL || !g_ptr_array_find (group->packed->roots, node, NULL) ||
          !g_ptr_array_find (group->packed->dropped, value, NULL))
        return FALSE;
      dropped = TRUE;
    }
  return dropped;
}

static void
write_graph (Writer *w, GByteArray *out, const FwGraph *graph)
{
  const FwOnnxRewrite *rewrite = w->rewrite;
  /* The main graph, and a body holding a set, are written in the rewrite's order. */
  GPtrArray *order = rewrite == NULL ? NULL
                   : graph->parent == NULL ? rewrite->order : g_hash_table_lookup (rewrite->body_orders, graph);

  /* File order, not topological order: a round trip must not reorder what it did not change. */
  if (order == NULL)
    for (guint i = 0; i < graph->nodes->len; i++)
      write_node (w, out, GRAPH_NODE, g_ptr_array_index (graph->nodes, i));
  else
    for (guint i = 0; i < order->len; i++)
      {
        FwNode *node = g_ptr_array_index (order, i);
        FwOnnxFusedGroup *group = g_hash_table_lookup (rewrite->group_of, node);

        if (group != NULL)
          write_fused_node (w, out, group);
        else
          write_node (w, out, GRAPH_NODE, node);
      }
  if (graph->name && graph->name[0])
    fw_pb_put_string (out, GRAPH_NAME, graph->name);
  for (guint i = 0; i < graph->initializers->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->initializers, i);
      if (!replaced_by_packed (rewrite, value))
        write_tensor (w, out, GRAPH_INITIALIZER, value->constant, value->name);
    }
  /* Packed weights of the main graph's sets, after the model's own. */
  for (guint i = 0; rewrite != NULL && graph->parent == NULL && i < rewrite->groups->len; i++)
    {
      const FwOnnxPacked *p = ((FwOnnxFusedGroup *) g_ptr_array_index (rewrite->groups, i))->packed;
      if (p == NULL)
        continue;
      write_tensor (w, out, GRAPH_INITIALIZER, p->weight, p->weight_name);
      if (p->bias != NULL)
        write_tensor (w, out, GRAPH_INITIALIZER, p->bias, p->bias_name);
    }
  if (graph->doc_string && graph->doc_string[0])
    fw_pb_put_string (out, GRAPH_DOC_STRING, graph->doc_string);
  for (guint i = 0; i < graph->inputs->len; i++)
    write_value_info (out, GRAPH_INPUT, g_ptr_array_index (graph->inputs, i));
  for (guint i = 0; i < graph->outputs->len; i++)
    write_value_info (out, GRAPH_OUTPUT, g_ptr_array_index (graph->outputs, i));
  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);
      gboolean wanted;

      if (value->is_input || value->is_output || value->is_initializer || value->placeholder)
        continue;
      /* A value inside a function is not a value of the main graph any more. */
      if (rewrite != NULL && g_hash_table_contains (rewrite->hidden, value))
        continue;
      if (value->has_value_info)
        wanted = TRUE;
      else
        wanted = (w->flags & FW_ONNX_WRITE_INFERRED_SHAPES) && value->producer != NULL &&
                 value->dtype != FW_DTYPE_UNDEFINED && value->rank >= 0;
      if (wanted)
        write_value_info (out, GRAPH_VALUE_INFO, value);
    }
  put_raw_fields (out, graph->extra_raw);
}

static GByteArray *
serialize (FwModel *model, Writer *w)
{
  GByteArray *out = g_byte_array_new ();
  gboolean fused = w->rewrite != NULL;
  gsize mark;

  w->ir_version = model->ir_version;
  if (fused)
    w->ir_version = MAX (w->ir_version, FW_ONNX_FUSED_MIN_IR_VERSION);
  fw_pb_put_int (out, MODEL_IR_VERSION, w->ir_version);
  write_opset_imports (out, MODEL_OPSET_IMPORT, model, fused);
  if (model->producer_name[0])
    fw_pb_put_string (out, MODEL_PRODUCER_NAME, model->producer_name);
  if (model->producer_version[0])
    fw_pb_put_string (out, MODEL_PRODUCER_VERSION, model->producer_version);
  if (model->domain[0])
    fw_pb_put_string (out, MODEL_DOMAIN, model->domain);
  if (model->model_version)
    fw_pb_put_int (out, MODEL_MODEL_VERSION, model->model_version);
  if (model->doc_string && model->doc_string[0])
    fw_pb_put_string (out, MODEL_DOC_STRING, model->doc_string);
  put_entries (out, MODEL_METADATA_PROPS, model->metadata_props);
  for (guint i = 0; i < model->raw_fields->len; i++)
    {
      FwRawField *raw = &g_array_index (model->raw_fields, FwRawField, i);
      gsize len;
      const guint8 *data = g_bytes_get_data (raw->bytes, &len);
      g_byte_array_append (out, data, len);
    }
  for (guint i = 0; fused && i < w->rewrite->groups->len; i++)
    write_function (w, out, model, g_ptr_array_index (w->rewrite->groups, i));
  /* The graph goes last, so a file cut short anywhere is missing part of it and never reads as valid. */
  mark = fw_pb_begin (out, MODEL_GRAPH);
  write_graph (w, out, model->graph);
  fw_pb_end (out, mark);
  return out;
}

/* One set alone as a graph: its nodes, what it reads from outside as inputs (constants as initializers),
 * what it gives the rest of the graph as outputs, the shapes inside it as value_info. */
static void
write_group_graph (Writer *w, GByteArray *out, const FwOnnxFusedGroup *group)
{
  g_autoptr(GHashTable) boundary = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < group->nodes->len; i++)
    write_node (w, out, GRAPH_NODE, g_ptr_array_index (group->nodes, i));
  fw_pb_put_string (out, GRAPH_NAME, group->op_type);
  for (guint i = 0; i < group->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (group->inputs, i);
      if (v->constant != NULL)
        write_tensor (w, out, GRAPH_INITIALIZER, v->constant, v->name);
    }
  if (group->doc_string && group->doc_string[0])
    fw_pb_put_string (out, GRAPH_DOC_STRING, group->doc_string);
  for (guint i = 0; i < group->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (group->inputs, i);
      g_hash_table_add (boundary, v);
      if (v->constant == NULL)
        write_value_info (out, GRAPH_INPUT, v);
    }
  for (guint i = 0; i < group->outputs->len; i++)
    {
      g_hash_table_add (boundary, g_ptr_array_index (group->outputs, i));
      write_value_info (out, GRAPH_OUTPUT, g_ptr_array_index (group->outputs, i));
    }
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          if (v != NULL && !g_hash_table_contains (boundary, v) && v->dtype != FW_DTYPE_UNDEFINED && v->rank >= 0)
            write_value_info (out, GRAPH_VALUE_INFO, v);
        }
    }
}

GBytes *
fw_onnx_serialize_group (FwModel *model, const FwOnnxFusedGroup *group, GError **error)
{
  Writer w = { FW_ONNX_WRITE_DEFAULT, NULL, NULL, NULL, 0 };
  GByteArray *out = g_byte_array_new ();
  gsize mark;

  w.ir_version = model->ir_version;
  fw_pb_put_int (out, MODEL_IR_VERSION, w.ir_version);
  write_opset_imports (out, MODEL_OPSET_IMPORT, model, FALSE);
  fw_pb_put_string (out, MODEL_PRODUCER_NAME, "fusion-workbench");
  fw_pb_put_string (out, MODEL_PRODUCER_VERSION, PACKAGE_VERSION);
  mark = fw_pb_begin (out, MODEL_GRAPH);
  write_group_graph (&w, out, group);
  fw_pb_end (out, mark);
  if (out->len >= MAX_PROTO_BYTES)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT, _("the group “%s” would be %u bytes, past protobuf's 2 GiB limit"),
                   group->op_type, out->len);
      g_byte_array_unref (out);
      return NULL;
    }
  return g_byte_array_free_to_bytes (out);
}

/* Without groups the export is the model as it was: same node order, IR version and imports. */
static const FwOnnxRewrite *
fused_or_null (const FwOnnxRewrite *rewrite)
{
  return rewrite != NULL && rewrite->groups->len > 0 ? rewrite : NULL;
}

GBytes *
fw_onnx_serialize (FwModel *model, FwOnnxWriteFlags flags, GError **error)
{
  return fw_onnx_serialize_rewritten (model, NULL, flags, error);
}

GBytes *
fw_onnx_serialize_rewritten (FwModel *model, const FwOnnxRewrite *rewrite, FwOnnxWriteFlags flags,
                             GError **error)
{
  Writer w = { flags & ~FW_ONNX_WRITE_EXTERNAL_DATA, NULL, NULL, fused_or_null (rewrite), 0 };
  GByteArray *out = serialize (model, &w);

  if (out->len >= MAX_PROTO_BYTES)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT,
                   _("the model would be %u bytes, past protobuf's 2 GiB limit; write it with external data"),
                   out->len);
      g_byte_array_unref (out);
      return NULL;
    }
  return g_byte_array_free_to_bytes (out);
}

static gboolean
refuse_inputs (FwModel *model, const char *path, GError **error)
{
  if (fw_model_is_source_file (model, path))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO,
                   _("%s: refusing to overwrite the input model or its external data; choose another file name"),
                   path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_atomically (const char *path, const guint8 *data, gsize len, GError **error)
{
  return fw_file_write (path, data, (gssize) len, error);
}

/* The data file's name carries a hash of its bytes: "model.onnx.<16 hex>.data". It is written before the
 * model that names it and old ones are removed after, so a crash at any point leaves a model file and the
 * data file it names from the same write: never the previous model reading new weights. */
#define EXTERNAL_HASH_PLACEHOLDER "xxxxxxxxxxxxxxxx"

static void
replace_all (GByteArray *out, const char *from, const char *to)
{
  gsize n = strlen (from);

  g_assert (strlen (to) == n);
  for (guint8 *p = out->data; p + n <= out->data + out->len;)
    {
      guint8 *hit = memmem (p, out->data + out->len - p, from, n);
      if (hit == NULL)
        break;
      memcpy (hit, to, n);
      p = hit + n;
    }
}

static gboolean
is_data_file_of (const char *name, const char *base)
{
  gsize n = strlen (base);

  if (strncmp (name, base, n) != 0 || name[n] != '.' || strlen (name + n + 1) != 16 + 5 ||
      strcmp (name + n + 1 + 16, ".data") != 0)
    return FALSE;
  for (guint i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (name[n + 1 + i]))
      return FALSE;
  return TRUE;
}

static void
remove_old_data_files (FwModel *model, const char *dir, const char *base, const char *keep)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *old = NULL;
      GError *ignored = NULL;

      if (strcmp (name, keep) == 0 || !is_data_file_of (name, base))
        continue;
      old = g_build_filename (dir, name, NULL);
      /* Never the input model's own data, whatever it is called. */
      if (!refuse_inputs (model, old, &ignored))
        {
          g_clear_error (&ignored);
          continue;
        }
      g_unlink (old);
    }
}

gboolean
fw_onnx_write (FwModel *model, const char *path, FwOnnxWriteFlags flags, GError **error)
{
  return fw_onnx_write_rewritten (model, NULL, path, flags, error);
}

gboolean
fw_onnx_write_rewritten (FwModel *model, const FwOnnxRewrite *rewrite, const char *path, FwOnnxWriteFlags flags,
                         GError **error)
{
  Writer w = { flags, NULL, NULL, fused_or_null (rewrite), 0 };
  g_autoptr(GByteArray) out = NULL;
  g_autoptr(GByteArray) external = NULL;
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *placeholder = NULL;
  g_autofree char *external_name = NULL;
  g_autofree char *external_path = NULL;

  if (!refuse_inputs (model, path, error))
    return FALSE;
  if (flags & FW_ONNX_WRITE_EXTERNAL_DATA)
    {
      placeholder = g_strconcat (base, "." EXTERNAL_HASH_PLACEHOLDER ".data", NULL);
      external = g_byte_array_new ();
      w.external = external;
      w.external_name = placeholder;
    }
  out = serialize (model, &w);
  if (out->len >= MAX_PROTO_BYTES)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_LIMIT,
                   _("%s: the model would be %u bytes, past protobuf's 2 GiB limit; write it with external data"),
                   path, out->len);
      return FALSE;
    }
  if (external == NULL || external->len == 0)
    return write_atomically (path, out->data, out->len, error);

  {
    g_autofree char *hash = g_compute_checksum_for_data (G_CHECKSUM_SHA256, external->data, external->len);
    external_name = g_strdup_printf ("%s.%.16s.data", base, hash);
  }
  /* Same length as the placeholder: patching the name changes no protobuf length. */
  replace_all (out, placeholder, external_name);
  external_path = g_build_filename (dir, external_name, NULL);
  if (!refuse_inputs (model, external_path, error))
    return FALSE;
  /* Data first: a model that names a data file must never exist without it. */
  if (!write_atomically (external_path, external->data, external->len, error) ||
      !write_atomically (path, out->data, out->len, error))
    return FALSE;
  remove_old_data_files (model, dir, base, external_name);
  return TRUE;
}
