#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "fw-model-private.h"

G_DEFINE_FINAL_TYPE (FwModel, fw_model, G_TYPE_OBJECT)

static void
raw_field_clear (gpointer data)
{
  FwRawField *f = data;
  g_clear_pointer (&f->bytes, g_bytes_unref);
}

static void
fw_model_finalize (GObject *object)
{
  FwModel *self = FW_MODEL (object);

  /* The graph's tensors hold GBytes slices of the mappings; drop them first. */
  g_clear_pointer (&self->graph, fw_graph_free);
  g_clear_pointer (&self->raw_fields, g_array_unref);
  g_clear_pointer (&self->mapped, g_mapped_file_unref);
  g_clear_pointer (&self->external_maps, g_hash_table_unref);
  g_clear_pointer (&self->opsets, g_array_unref);
  g_clear_pointer (&self->metadata_props, g_ptr_array_unref);
  g_free (self->path);
  G_OBJECT_CLASS (fw_model_parent_class)->finalize (object);
}

static void
fw_model_class_init (FwModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fw_model_finalize;
}

static void
fw_model_init (FwModel *self)
{
  self->graph = fw_graph_new (NULL);
  self->opsets = g_array_new (FALSE, TRUE, sizeof (FwOpsetImport));
  self->metadata_props = g_ptr_array_new_with_free_func (g_free);
  self->raw_fields = g_array_new (FALSE, TRUE, sizeof (FwRawField));
  g_array_set_clear_func (self->raw_fields, raw_field_clear);
  self->external_maps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                               (GDestroyNotify) g_mapped_file_unref);
  self->ir_version = 8;
  self->producer_name = "";
  self->producer_version = "";
  self->domain = "";
}

FwModel *
fw_model_new (void)
{
  return g_object_new (FW_TYPE_MODEL, NULL);
}

void
fw_model_take_graph (FwModel *self, FwGraph *graph)
{
  g_clear_pointer (&self->graph, fw_graph_free);
  self->graph = graph;
}

void
fw_model_set_path (FwModel *self, const char *path)
{
  g_free (self->path);
  self->path = g_strdup (path);
}

const char *
fw_model_get_path (FwModel *self)
{
  g_return_val_if_fail (FW_IS_MODEL (self), NULL);
  return self->path;
}

FwGraph *
fw_model_get_graph (FwModel *self)
{
  g_return_val_if_fail (FW_IS_MODEL (self), NULL);
  return self->graph;
}

gint64
fw_model_get_ir_version (FwModel *self)
{
  return self->ir_version;
}

void
fw_model_set_ir_version (FwModel *self, gint64 ir_version)
{
  self->ir_version = ir_version;
}

guint
fw_model_get_n_opsets (FwModel *self)
{
  return self->opsets->len;
}

const FwOpsetImport *
fw_model_get_opset (FwModel *self, guint index)
{
  g_return_val_if_fail (index < self->opsets->len, NULL);
  return &g_array_index (self->opsets, FwOpsetImport, index);
}

static gboolean
same_domain (const char *a, const char *b)
{
  if (strcmp (a, "ai.onnx") == 0)
    a = "";
  if (strcmp (b, "ai.onnx") == 0)
    b = "";
  return strcmp (a, b) == 0;
}

gint64
fw_model_get_opset_version (FwModel *self, const char *domain)
{
  for (guint i = 0; i < self->opsets->len; i++)
    {
      FwOpsetImport *imp = &g_array_index (self->opsets, FwOpsetImport, i);
      if (same_domain (imp->domain, domain ? domain : ""))
        return imp->version;
    }
  return 0;
}

void
fw_model_set_opset_version (FwModel *self, const char *domain, gint64 version)
{
  FwOpsetImport imp;

  for (guint i = 0; i < self->opsets->len; i++)
    {
      FwOpsetImport *existing = &g_array_index (self->opsets, FwOpsetImport, i);
      if (same_domain (existing->domain, domain ? domain : ""))
        {
          existing->version = version;
          return;
        }
    }
  imp.domain = fw_graph_intern (self->graph, domain ? domain : "");
  imp.version = version;
  g_array_append_val (self->opsets, imp);
}

const char *
fw_model_get_producer_name (FwModel *self)
{
  return self->producer_name;
}

const char *
fw_model_get_producer_version (FwModel *self)
{
  return self->producer_version;
}

static guint64
graph_initializer_bytes (const FwGraph *graph)
{
  guint64 total = 0;

  for (guint i = 0; i < graph->initializers->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->initializers, i);
      if (value->constant)
        total += fw_tensor_get_byte_size (value->constant);
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          if (node->attrs[a].g)
            total += graph_initializer_bytes (node->attrs[a].g);
          for (guint k = 0; node->attrs[a].graphs && k < node->attrs[a].n; k++)
            total += graph_initializer_bytes (node->attrs[a].graphs[k]);
        }
    }
  return total;
}

guint64
fw_model_get_initializer_bytes (FwModel *self)
{
  return graph_initializer_bytes (self->graph);
}

static gboolean
same_file (const char *a, const char *b)
{
  struct stat sa, sb;

  if (a == NULL || b == NULL || stat (a, &sa) != 0 || stat (b, &sb) != 0)
    return FALSE;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

gboolean
fw_model_is_source_file (FwModel *self, const char *path)
{
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (FW_IS_MODEL (self), FALSE);
  if (same_file (path, self->path))
    return TRUE;
  g_hash_table_iter_init (&iter, self->external_maps);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (same_file (path, key))
      return TRUE;
  return FALSE;
}

guint64
fw_model_get_file_size (FwModel *self)
{
  return self->file_size;
}
