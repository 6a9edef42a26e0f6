#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-model-report.h"
#include "fw-report-private.h"
#include "graph/fw-fingerprint.h"
#include "graph/fw-model-private.h"
#include "ops/fw-op-registry.h"
#include "report/fw-exec-report.h"
#include "report/fw-plan-report.h"
#include "report/fw-superkernel-report.h"

#define N_LARGEST 10

typedef struct
{
  const FwValue *value;
  gint64 bytes;
} Sized;

static gint
compare_sized (gconstpointer a, gconstpointer b)
{
  const Sized *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return strcmp (x->value->name, y->value->name);
}

typedef struct
{
  const char *op;
  guint count;
} OpCount;

static gint
compare_op_count (gconstpointer a, gconstpointer b)
{
  const OpCount *x = a, *y = b;

  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->op, y->op);
}

static void
count_ops (const FwGraph *graph, GHashTable *histogram, GArray *sized)
{
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      g_autofree char *key = node->domain[0] && strcmp (node->domain, "ai.onnx") != 0
                               ? g_strdup_printf ("%s:%s", node->domain, node->op_type)
                               : g_strdup (node->op_type);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (histogram, key));

      g_hash_table_insert (histogram, g_steal_pointer (&key), GUINT_TO_POINTER (n + 1));
      for (guint a = 0; a < node->n_attrs; a++)
        {
          if (node->attrs[a].g)
            count_ops (node->attrs[a].g, histogram, sized);
          for (guint k = 0; node->attrs[a].graphs && k < node->attrs[a].n; k++)
            count_ops (node->attrs[a].graphs[k], histogram, sized);
        }
    }
  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);
      gint64 n = fw_value_get_n_elements (value);
      Sized s;

      if (value->placeholder || n < 0 || !fw_dtype_bytes_for (value->dtype, n, &s.bytes))
        continue;
      s.value = value;
      g_array_append_val (sized, s);
    }
}

static void
add_value (JsonBuilder *b, const FwValue *value)
{
  g_autofree char *shape = fw_value_format_shape (value);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, value->name);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, fw_dtype_name (value->dtype));
  json_builder_set_member_name (b, "shape");
  json_builder_add_string_value (b, shape);
  json_builder_set_member_name (b, "static");
  json_builder_add_boolean_value (b, fw_value_is_static (value));
  json_builder_end_object (b);
}

static void
add_histogram (JsonBuilder *b, GHashTable *table)
{
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (OpCount));
  GHashTableIter iter;
  gpointer key, val;

  if (table != NULL)
    {
      g_hash_table_iter_init (&iter, table);
      while (g_hash_table_iter_next (&iter, &key, &val))
        {
          OpCount c = { key, GPOINTER_TO_UINT (val) };
          g_array_append_val (counts, c);
        }
    }
  g_array_sort (counts, compare_op_count);
  json_builder_begin_array (b);
  for (guint i = 0; i < counts->len; i++)
    {
      OpCount *c = &g_array_index (counts, OpCount, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, c->op);
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, c->count);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char **) a, *(const char **) b);
}

/* Whether a node still runs at inference time: nodes whose every output was folded to a constant at load
 * (shape arithmetic) do not. */
static gboolean
node_runs (const FwNode *node)
{
  for (guint k = 0; k < node->n_outputs; k++)
    if (node->outputs[k] != NULL && node->outputs[k]->constant == NULL)
      return TRUE;
  return FALSE;
}

static void
add_cost (JsonBuilder *b, const FwGraph *graph)
{
  gdouble flops = 0, read = 0, written = 0;
  guint costed = 0, not_costed = 0, folded = 0;
  guint classes[FW_OP_CLASS_OPAQUE + 1] = { 0 };

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      FwOpCost cost;

      if (!node_runs (node))
        {
          folded++;
          continue;
        }
      classes[node->op ? node->op->op_class : FW_OP_CLASS_OPAQUE]++;
      if (fw_op_cost (node, &cost))
        {
          flops += cost.flops;
          read += cost.bytes_read;
          written += cost.bytes_written;
          costed++;
        }
      else
        not_costed++;
    }
  json_builder_set_member_name (b, "cost");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "flops");
  json_builder_add_int_value (b, (gint64) flops);
  json_builder_set_member_name (b, "bytes_read");
  json_builder_add_int_value (b, (gint64) read);
  json_builder_set_member_name (b, "bytes_written");
  json_builder_add_int_value (b, (gint64) written);
  json_builder_set_member_name (b, "kernels");
  json_builder_add_int_value (b, costed + not_costed);
  json_builder_set_member_name (b, "nodes_not_costed");
  json_builder_add_int_value (b, not_costed);
  json_builder_set_member_name (b, "nodes_folded");
  json_builder_add_int_value (b, folded);
  json_builder_set_member_name (b, "op_classes");
  json_builder_begin_object (b);
  for (guint c = 0; c <= FW_OP_CLASS_OPAQUE; c++)
    {
      json_builder_set_member_name (b, fw_op_class_name ((FwOpClass) c));
      json_builder_add_int_value (b, classes[c]);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

/* "model": the file, its fingerprint and producer, the opsets it imports. */
static void
add_model (JsonBuilder *b, FwModel *model, const char *basename)
{
  json_builder_set_member_name (b, "model");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "file");
  json_builder_add_string_value (b, basename);
  json_builder_set_member_name (b, "fingerprint");
  {
    g_autofree char *fingerprint = fw_model_fingerprint (model);
    json_builder_add_string_value (b, fingerprint);
  }
  json_builder_set_member_name (b, "file_bytes");
  json_builder_add_int_value (b, (gint64) fw_model_get_file_size (model));
  json_builder_set_member_name (b, "ir_version");
  json_builder_add_int_value (b, fw_model_get_ir_version (model));
  json_builder_set_member_name (b, "producer");
  json_builder_add_string_value (b, fw_model_get_producer_name (model));
  json_builder_set_member_name (b, "producer_version");
  json_builder_add_string_value (b, fw_model_get_producer_version (model));
  json_builder_set_member_name (b, "opsets");
  json_builder_begin_array (b);
  for (guint i = 0; i < fw_model_get_n_opsets (model); i++)
    {
      const FwOpsetImport *imp = fw_model_get_opset (model, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "domain");
      json_builder_add_string_value (b, imp->domain[0] ? imp->domain : "ai.onnx");
      json_builder_set_member_name (b, "version");
      json_builder_add_int_value (b, imp->version);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* "bindings" as given, and "bindings_unused": those no symbolic dim carries. */
static void
add_bindings (JsonBuilder *b, GHashTable *bindings, const char * const *symbols)
{
  json_builder_set_member_name (b, "bindings");
  json_builder_begin_object (b);
  if (bindings != NULL)
    {
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, bindings);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (keys, key);
      g_ptr_array_sort (keys, compare_strings);
      for (guint i = 0; i < keys->len; i++)
        {
          const gint64 *v = g_hash_table_lookup (bindings, g_ptr_array_index (keys, i));
          json_builder_set_member_name (b, g_ptr_array_index (keys, i));
          json_builder_add_int_value (b, *v);
        }
    }
  json_builder_end_object (b);

  /* A binding no dim carries is most likely a typo: list it so a pipeline can see it. */
  json_builder_set_member_name (b, "bindings_unused");
  json_builder_begin_array (b);
  if (bindings != NULL)
    {
      g_autoptr(GPtrArray) keys = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, bindings);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        if (symbols == NULL || !g_strv_contains (symbols, key))
          g_ptr_array_add (keys, key);
      g_ptr_array_sort (keys, compare_strings);
      for (guint i = 0; i < keys->len; i++)
        json_builder_add_string_value (b, g_ptr_array_index (keys, i));
    }
  json_builder_end_array (b);
}

/* "graph": counts, the inputs to feed and the outputs, the op histogram. */
static void
add_graph (JsonBuilder *b, FwModel *model, FwGraph *graph, GHashTable *histogram)
{
  json_builder_set_member_name (b, "graph");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, graph->name ? graph->name : "");
  json_builder_set_member_name (b, "nodes");
  json_builder_add_int_value (b, fw_graph_count_nodes_deep (graph));
  json_builder_set_member_name (b, "top_level_nodes");
  json_builder_add_int_value (b, graph->nodes->len);
  json_builder_set_member_name (b, "initializers");
  json_builder_add_int_value (b, graph->initializers->len);
  json_builder_set_member_name (b, "initializer_bytes");
  json_builder_add_int_value (b, (gint64) fw_model_get_initializer_bytes (model));
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < graph->inputs->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->inputs, i);
      /* Pre-IR-4 files list initializers among inputs; they are weights, not inputs to feed. */
      if (!value->is_initializer)
        add_value (b, value);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < graph->outputs->len; i++)
    add_value (b, g_ptr_array_index (graph->outputs, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "op_histogram");
  add_histogram (b, histogram);
  json_builder_end_object (b);
}

/* "shapes": how much of the model inference made static, the symbols, the ops it could not infer. */
static void
add_shapes (JsonBuilder *b, const FwInferReport *infer, const char * const *symbols)
{
  json_builder_set_member_name (b, "shapes");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "values");
  json_builder_add_int_value (b, infer ? infer->n_values : 0);
  json_builder_set_member_name (b, "static_values");
  json_builder_add_int_value (b, infer ? infer->n_static_values : 0);
  json_builder_set_member_name (b, "static_percent");
  json_builder_add_double_value (b, infer && infer->n_values
                                      ? (gint64) (10000.0 * infer->n_static_values / infer->n_values) / 100.0
                                      : 100.0);
  json_builder_set_member_name (b, "symbols");
  json_builder_begin_array (b);
  for (guint i = 0; symbols && symbols[i]; i++)
    json_builder_add_string_value (b, symbols[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "folded_nodes");
  json_builder_add_int_value (b, infer ? infer->n_folded : 0);
  json_builder_set_member_name (b, "ops_without_inference");
  add_histogram (b, infer ? infer->ops_without_inference : NULL);
  json_builder_end_object (b);
}

/* "largest_tensors": the N_LARGEST biggest values, sorted. */
static void
add_largest (JsonBuilder *b, GArray *sized)
{
  json_builder_set_member_name (b, "largest_tensors");
  json_builder_begin_array (b);
  for (guint i = 0; i < sized->len && i < N_LARGEST; i++)
    {
      Sized *s = &g_array_index (sized, Sized, i);
      g_autofree char *shape = fw_value_format_shape (s->value);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, s->value->name);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, s->value->is_initializer ? "initializer" : "activation");
      json_builder_set_member_name (b, "dtype");
      json_builder_add_string_value (b, fw_dtype_name (s->value->dtype));
      json_builder_set_member_name (b, "shape");
      json_builder_add_string_value (b, shape);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, s->bytes);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

JsonNode *
fw_model_report_build (FwModel *model, const FwInferReport *infer, GHashTable *bindings,
                       const char * const *symbols)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GHashTable) histogram = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GArray) sized = g_array_new (FALSE, FALSE, sizeof (Sized));
  FwGraph *graph = fw_model_get_graph (model);
  const char *path = fw_model_get_path (model);
  g_autofree char *basename = path ? g_path_get_basename (path) : g_strdup ("");

  count_ops (graph, histogram, sized);
  g_array_sort (sized, compare_sized);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema");
  json_builder_add_string_value (b, "fusion-workbench/report");
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, FW_REPORT_SCHEMA_VERSION);
  json_builder_set_member_name (b, "tool_version");
  json_builder_add_string_value (b, PACKAGE_VERSION);

  add_model (b, model, basename);
  add_bindings (b, bindings, symbols);
  add_graph (b, model, graph, histogram);
  add_shapes (b, infer, symbols);
  add_cost (b, graph);
  add_largest (b, sized);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static const char *
get_string (JsonObject *o, const char *member)
{
  return json_object_get_string_member_with_default (o, member, "");
}

void
fw_markdown_append_cell (GString *md, const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (*p == '|')
        g_string_append (md, "\\|");
      else if (*p == '\n' || *p == '\r')
        g_string_append_c (md, ' ');
      else
        g_string_append_c (md, *p);
    }
}

static void
append_values_table (GString *md, JsonArray *values)
{
  g_string_append_printf (md, "| %s | %s | %s |\n|---|---|---|\n", _("name"), _("dtype"), _("shape"));
  for (guint i = 0; i < json_array_get_length (values); i++)
    {
      JsonObject *v = json_array_get_object_element (values, i);
      g_string_append (md, "| ");
      fw_markdown_append_cell (md, get_string (v, "name"));
      g_string_append_printf (md, " | %s | %s |\n", get_string (v, "dtype"), get_string (v, "shape"));
    }
}

static void
append_histogram_table (GString *md, JsonArray *ops, const char *header)
{
  g_string_append_printf (md, "| %s | %s |\n|---|---|\n", header, _("count"));
  for (guint i = 0; i < json_array_get_length (ops); i++)
    {
      JsonObject *o = json_array_get_object_element (ops, i);
      g_string_append (md, "| ");
      fw_markdown_append_cell (md, get_string (o, "op"));
      g_string_append_printf (md, " | %" PRId64 " |\n", json_object_get_int_member (o, "count"));
    }
}

static char *
format_markdown (JsonObject *root)
{
  GString *md = g_string_new (NULL);
  JsonObject *model = json_object_get_object_member (root, "model");
  JsonObject *graph = json_object_get_object_member (root, "graph");
  JsonObject *shapes = json_object_get_object_member (root, "shapes");
  JsonObject *bindings = json_object_get_object_member (root, "bindings");
  JsonArray *opsets = json_object_get_array_member (model, "opsets");
  JsonArray *largest = json_object_get_array_member (root, "largest_tensors");
  JsonArray *missing = json_object_get_array_member (shapes, "ops_without_inference");
  g_autoptr(GList) bound = json_object_get_members (bindings);

  g_string_append_printf (md, "# %s: ", _("Model report"));
  fw_markdown_append_cell (md, get_string (model, "file"));
  g_string_append (md, "\n\n");
  g_string_append_printf (md, "- %s: %" PRId64 "\n", _("IR version"),
                          json_object_get_int_member (model, "ir_version"));
  g_string_append_printf (md, "- %s:", _("Opsets"));
  for (guint i = 0; i < json_array_get_length (opsets); i++)
    {
      JsonObject *o = json_array_get_object_element (opsets, i);
      g_string_append_printf (md, "%s %s %" PRId64, i ? "," : "", get_string (o, "domain"),
                              json_object_get_int_member (o, "version"));
    }
  g_string_append_c (md, '\n');
  g_string_append (md, "- ");
  g_string_append_printf (md, "%s: ", _("Producer"));
  fw_markdown_append_cell (md, get_string (model, "producer"));
  if (get_string (model, "producer_version")[0])
    {
      g_string_append_c (md, ' ');
      fw_markdown_append_cell (md, get_string (model, "producer_version"));
    }
  g_string_append_c (md, '\n');
  g_string_append_printf (md, "- %s: %" PRId64 " (%s: %" PRId64 ")\n", _("Nodes"),
                          json_object_get_int_member (graph, "nodes"), _("top level"),
                          json_object_get_int_member (graph, "top_level_nodes"));
  g_string_append_printf (md, "- %s: %" PRId64 " (%" PRId64 " %s)\n", _("Initializers"),
                          json_object_get_int_member (graph, "initializers"),
                          json_object_get_int_member (graph, "initializer_bytes"), _("bytes"));
  g_string_append_printf (md, "- %s: %.2f%% (%" PRId64 " / %" PRId64 ")\n",
                          _("Values with fully static shapes"),
                          json_object_get_double_member (shapes, "static_percent"),
                          json_object_get_int_member (shapes, "static_values"),
                          json_object_get_int_member (shapes, "values"));
  g_string_append_printf (md, "- %s: %" PRId64 "\n", _("Nodes folded to constants"),
                          json_object_get_int_member (shapes, "folded_nodes"));
  {
    JsonArray *symbols = json_object_get_array_member (shapes, "symbols");
    if (json_array_get_length (symbols) > 0)
      {
        g_string_append_printf (md, "- %s:", _("Symbolic dims"));
        for (guint i = 0; i < json_array_get_length (symbols); i++)
          {
            g_string_append_c (md, ' ');
            fw_markdown_append_cell (md, json_array_get_string_element (symbols, i));
          }
        g_string_append_c (md, '\n');
      }
  }
  if (bound != NULL)
    {
      g_string_append_printf (md, "- %s:", _("Bindings"));
      for (GList *l = bound; l; l = l->next)
        g_string_append_printf (md, " %s=%" PRId64, (const char *) l->data,
                                json_object_get_int_member (bindings, l->data));
      g_string_append_c (md, '\n');
    }

  {
    JsonObject *cost = json_object_get_object_member (root, "cost");
    g_string_append_printf (md, "- %s: %" PRId64 " (%s: %" PRId64 ")\n", _("Kernels (nodes that run)"),
                            json_object_get_int_member (cost, "kernels"), _("folded at load"),
                            json_object_get_int_member (cost, "nodes_folded"));
    g_string_append_printf (md, "- %s: %.3f G\n", _("Arithmetic"),
                            json_object_get_int_member (cost, "flops") / 1e9);
    g_string_append_printf (md, "- %s: %.1f MB %s, %.1f MB %s\n", _("Memory traffic, unfused"),
                            json_object_get_int_member (cost, "bytes_read") / 1e6, _("read"),
                            json_object_get_int_member (cost, "bytes_written") / 1e6, _("written"));
  }

  g_string_append_printf (md, "\n## %s\n\n", _("Inputs"));
  append_values_table (md, json_object_get_array_member (graph, "inputs"));
  g_string_append_printf (md, "\n## %s\n\n", _("Outputs"));
  append_values_table (md, json_object_get_array_member (graph, "outputs"));
  g_string_append_printf (md, "\n## %s\n\n", _("Operators"));
  append_histogram_table (md, json_object_get_array_member (graph, "op_histogram"), _("op"));
  g_string_append_printf (md, "\n## %s\n\n", _("Operators without shape inference"));
  if (json_array_get_length (missing) == 0)
    g_string_append_printf (md, "%s\n", _("None."));
  else
    append_histogram_table (md, missing, _("op"));
  g_string_append_printf (md, "\n## %s\n\n", _("Largest tensors"));
  g_string_append_printf (md, "| %s | %s | %s | %s | %s |\n|---|---|---|---|---|\n", _("name"), _("kind"),
                          _("dtype"), _("shape"), _("bytes"));
  for (guint i = 0; i < json_array_get_length (largest); i++)
    {
      JsonObject *t = json_array_get_object_element (largest, i);
      g_string_append (md, "| ");
      fw_markdown_append_cell (md, get_string (t, "name"));
      g_string_append_printf (md, " | %s | %s | %s | %" PRId64 " |\n", get_string (t, "kind"),
                              get_string (t, "dtype"), get_string (t, "shape"),
                              json_object_get_int_member (t, "bytes"));
    }
  if (json_object_has_member (root, "plan"))
    fw_plan_report_markdown (md, json_object_get_object_member (root, "plan"));
  fw_exec_report_markdown (md, root);
  fw_superkernel_report_markdown (md, root);
  return g_string_free (md, FALSE);
}

char *
fw_model_report_format (JsonNode *report, FwReportFormat format)
{
  if (format == FW_REPORT_MARKDOWN)
    return format_markdown (json_node_get_object (report));
  {
    g_autoptr(JsonGenerator) gen = json_generator_new ();
    g_autofree char *text = NULL;
    json_generator_set_pretty (gen, TRUE);
    json_generator_set_indent (gen, 2);
    json_generator_set_root (gen, report);
    text = json_generator_to_data (gen, NULL);
    return g_strconcat (text, "\n", NULL);
  }
}
