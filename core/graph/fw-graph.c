#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-graph-private.h"

static void
attr_clear (FwAttr *attr)
{
  g_clear_pointer (&attr->t, fw_tensor_unref);
  g_clear_pointer (&attr->g, fw_graph_free);
  g_free (attr->floats);
  g_free (attr->ints);
  for (guint i = 0; attr->strings && i < attr->n; i++)
    g_bytes_unref (attr->strings[i]);
  g_free (attr->strings);
  for (guint i = 0; attr->tensors && i < attr->n; i++)
    fw_tensor_unref (attr->tensors[i]);
  g_free (attr->tensors);
  for (guint i = 0; attr->graphs && i < attr->n; i++)
    fw_graph_free (attr->graphs[i]);
  g_free (attr->graphs);
  g_clear_pointer (&attr->raw, g_bytes_unref);
}

static void
node_free (gpointer data)
{
  FwNode *node = data;

  for (guint i = 0; i < node->n_attrs; i++)
    attr_clear (&node->attrs[i]);
  g_free (node->attrs);
  g_free (node->inputs);
  g_free (node->outputs);
  g_clear_pointer (&node->implicit_inputs, g_ptr_array_unref);
  g_clear_pointer (&node->extra_raw, g_ptr_array_unref);
  g_free (node);
}

static void
value_free (gpointer data)
{
  FwValue *value = data;

  g_free (value->dims);
  g_free (value->uses);
  g_free (value->shape_value);
  g_clear_pointer (&value->constant, fw_tensor_unref);
  g_clear_pointer (&value->type_raw, g_bytes_unref);
  g_free (value);
}

FwGraph *
fw_graph_new (FwGraph *parent)
{
  FwGraph *graph = g_new0 (FwGraph, 1);

  graph->parent = parent;
  graph->strings = g_string_chunk_new (4096);
  graph->nodes = g_ptr_array_new_with_free_func (node_free);
  graph->values = g_ptr_array_new_with_free_func (value_free);
  graph->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  graph->inputs = g_ptr_array_new ();
  graph->outputs = g_ptr_array_new ();
  graph->initializers = g_ptr_array_new ();
  graph->name = "";
  graph->doc_string = NULL;
  return graph;
}

void
fw_graph_free (FwGraph *graph)
{
  if (graph == NULL)
    return;
  g_ptr_array_unref (graph->nodes);
  g_ptr_array_unref (graph->values);
  g_hash_table_unref (graph->by_name);
  g_ptr_array_unref (graph->inputs);
  g_ptr_array_unref (graph->outputs);
  g_ptr_array_unref (graph->initializers);
  g_clear_pointer (&graph->extra_raw, g_ptr_array_unref);
  g_free (graph->order);
  g_string_chunk_free (graph->strings);
  g_free (graph);
}

const char *
fw_graph_intern (FwGraph *graph, const char *string)
{
  if (string == NULL)
    return NULL;
  if (string[0] == '\0')
    return "";
  return g_string_chunk_insert_const (graph->strings, string);
}

guint
fw_graph_get_n_nodes (const FwGraph *graph)
{
  return graph->nodes->len;
}

FwNode *
fw_graph_get_node (const FwGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->nodes->len, NULL);
  return g_ptr_array_index (graph->nodes, index);
}

FwNode **
fw_graph_get_order (const FwGraph *graph, guint *n_nodes)
{
  if (n_nodes)
    *n_nodes = graph->order ? graph->nodes->len : 0;
  return graph->order;
}

guint
fw_graph_get_n_values (const FwGraph *graph)
{
  return graph->values->len;
}

FwValue *
fw_graph_get_value (const FwGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->values->len, NULL);
  return g_ptr_array_index (graph->values, index);
}

FwValue *
fw_graph_lookup_value (const FwGraph *graph, const char *name)
{
  return g_hash_table_lookup (graph->by_name, name);
}

guint
fw_graph_get_n_inputs (const FwGraph *graph)
{
  return graph->inputs->len;
}

FwValue *
fw_graph_get_input (const FwGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->inputs->len, NULL);
  return g_ptr_array_index (graph->inputs, index);
}

guint
fw_graph_get_n_outputs (const FwGraph *graph)
{
  return graph->outputs->len;
}

FwValue *
fw_graph_get_output (const FwGraph *graph, guint index)
{
  g_return_val_if_fail (index < graph->outputs->len, NULL);
  return g_ptr_array_index (graph->outputs, index);
}

guint
fw_graph_count_nodes_deep (const FwGraph *graph)
{
  guint n = graph->nodes->len;

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          FwAttr *attr = &node->attrs[a];
          if (attr->g)
            n += fw_graph_count_nodes_deep (attr->g);
          for (guint k = 0; attr->graphs && k < attr->n; k++)
            n += fw_graph_count_nodes_deep (attr->graphs[k]);
        }
    }
  return n;
}

static void
collect_symbols (const FwGraph *graph, GHashTable *set)
{
  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);
      for (gint d = 0; d < value->rank; d++)
        if (value->dims[d].value < 0 && value->dims[d].symbol != NULL)
          g_hash_table_add (set, (gpointer) value->dims[d].symbol);
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          if (node->attrs[a].g)
            collect_symbols (node->attrs[a].g, set);
          for (guint k = 0; node->attrs[a].graphs && k < node->attrs[a].n; k++)
            collect_symbols (node->attrs[a].graphs[k], set);
        }
    }
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GStrv
fw_graph_collect_symbols (const FwGraph *graph)
{
  g_autoptr(GHashTable) set = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) out = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  collect_symbols (graph, set);
  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (out, g_strdup (key));
  g_ptr_array_sort (out, compare_strings);
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

FwValue *
fw_graph_ensure_value (FwGraph *graph, const char *name)
{
  FwValue *value = g_hash_table_lookup (graph->by_name, name);

  if (value != NULL)
    return value;
  value = g_new0 (FwValue, 1);
  value->graph = graph;
  value->index = graph->values->len;
  value->name = fw_graph_intern (graph, name);
  value->rank = FW_RANK_UNKNOWN;
  value->placeholder = TRUE;
  g_ptr_array_add (graph->values, value);
  g_hash_table_insert (graph->by_name, (gpointer) value->name, value);
  return value;
}

static gboolean
value_is_defined (const FwValue *value)
{
  return value->producer != NULL || value->is_input || value->is_initializer;
}

static const char *
definition_kind (const FwValue *value)
{
  if (value->producer)
    return _("node output");
  if (value->is_initializer)
    return _("initializer");
  return _("graph input");
}

FwValue *
fw_graph_add_input (FwGraph *graph, const char *name, FwDType dtype, gint rank, const FwDim *dims,
                    GError **error)
{
  FwValue *value = fw_graph_ensure_value (graph, name);

  /* ONNX before IR 4 lists initializers among the inputs too; that is a default, not a clash. */
  if (value->is_input)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("graph input “%s” is declared twice"), name);
      return NULL;
    }
  if (value->producer != NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("graph input “%s” is also the output of node “%s”"), name, value->producer->name);
      return NULL;
    }
  value->is_input = TRUE;
  value->placeholder = FALSE;
  value->has_value_info = TRUE;
  if (!value->is_initializer)
    fw_value_set_type (value, dtype, rank, dims);
  g_ptr_array_add (graph->inputs, value);
  return value;
}

FwValue *
fw_graph_add_initializer (FwGraph *graph, const char *name, FwTensor *tensor, GError **error)
{
  FwValue *value = fw_graph_ensure_value (graph, name);
  g_autofree FwDim *dims = NULL;

  if (value->is_initializer || value->producer != NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("initializer “%s” has the same name as another %s"), name, definition_kind (value));
      return NULL;
    }
  value->is_initializer = TRUE;
  value->placeholder = FALSE;
  value->constant = fw_tensor_ref (tensor);
  dims = g_new0 (FwDim, MAX (tensor->rank, 1));
  for (guint i = 0; i < tensor->rank; i++)
    dims[i] = FW_DIM_STATIC (tensor->dims[i]);
  fw_value_set_type (value, tensor->dtype, tensor->rank, dims);
  g_ptr_array_add (graph->initializers, value);
  return value;
}

gboolean
fw_graph_add_output (FwGraph *graph, const char *name, GError **error)
{
  FwValue *value = fw_graph_ensure_value (graph, name);

  value->is_output = TRUE;
  g_ptr_array_add (graph->outputs, value);
  return TRUE;
}

FwNode *
fw_graph_add_node (FwGraph *graph, const char *op_type, const char *domain, const char *name,
                   guint n_inputs, const char * const *inputs, guint n_outputs,
                   const char * const *outputs, GError **error)
{
  FwNode *node = g_new0 (FwNode, 1);

  node->graph = graph;
  node->index = graph->nodes->len;
  node->op_type = fw_graph_intern (graph, op_type ? op_type : "");
  node->domain = fw_graph_intern (graph, domain ? domain : "");
  node->name = fw_graph_intern (graph, name ? name : "");
  node->n_inputs = n_inputs;
  node->inputs = g_new0 (FwValue *, MAX (n_inputs, 1));
  node->n_outputs = n_outputs;
  node->outputs = g_new0 (FwValue *, MAX (n_outputs, 1));
  g_ptr_array_add (graph->nodes, node);

  for (guint i = 0; i < n_inputs; i++)
    if (inputs[i] != NULL && inputs[i][0] != '\0')
      node->inputs[i] = fw_graph_ensure_value (graph, inputs[i]);

  for (guint i = 0; i < n_outputs; i++)
    {
      FwValue *value;

      if (outputs[i] == NULL || outputs[i][0] == '\0')
        continue;
      value = fw_graph_ensure_value (graph, outputs[i]);
      if (value_is_defined (value))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("node “%s” (%s) writes “%s”, which is already a %s%s%s"),
                       node->name, node->op_type, outputs[i], definition_kind (value),
                       value->producer ? _(" of ") : "", value->producer ? value->producer->name : "");
          return NULL;
        }
      for (guint j = 0; j < i; j++)
        if (node->outputs[j] == value)
          {
            g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                         _("node “%s” (%s) lists output “%s” twice"), node->name, node->op_type, outputs[i]);
            return NULL;
          }
      value->producer = node;
      value->producer_slot = i;
      value->placeholder = FALSE;
      node->outputs[i] = value;
    }
  return node;
}

/* ---- attributes ---- */

FwAttr *
fw_node_add_attr (FwNode *node, const char *name, FwAttrType type)
{
  FwAttr *attr;

  for (guint i = 0; i < node->n_attrs; i++)
    if (strcmp (node->attrs[i].name, name) == 0)
      {
        attr = &node->attrs[i];
        attr_clear (attr);
        memset (attr, 0, sizeof *attr);
        attr->name = fw_graph_intern (node->graph, name);
        attr->type = type;
        return attr;
      }
  if (node->n_attrs == node->attrs_alloc)
    {
      node->attrs_alloc = MAX (4, node->attrs_alloc * 2);
      node->attrs = g_renew (FwAttr, node->attrs, node->attrs_alloc);
    }
  attr = &node->attrs[node->n_attrs++];
  memset (attr, 0, sizeof *attr);
  attr->name = fw_graph_intern (node->graph, name);
  attr->type = type;
  return attr;
}

FwAttr *
fw_node_set_attr_int (FwNode *node, const char *name, gint64 value)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_INT);
  attr->i = value;
  return attr;
}

FwAttr *
fw_node_set_attr_float (FwNode *node, const char *name, float value)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_FLOAT);
  attr->f = value;
  return attr;
}

FwAttr *
fw_node_set_attr_string (FwNode *node, const char *name, const char *value)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_STRING);
  attr->s = fw_graph_intern (node->graph, value);
  attr->s_len = strlen (value);
  return attr;
}

FwAttr *
fw_node_set_attr_ints (FwNode *node, const char *name, guint n, const gint64 *values)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_INTS);
  attr->n = n;
  attr->ints = g_memdup2 (values, MAX (n, 1) * sizeof (gint64));
  return attr;
}

FwAttr *
fw_node_set_attr_floats (FwNode *node, const char *name, guint n, const float *values)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_FLOATS);
  attr->n = n;
  attr->floats = g_memdup2 (values, MAX (n, 1) * sizeof (float));
  return attr;
}

FwAttr *
fw_node_set_attr_tensor (FwNode *node, const char *name, FwTensor *tensor)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_TENSOR);
  attr->t = fw_tensor_ref (tensor);
  return attr;
}

FwAttr *
fw_node_set_attr_graph (FwNode *node, const char *name, FwGraph *subgraph)
{
  FwAttr *attr = fw_node_add_attr (node, name, FW_ATTR_GRAPH);
  attr->g = subgraph;
  subgraph->parent = node->graph;
  subgraph->parent_node = node;
  return attr;
}

gboolean
fw_node_is_onnx_op (const FwNode *node, const char *op)
{
  return node != NULL && node->domain[0] == '\0' && strcmp (node->op_type, op) == 0;
}

const FwAttr *
fw_node_get_attr (const FwNode *node, const char *name)
{
  for (guint i = 0; i < node->n_attrs; i++)
    if (strcmp (node->attrs[i].name, name) == 0)
      return &node->attrs[i];
  return NULL;
}

gint64
fw_node_get_attr_int (const FwNode *node, const char *name, gint64 default_value)
{
  const FwAttr *attr = fw_node_get_attr (node, name);
  return attr && attr->type == FW_ATTR_INT ? attr->i : default_value;
}

float
fw_node_get_attr_float (const FwNode *node, const char *name, float default_value)
{
  const FwAttr *attr = fw_node_get_attr (node, name);
  return attr && attr->type == FW_ATTR_FLOAT ? attr->f : default_value;
}

const char *
fw_node_get_attr_string (const FwNode *node, const char *name)
{
  const FwAttr *attr = fw_node_get_attr (node, name);
  return attr && attr->type == FW_ATTR_STRING ? attr->s : NULL;
}

const gint64 *
fw_node_get_attr_ints (const FwNode *node, const char *name, guint *n)
{
  const FwAttr *attr = fw_node_get_attr (node, name);

  if (attr == NULL || attr->type != FW_ATTR_INTS)
    {
      *n = 0;
      return NULL;
    }
  *n = attr->n;
  static const gint64 none[1] = { 0 };
  return attr->ints ? attr->ints : none;
}

const float *
fw_node_get_attr_floats (const FwNode *node, const char *name, guint *n)
{
  const FwAttr *attr = fw_node_get_attr (node, name);

  if (attr == NULL || attr->type != FW_ATTR_FLOATS)
    {
      *n = 0;
      return NULL;
    }
  *n = attr->n;
  static const float none[1] = { 0 };
  return attr->floats ? attr->floats : none;
}

guint
fw_node_get_n_inputs (const FwNode *node)
{
  return node->n_inputs;
}

FwValue *
fw_node_get_input (const FwNode *node, guint index)
{
  g_return_val_if_fail (index < node->n_inputs, NULL);
  return node->inputs[index];
}

guint
fw_node_get_n_outputs (const FwNode *node)
{
  return node->n_outputs;
}

FwValue *
fw_node_get_output (const FwNode *node, guint index)
{
  g_return_val_if_fail (index < node->n_outputs, NULL);
  return node->outputs[index];
}

guint
fw_node_get_n_attrs (const FwNode *node)
{
  return node->n_attrs;
}

const FwAttr *
fw_node_get_attr_nth (const FwNode *node, guint index)
{
  g_return_val_if_fail (index < node->n_attrs, NULL);
  return &node->attrs[index];
}

const char *
fw_attr_get_name (const FwAttr *attr)
{
  return attr->name;
}

FwAttrType
fw_attr_get_attr_type (const FwAttr *attr)
{
  return attr->type;
}

float
fw_attr_get_float (const FwAttr *attr)
{
  return attr->f;
}

gint64
fw_attr_get_int (const FwAttr *attr)
{
  return attr->i;
}

const char *
fw_attr_get_string (const FwAttr *attr, gsize *len)
{
  *len = attr->s ? attr->s_len : 0;
  return attr->s;
}

const gint64 *
fw_attr_get_ints (const FwAttr *attr, guint *n)
{
  *n = attr->n;
  return attr->ints;
}

const float *
fw_attr_get_floats (const FwAttr *attr, guint *n)
{
  *n = attr->n;
  return attr->floats;
}

guint
fw_attr_get_n_values (const FwAttr *attr)
{
  return attr->n;
}

const char *
fw_node_get_name (const FwNode *node)
{
  return node->name;
}

const char *
fw_node_get_op_type (const FwNode *node)
{
  return node->op_type;
}

const char *
fw_node_get_domain (const FwNode *node)
{
  return node->domain;
}

const char *
fw_node_get_scope (const FwNode *node)
{
  return node->scope ? node->scope : "";
}

char *
fw_scope_from_node_name (const char *name)
{
  const char *start = name;
  const char *last;

  while (*start == '/')
    start++;
  last = strrchr (start, '/');
  if (last == NULL)
    return g_strdup ("");
  return g_strndup (start, last - start);
}

/* ---- values ---- */

const char *
fw_value_get_name (const FwValue *value)
{
  return value->name;
}

FwDType
fw_value_get_dtype (const FwValue *value)
{
  return value->dtype;
}

gint
fw_value_get_rank (const FwValue *value)
{
  return value->rank;
}

const FwDim *
fw_value_get_dims (const FwValue *value)
{
  return value->dims;
}

gboolean
fw_value_is_initializer (const FwValue *value)
{
  return value->is_initializer;
}

const FwTensor *
fw_value_get_constant (const FwValue *value)
{
  return value->constant;
}

void
fw_value_set_type (FwValue *value, FwDType dtype, gint rank, const FwDim *dims)
{
  value->dtype = dtype;
  if (rank < 0)
    {
      value->rank = FW_RANK_UNKNOWN;
      g_clear_pointer (&value->dims, g_free);
      return;
    }
  if (dims == value->dims && rank == value->rank)
    return;
  {
    FwDim *copy = g_new (FwDim, MAX (rank, 1));
    for (gint i = 0; i < rank; i++)
      {
        copy[i] = dims ? dims[i] : FW_DIM_UNKNOWN;
        if (copy[i].value >= 0)
          copy[i].symbol = NULL;
        else if (copy[i].symbol)
          copy[i].symbol = fw_graph_intern (value->graph, copy[i].symbol);
      }
    g_free (value->dims);
    value->dims = copy;
    value->rank = rank;
  }
}

void
fw_value_set_shape_value (FwValue *value, gint len, const FwDim *elems)
{
  g_clear_pointer (&value->shape_value, g_free);
  value->shape_value_len = 0;
  if (len < 0 || elems == NULL)
    return;
  value->shape_value = g_new (FwDim, MAX (len, 1));
  for (gint i = 0; i < len; i++)
    {
      value->shape_value[i] = elems[i];
      if (elems[i].value < 0 && elems[i].symbol)
        value->shape_value[i].symbol = fw_graph_intern (value->graph, elems[i].symbol);
    }
  value->shape_value_len = len;
}

gboolean
fw_dims_equal (const FwDim *a, const FwDim *b)
{
  if (a->value >= 0 || b->value >= 0)
    return a->value == b->value;
  if (a->symbol && b->symbol)
    return strcmp (a->symbol, b->symbol) == 0;
  return FALSE;
}

gboolean
fw_value_is_static (const FwValue *value)
{
  if (value->rank < 0)
    return FALSE;
  for (gint i = 0; i < value->rank; i++)
    if (value->dims[i].value < 0)
      return FALSE;
  return TRUE;
}

gint64
fw_value_get_n_elements (const FwValue *value)
{
  gint64 n = 1;

  if (!fw_value_is_static (value))
    return -1;
  for (gint i = 0; i < value->rank; i++)
    {
      if (value->dims[i].value != 0 && n > G_MAXINT64 / value->dims[i].value)
        return -1;
      n *= value->dims[i].value;
    }
  return n;
}

char *
fw_value_format_shape (const FwValue *value)
{
  GString *s;

  if (value->rank < 0)
    return g_strdup ("?");
  s = g_string_new ("[");
  for (gint i = 0; i < value->rank; i++)
    {
      if (i)
        g_string_append_c (s, ',');
      if (value->dims[i].value >= 0)
        g_string_append_printf (s, "%" PRId64, value->dims[i].value);
      else if (value->dims[i].symbol)
        g_string_append (s, value->dims[i].symbol);
      else
        g_string_append_c (s, '?');
    }
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* ---- linking ---- */

static void
value_add_use (FwValue *value, FwNode *node, guint slot)
{
  if (value->n_uses == value->uses_alloc)
    {
      value->uses_alloc = MAX (2, value->uses_alloc * 2);
      value->uses = g_renew (FwUse, value->uses, value->uses_alloc);
    }
  value->uses[value->n_uses].node = node;
  value->uses[value->n_uses].slot = slot;
  value->n_uses++;
}

/* The node of `ancestor` whose subgraphs (transitively) contain `graph`. */
static FwNode *
owning_node_in (FwGraph *graph, FwGraph *ancestor)
{
  while (graph->parent != NULL && graph->parent != ancestor)
    graph = graph->parent;
  return graph->parent == ancestor ? graph->parent_node : NULL;
}

static FwValue *
resolve_outer (FwGraph *graph, const char *name)
{
  for (FwGraph *g = graph->parent; g != NULL; g = g->parent)
    {
      FwValue *value = g_hash_table_lookup (g->by_name, name);
      if (value != NULL && value_is_defined (value))
        return value;
    }
  return NULL;
}

static gboolean
resolve_inputs (FwGraph *graph, GError **error)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);

      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *value = node->inputs[k];
          FwValue *outer;
          FwNode *owner;

          if (value == NULL || value_is_defined (value))
            continue;
          outer = resolve_outer (graph, value->name);
          if (outer == NULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                           _("node “%s” (%s) reads “%s”, which no node, graph input or initializer defines"),
                           node->name, node->op_type, value->name);
              return FALSE;
            }
          node->inputs[k] = outer;
          owner = owning_node_in (graph, outer->graph);
          if (owner != NULL)
            {
              if (owner->implicit_inputs == NULL)
                owner->implicit_inputs = g_ptr_array_new ();
              if (!g_ptr_array_find (owner->implicit_inputs, outer, NULL))
                g_ptr_array_add (owner->implicit_inputs, outer);
            }
        }
    }
  for (guint i = 0; i < graph->outputs->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->outputs, i);

      if (!value_is_defined (value))
        {
          /* A subgraph may pass an outer value straight through as its output. */
          if (graph->parent && resolve_outer (graph, value->name))
            continue;
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("graph output “%s” is not defined by any node, graph input or initializer"),
                       value->name);
          return FALSE;
        }
    }
  return TRUE;
}

/* Depth-first, producers before consumers, visiting in file order, so a file already in topological order
 * keeps its order exactly. Iterative: a 100,000-node chain must not overflow the stack. */
static gboolean
topo_sort (FwGraph *graph, GError **error)
{
  guint n = graph->nodes->len;
  g_autofree guint8 *state = g_new0 (guint8, n);  /* 0 new, 1 on stack, 2 done */
  g_autofree guint *stack_node = g_new (guint, n + 1);
  g_autofree guint *stack_next = g_new (guint, n + 1);
  guint out = 0;

  g_free (graph->order);
  graph->order = g_new (FwNode *, MAX (n, 1));

  for (guint root = 0; root < n; root++)
    {
      guint sp = 0;

      if (state[root] != 0)
        continue;
      stack_node[sp] = root;
      stack_next[sp] = 0;
      state[root] = 1;
      sp++;
      while (sp > 0)
        {
          FwNode *node = g_ptr_array_index (graph->nodes, stack_node[sp - 1]);
          guint n_deps = node->n_inputs + (node->implicit_inputs ? node->implicit_inputs->len : 0);
          gboolean pushed = FALSE;

          while (stack_next[sp - 1] < n_deps)
            {
              guint k = stack_next[sp - 1]++;
              FwValue *value = k < node->n_inputs ? node->inputs[k]
                                                  : g_ptr_array_index (node->implicit_inputs, k - node->n_inputs);
              FwNode *producer;

              if (value == NULL || value->producer == NULL || value->graph != graph)
                continue;
              producer = value->producer;
              if (state[producer->index] == 2)
                continue;
              if (state[producer->index] == 1)
                {
                  g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                               _("the graph has a cycle: node “%s” (%s) depends on its own output through “%s”"),
                               producer->name, producer->op_type, value->name);
                  return FALSE;
                }
              state[producer->index] = 1;
              stack_node[sp] = producer->index;
              stack_next[sp] = 0;
              sp++;
              pushed = TRUE;
              break;
            }
          if (pushed)
            continue;
          state[node->index] = 2;
          node->topo_index = out;
          graph->order[out++] = node;
          sp--;
        }
    }
  g_assert (out == n);
  return TRUE;
}

gboolean
fw_graph_link (FwGraph *graph, GError **error)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          FwAttr *attr = &node->attrs[a];
          if (attr->g && !fw_graph_link (attr->g, error))
            {
              g_prefix_error (error, _("in subgraph “%s” of node “%s”: "), attr->name, node->name);
              return FALSE;
            }
          for (guint k = 0; attr->graphs && k < attr->n; k++)
            if (!fw_graph_link (attr->graphs[k], error))
              {
                g_prefix_error (error, _("in subgraph “%s” of node “%s”: "), attr->name, node->name);
                return FALSE;
              }
        }
    }

  if (!resolve_inputs (graph, error))
    return FALSE;

  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);
      value->n_uses = 0;
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      g_autofree char *scope = fw_scope_from_node_name (node->name);

      node->scope = fw_graph_intern (graph, scope);
      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] != NULL)
          value_add_use (node->inputs[k], node, k);
      for (guint k = 0; node->implicit_inputs && k < node->implicit_inputs->len; k++)
        value_add_use (g_ptr_array_index (node->implicit_inputs, k), node, FW_USE_IMPLICIT);
    }

  if (!topo_sort (graph, error))
    return FALSE;
  graph->linked = TRUE;
  return TRUE;
}
