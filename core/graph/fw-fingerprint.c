/* fw-fingerprint.c: the model fingerprint (see fw-fingerprint.h). Every field is written with a tag and a
 * length, so no two different structures hash the same byte stream. */
#include "config.h"

#include <string.h>

#include "fw-fingerprint.h"
#include "fw-model-private.h"
#include "fw-tensor.h"

static void
put_int (GChecksum *sum, char tag, gint64 v)
{
  guchar buf[9];

  buf[0] = (guchar) tag;
  for (int i = 0; i < 8; i++)
    buf[1 + i] = (guchar) (((guint64) v >> (8 * i)) & 0xff);
  g_checksum_update (sum, buf, sizeof buf);
}

static void
put_bytes (GChecksum *sum, char tag, const void *data, gsize len)
{
  put_int (sum, tag, (gint64) len);
  if (len > 0)
    g_checksum_update (sum, data, len);
}

static void
put_str (GChecksum *sum, char tag, const char *s)
{
  put_bytes (sum, tag, s ? s : "", s ? strlen (s) : 0);
}

/* Type and dims of a tensor, never its bytes. */
static void
put_tensor_type (GChecksum *sum, const FwTensor *t)
{
  put_int (sum, 'T', t ? t->dtype : -1);
  if (t == NULL)
    return;
  put_int (sum, 'r', t->rank);
  for (guint i = 0; i < t->rank; i++)
    put_int (sum, 'd', t->dims[i]);
}

static void put_graph (GChecksum *sum, const FwGraph *graph);

static void
put_attr (GChecksum *sum, const FwAttr *a)
{
  put_str (sum, 'a', a->name);
  put_int (sum, 't', a->type);
  put_str (sum, 'R', a->ref_attr_name);
  switch (a->type)
    {
    case FW_ATTR_FLOAT:
      {
        float f = a->f;
        put_bytes (sum, 'f', &f, sizeof f);
      }
      break;
    case FW_ATTR_INT:
      put_int (sum, 'i', a->i);
      break;
    case FW_ATTR_STRING:
      put_bytes (sum, 's', a->s ? a->s : "", a->s ? a->s_len : 0);
      break;
    case FW_ATTR_TENSOR:
      put_tensor_type (sum, a->t);
      break;
    case FW_ATTR_GRAPH:
      if (a->g)
        put_graph (sum, a->g);
      break;
    default:
      put_int (sum, 'n', a->n);
      for (guint k = 0; k < a->n; k++)
        {
          if (a->floats)
            put_bytes (sum, 'f', &a->floats[k], sizeof (float));
          if (a->ints)
            put_int (sum, 'i', a->ints[k]);
          if (a->strings && a->strings[k])
            {
              gsize len = 0;
              const void *data = g_bytes_get_data (a->strings[k], &len);
              put_bytes (sum, 's', data, len);
            }
          if (a->tensors)
            put_tensor_type (sum, a->tensors[k]);
          if (a->graphs && a->graphs[k])
            put_graph (sum, a->graphs[k]);
        }
      if (a->raw)
        {
          gsize len = 0;
          const void *data = g_bytes_get_data (a->raw, &len);
          put_bytes (sum, 'w', data, len);
        }
      break;
    }
}

/* Declared type: dtype and rank. Dims are left out for everything but initializers: --bind rewrites
 * symbolic dims in place. */
static void
put_value (GChecksum *sum, char tag, const FwValue *v)
{
  put_str (sum, tag, v ? v->name : NULL);
  if (v == NULL)
    return;
  if (v->is_initializer && v->constant)
    put_tensor_type (sum, v->constant);
  else if (v->has_value_info || v->is_input || v->is_output)
    {
      put_int (sum, 'T', v->dtype);
      put_int (sum, 'r', v->rank);
    }
}

static void
put_graph (GChecksum *sum, const FwGraph *graph)
{
  put_str (sum, 'G', graph->name);
  put_int (sum, 'I', graph->inputs->len);
  for (guint i = 0; i < graph->inputs->len; i++)
    put_value (sum, 'i', g_ptr_array_index (graph->inputs, i));
  put_int (sum, 'O', graph->outputs->len);
  for (guint i = 0; i < graph->outputs->len; i++)
    put_value (sum, 'o', g_ptr_array_index (graph->outputs, i));
  put_int (sum, 'W', graph->initializers->len);
  for (guint i = 0; i < graph->initializers->len; i++)
    put_value (sum, 'w', g_ptr_array_index (graph->initializers, i));
  put_int (sum, 'N', graph->nodes->len);
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      const FwNode *node = g_ptr_array_index (graph->nodes, i);

      put_str (sum, 'n', node->name);
      put_str (sum, 'y', node->op_type);
      put_str (sum, 'D', node->domain);
      put_int (sum, '<', node->n_inputs);
      for (guint k = 0; k < node->n_inputs; k++)
        put_str (sum, 'x', node->inputs[k] ? node->inputs[k]->name : NULL);
      put_int (sum, '>', node->n_outputs);
      for (guint k = 0; k < node->n_outputs; k++)
        put_value (sum, 'z', node->outputs[k]);
      put_int (sum, 'A', node->n_attrs);
      for (guint a = 0; a < node->n_attrs; a++)
        put_attr (sum, &node->attrs[a]);
    }
  put_int (sum, 'E', 0);
}

char *
fw_model_fingerprint (FwModel *model)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);
  put_str (sum, 'V', "fusion-workbench/fingerprint/1");
  put_int (sum, 'v', model->ir_version);
  for (guint i = 0; model->opsets && i < model->opsets->len; i++)
    {
      const FwOpsetImport *imp = &g_array_index (model->opsets, FwOpsetImport, i);
      put_str (sum, 'P', imp->domain);
      put_int (sum, 'p', imp->version);
    }
  if (model->graph)
    put_graph (sum, model->graph);
  return g_strdup (g_checksum_get_string (sum));
}
