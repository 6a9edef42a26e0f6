/* fw-onnx-roundtrip: reads a model and writes it back, for the checks against ONNX Runtime.
 * Usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer] [--bind NAME=VALUE]...
 *                          [--expose-all SHAPES.json]
 *                          [--fuse [--strategy S] [--profile NAME|FILE]]
 * --expose-all makes every node output a graph output (typed by dtype only, so ONNX Runtime reports the
 * shapes it computes) and writes our inferred shape of each to SHAPES.json as {"name": "[1,3,224,224]"};
 * int4 and uint4 values stay inside (onnxruntime-node aborts handing back a 4-bit tensor: their
 * DequantizeLinear's output is compared instead).
 * --fuse infers, plans with the built-in rules (profile ascend-910b unless given, strategy balanced unless
 * given) and writes the fused model (fw_fused_model_write); stdout gets "fused: G groups, N nodes". */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "graph/fw-model-private.h"
#include "onnx/fw-onnx.h"
#include "export/fw-fused-model.h"
#include "onnx/fw-onnx-rewrite.h"
#include "plan/fw-plan.h"
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

        if (value == NULL || (fw_dtype_is_4bit (value->dtype) && !value->is_output))
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

static gboolean
export_fused (FwModel *model, const char *path, const char *profile_name, const char *strategy,
              FwOnnxWriteFlags flags, GError **error)
{
  g_autoptr(FwProfile) profile = fw_profile_lookup (profile_name ? profile_name : "ascend-910b", error);
  g_autoptr(FwRuleSet) rules = NULL;
  g_autoptr(FwPlan) plan = NULL;
  FwPlanOptions options;
  guint n_groups = 0, n_nodes = 0;

  if (profile == NULL)
    return FALSE;
  rules = fw_rule_set_new ();
  if (!fw_rule_set_load_builtin (rules, error))
    return FALSE;
  fw_plan_options_init (&options);
  if (strategy != NULL && !fw_strategy_from_string (strategy, &options.strategy))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--strategy %s: unknown strategy", strategy);
      return FALSE;
    }
  plan = fw_plan_new (model, profile, rules, &options, error);
  if (plan == NULL)
    return FALSE;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED)
        {
          n_groups++;
          n_nodes += c->nodes->len;
        }
    }
  if (!fw_fused_model_write (plan, path, flags, error))
    return FALSE;
  g_print ("fused: %u groups, %u nodes\n", n_groups, n_nodes);
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  FwOnnxWriteFlags flags = FW_ONNX_WRITE_DEFAULT;
  gboolean infer = FALSE;
  gboolean fuse = FALSE;
  const char *shapes_path = NULL;
  const char *profile_name = NULL;
  const char *strategy = NULL;

  if (argc < 3)
    {
      g_printerr ("usage: fw-onnx-roundtrip IN.onnx OUT.onnx [--external-data] [--infer] [--bind N=V]... "
                  "[--expose-all SHAPES.json] [--fuse [--strategy S] [--profile NAME]]\n");
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
      else if (strcmp (argv[i], "--fuse") == 0)
        fuse = infer = TRUE;
      else if (strcmp (argv[i], "--strategy") == 0 && i + 1 < argc)
        strategy = argv[++i];
      else if (strcmp (argv[i], "--profile") == 0 && i + 1 < argc)
        profile_name = argv[++i];
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
      /* The fused export keeps the model's own value_info: what it shows is what the model said. */
      if (shapes_path == NULL && !fuse)
        flags |= FW_ONNX_WRITE_INFERRED_SHAPES;
    }
  if (shapes_path != NULL && !expose_all (model, shapes_path, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  if (fuse)
    {
      if (shapes_path != NULL)
        {
          g_printerr ("--fuse and --expose-all do not go together\n");
          return 2;
        }
      if (!export_fused (model, argv[2], profile_name, strategy, flags, &error))
        {
          g_printerr ("%s\n", error->message);
          return 2;
        }
      return 0;
    }
  if (!fw_onnx_write (model, argv[2], flags, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  return 0;
}
