/* fw-onnx-roundtrip: reads a model and writes it back, for the checks against ONNX Runtime.
 * Usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer] [--bind NAME=VALUE]...
 *                          [--expose-all SHAPES.json]
 * --expose-all makes every node output a graph output (typed by dtype only, so ONNX Runtime reports the
 * shapes it computes) and writes our inferred shape of each to SHAPES.json as {"name": "[1,3,224,224]"}. */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "graph/fw-model-private.h"
#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

static gboolean
expose_all (FwModel *model, const char *shapes_path, GError **error)
{
  FwGraph *graph = fw_model_get_graph (model);
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  guint n;
  FwNode **order = fw_graph_get_order (graph, &n);

  json_builder_begin_object (b);
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < order[i]->n_outputs; k++)
      {
        FwValue *value = order[i]->outputs[k];
        g_autofree char *shape = NULL;

        if (value == NULL)
          continue;
        shape = fw_value_format_shape (value);
        json_builder_set_member_name (b, value->name);
        json_builder_add_string_value (b, shape);
        if (!value->is_output)
          {
            fw_graph_add_output (graph, value->name, NULL);
            /* Declare no shape: ONNX Runtime then reports what it computes, not what we claimed. */
            value->has_value_info = FALSE;
            fw_value_set_type (value, value->dtype, FW_RANK_UNKNOWN, NULL);
          }
      }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_file (gen, shapes_path, error);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  FwOnnxWriteFlags flags = FW_ONNX_WRITE_DEFAULT;
  gboolean infer = FALSE;
  const char *shapes_path = NULL;

  if (argc < 3)
    {
      g_printerr ("usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer] [--bind N=V]... "
                  "[--expose-all SHAPES.json]\n");
      return 2;
    }
  for (int i = 3; i < argc; i++)
    {
      if (strcmp (argv[i], "--external-data") == 0)
        flags |= FW_ONNX_WRITE_EXTERNAL_DATA;
      else if (strcmp (argv[i], "--infer") == 0)
        infer = TRUE;
      else if (strcmp (argv[i], "--bind") == 0 && i + 1 < argc)
        {
          g_auto(GStrv) kv = g_strsplit (argv[++i], "=", 2);
          gint64 v;
          if (kv[0] == NULL || kv[1] == NULL)
            {
              g_printerr ("--bind wants NAME=VALUE\n");
              return 2;
            }
          v = g_ascii_strtoll (kv[1], NULL, 10);
          g_hash_table_insert (bindings, g_strdup (kv[0]), g_memdup2 (&v, sizeof v));
          infer = TRUE;
        }
      else if (strcmp (argv[i], "--expose-all") == 0 && i + 1 < argc)
        {
          shapes_path = argv[++i];
          infer = TRUE;
        }
      else
        {
          g_printerr ("unknown argument %s\n", argv[i]);
          return 2;
        }
    }
  model = fw_onnx_load (argv[1], NULL, NULL, &error);
  if (model == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (infer)
    {
      FwInferOptions options = { bindings, 0 };
      FwInferReport report;
      gboolean ok;

      fw_infer_report_init (&report);
      ok = fw_shape_infer_graph (fw_model_get_graph (model), &options, &report, &error);
      fw_infer_report_clear (&report);
      if (!ok)
        {
          g_printerr ("%s\n", error->message);
          return 2;
        }
      if (shapes_path == NULL)
        flags |= FW_ONNX_WRITE_INFERRED_SHAPES;
    }
  if (shapes_path != NULL && !expose_all (model, shapes_path, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (!fw_onnx_write (model, argv[2], flags, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  return 0;
}
