/* fw-exec-run: runs a model on the reference interpreter with the same seeded inputs tests/ort/ort-run.js
 * feeds ONNX Runtime, so the real-model suite can compare the two output by output.
 *
 * Usage: fw-exec-run MODEL [--bind NAME=VALUE]... [--seed N] [--int-max N] [--threads N] [--feed DIR] --dump DIR
 * Writes output i's raw little-endian bytes to DIR/i.bin and prints {"outputs":[{name,type,dims}]}.
 * --feed DIR runs node by node: each node reads ONNX Runtime's values of its inputs (DIR/i.bin for graph
 * output i, as ort-run.js --dump writes them for a model whose every value is an output) instead of ours, so
 * a value is compared on its own, not through the rounding of every node before it (a quantised model turns
 * a last-bit difference of a float Conv into a whole quantisation step at the next QuantizeLinear).
 * The input streams are those of ort-run.js: mulberry32 seeded with seed ^ fnv1a("name|type|AxBxC"); floats
 * k/1024 − 1 from the top 11 bits, integers next() % int_max, bools the top bit. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/fw-exec.h"
#include "graph/fw-model-private.h"
#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

static guint32
fnv1a (const char *s)
{
  guint32 h = 0x811c9dc5u;

  for (const guint8 *p = (const guint8 *) s; *p; p++)
    {
      h ^= *p;
      h *= 0x01000193u;
    }
  return h;
}

static guint32
mulberry32 (guint32 *a)
{
  guint32 t;

  *a += 0x6d2b79f5u;
  t = *a;
  t = (t ^ (t >> 15)) * (t | 1u);
  t ^= t + (t ^ (t >> 7)) * (t | 61u);
  return t ^ (t >> 14);
}

static gboolean
fill_input (FwArray *a, const char *name, guint32 seed, guint32 int_max, GError **error)
{
  GString *key = g_string_new (NULL);
  guint32 state;

  g_string_printf (key, "%s|%s|", name, fw_dtype_name (a->dtype));
  for (guint d = 0; d < a->rank; d++)
    g_string_append_printf (key, "%s%" G_GINT64_FORMAT, d ? "x" : "", a->dims[d]);
  state = seed ^ fnv1a (key->str);
  g_string_free (key, TRUE);
  for (gint64 i = 0; i < a->n_elements; i++)
    {
      guint32 r = mulberry32 (&state);

      switch (a->dtype)
        {
        case FW_DTYPE_FLOAT: case FW_DTYPE_DOUBLE: case FW_DTYPE_FLOAT16:
          fw_array_set_double (a, i, (gdouble) (r >> 21) / 1024.0 - 1.0);
          break;
        case FW_DTYPE_BOOL:
          fw_array_set_double (a, i, r >> 31);
          break;
        case FW_DTYPE_INT64: case FW_DTYPE_INT32: case FW_DTYPE_UINT64: case FW_DTYPE_UINT32:
          fw_array_set_double (a, i, r % int_max);
          break;
        default:
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "input %s: type %s not supported", name,
                       fw_dtype_name (a->dtype));
          return FALSE;
        }
    }
  return TRUE;
}

/* The array a node reads for value v: ONNX Runtime's (fed) when v is a graph output, else a constant, a
 * graph input, or what an earlier node computed. */
static FwArray *
feed_lookup (const FwGraph *graph, const FwValue *v, const char *feed, GHashTable *ours, GError **error)
{
  FwArray *a = g_hash_table_lookup (ours, v);
  gint64 dims[FW_MAX_RANK];
  g_autofree char *path = NULL;
  g_autofree char *bytes = NULL;
  gsize len = 0;

  if (a != NULL)
    return fw_array_ref (a);
  if (v->constant != NULL)
    return fw_array_new_from_tensor (v->constant, error);
  for (guint i = 0; v->is_output && i < graph->outputs->len; i++)
    if (g_ptr_array_index (graph->outputs, i) == v)
      {
        path = g_strdup_printf ("%s/%u.bin", feed, i);
        break;
      }
  if (path == NULL || !fw_value_is_static (v))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "value %s has no fed array", v->name);
      return NULL;
    }
  for (gint d = 0; d < v->rank; d++)
    dims[d] = v->dims[d].value;
  if (!g_file_get_contents (path, &bytes, &len, error) || (a = fw_array_new (v->dtype, v->rank, dims, error)) == NULL)
    return NULL;
  if (len != a->n_bytes)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %zu bytes, value %s needs %zu", path, len,
                   v->name, a->n_bytes);
      fw_array_unref (a);
      return NULL;
    }
  memcpy (a->data, bytes, len);
  g_hash_table_insert (ours, (gpointer) v, fw_array_ref (a));
  return a;
}

/* --feed: every node once, in order, on fed inputs; outputs[i] gets our array of graph output i. */
static gboolean
run_node_by_node (FwExecContext *ctx, const FwGraph *graph, GPtrArray *inputs, const char *feed,
                  FwArray **outputs, GError **error)
{
  g_autoptr(GHashTable) ours = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(GHashTable) computed = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  guint n_nodes = 0, k = 0;
  FwNode **order = fw_graph_get_order (graph, &n_nodes);

  for (guint i = 0; i < graph->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (graph->inputs, i);

      if (!v->is_initializer)
        g_hash_table_insert (ours, v, fw_array_ref (g_ptr_array_index (inputs, k++)));
    }
  for (guint n = 0; n < n_nodes; n++)
    {
      const FwNode *node = order[n];
      g_autofree FwArray **in = g_new0 (FwArray *, node->n_inputs + 1);
      g_autofree FwArray **out = g_new0 (FwArray *, node->n_outputs + 1);
      gboolean ok = TRUE;

      for (guint i = 0; ok && i < node->n_inputs; i++)
        if (node->inputs[i] != NULL)
          ok = (in[i] = feed_lookup (graph, node->inputs[i], feed, ours, error)) != NULL;
      ok = ok && fw_exec_run_node (ctx, node, in, out, error);
      for (guint i = 0; i < node->n_inputs; i++)
        if (in[i] != NULL)
          fw_array_unref (in[i]);
      if (!ok)
        return FALSE;
      for (guint i = 0; i < node->n_outputs; i++)
        if (out[i] != NULL)
          {
            /* Later nodes read ONNX Runtime's copy of a graph output, ours otherwise. */
            if (!node->outputs[i]->is_output)
              g_hash_table_insert (ours, node->outputs[i], fw_array_ref (out[i]));
            g_hash_table_insert (computed, node->outputs[i], out[i]);
          }
    }
  for (guint i = 0; i < graph->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (graph->outputs, i);
      FwArray *a = g_hash_table_lookup (computed, v);

      if (a == NULL && (a = g_hash_table_lookup (ours, v)) == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no node computed output %s", v->name);
          return FALSE;
        }
      outputs[i] = fw_array_ref (a);
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_auto(GStrv) binds = NULL;
  gint64 seed = 1, int_max = 10;
  gint threads = 0;
  g_autofree char *dump = NULL;
  g_autofree char *feed = NULL;
  GOptionEntry entries[] = {
    { "bind", 0, 0, G_OPTION_ARG_STRING_ARRAY, &binds, "Bind a symbolic dim", "NAME=VALUE" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Input seed (as ort-run.js)", "N" },
    { "int-max", 0, 0, G_OPTION_ARG_INT64, &int_max, "Integers in [0, N)", "N" },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, "Threads", "N" },
    { "dump", 0, 0, G_OPTION_ARG_FILENAME, &dump, "Write outputs to DIR/i.bin", "DIR" },
    { "feed", 0, 0, G_OPTION_ARG_FILENAME, &feed, "Run node by node on ONNX Runtime's values in DIR", "DIR" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("MODEL");
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(FwExecContext) ctx = NULL;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  FwInferOptions infer = { 0 };
  FwGraph *graph;
  g_autofree FwArray **outputs = NULL;
  GString *json = g_string_new ("{\"outputs\":[");

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || dump == NULL || int_max < 1)
    {
      fprintf (stderr, "usage: fw-exec-run MODEL [--bind N=V]... [--seed N] [--int-max N] [--feed DIR] "
               "--dump DIR%s%s\n",
               error ? ": " : "", error ? error->message : "");
      return 2;
    }
  for (guint i = 0; binds && binds[i]; i++)
    {
      char *eq = strchr (binds[i], '=');
      gint64 *v = g_new (gint64, 1);

      if (eq == NULL)
        {
          fprintf (stderr, "fw-exec-run: bad --bind %s\n", binds[i]);
          return 2;
        }
      *v = g_ascii_strtoll (eq + 1, NULL, 10);
      g_hash_table_insert (bindings, g_strndup (binds[i], eq - binds[i]), v);
    }
  model = fw_onnx_load (argv[1], NULL, NULL, &error);
  infer.bindings = bindings;
  if (model == NULL || !fw_shape_infer_graph (fw_model_get_graph (model), &infer, NULL, &error))
    {
      fprintf (stderr, "fw-exec-run: %s\n", error->message);
      return 1;
    }
  graph = fw_model_get_graph (model);
  for (guint i = 0; i < graph->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (graph->inputs, i);
      gint64 dims[FW_MAX_RANK];
      FwArray *a;

      if (v->is_initializer)
        continue;
      if (!fw_value_is_static (v))
        {
          fprintf (stderr, "fw-exec-run: input %s is not static; --bind its dims\n", v->name);
          return 2;
        }
      for (gint d = 0; d < v->rank; d++)
        dims[d] = v->dims[d].value;
      a = fw_array_new (v->dtype, v->rank, dims, &error);
      if (a == NULL || !fill_input (a, v->name, (guint32) seed, (guint32) int_max, &error))
        {
          fprintf (stderr, "fw-exec-run: %s\n", error->message);
          return 1;
        }
      g_ptr_array_add (inputs, a);
    }
  ctx = fw_exec_context_new (threads, NULL);
  outputs = g_new0 (FwArray *, graph->outputs->len + 1);
  if (feed != NULL ? !run_node_by_node (ctx, graph, inputs, feed, outputs, &error)
      : !fw_exec_run_reference (ctx, graph, (FwArray *const *) inputs->pdata, inputs->len, outputs, NULL, &error))
    {
      fprintf (stderr, "fw-exec-run: %s\n", error->message);
      return 1;
    }
  g_mkdir_with_parents (dump, 0755);
  for (guint i = 0; i < graph->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (graph->outputs, i);
      g_autofree char *path = g_strdup_printf ("%s/%u.bin", dump, i);
      g_autoptr(FwTensor) packed = NULL;
      gconstpointer data = outputs[i]->data;
      gsize size = outputs[i]->n_bytes;

      /* A 4-bit value is written packed, as ONNX stores it, not one element a byte as the array holds it. */
      if (fw_dtype_is_4bit (outputs[i]->dtype))
        data = fw_tensor_get_data ((packed = fw_array_to_tensor (outputs[i])), &size);
      if (!g_file_set_contents (path, data, size, &error))
        {
          fprintf (stderr, "fw-exec-run: %s\n", error->message);
          return 1;
        }
      g_string_append_printf (json, "%s{\"name\":\"%s\",\"type\":\"%s\",\"dims\":[", i ? "," : "", v->name,
                              fw_dtype_name (outputs[i]->dtype));
      for (guint d = 0; d < outputs[i]->rank; d++)
        g_string_append_printf (json, "%s%" G_GINT64_FORMAT, d ? "," : "", outputs[i]->dims[d]);
      g_string_append (json, "]}");
      fw_array_unref (outputs[i]);
    }
  g_string_append (json, "]}\n");
  fputs (json->str, stdout);
  g_string_free (json, TRUE);
  return 0;
}
