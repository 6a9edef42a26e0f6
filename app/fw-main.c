#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "codegen/host/fw-host-dnnl.h"
#include "hw/fw-host-bench.h"
#include "hw/fw-host-tuning.h"
#include "fw-batch.h"
#include "fw-calibrate-command.h"
#include "fw-twin-command.h"
#include "graph/fw-tensor.h"
#include "rules/fw-rules.h"
#if FW_HAVE_GUI
# include "fw-application.h"
#endif

/* --convert-rules: the fusion_rules file in our format on standard output. */
static int
convert_rules_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = fw_rule_convert_file (path, &error);

  if (text == NULL)
    {
      g_printerr ("fusion-workbench: %s\n", error->message);
      return FW_EXIT_BAD_INPUT;
    }
  fputs (text, stdout);
  return FW_EXIT_OK;
}

static int
run_command_line (int argc, char **argv)
{
  g_autofree char *batch = NULL;
  g_autofree char *report = NULL;
  g_autofree char *format = NULL;
  g_auto(GStrv) binds = NULL;
  gboolean version = FALSE, calibrate = FALSE;
  g_autofree char *convert_rules = NULL;
  g_autofree char *dump_graph = NULL;
  g_autofree char *twin = NULL;
  g_auto(GStrv) twin_kernels = NULL;
  gint max_nodes = 0, max_nesting = 0, max_depth = 0, max_fusion_size = 0, max_alloc_mb = 0;
  gint64 max_tensor_elements = 0;
  g_autofree char *profile = NULL;
  g_autofree char *strategy = NULL;
  g_auto(GStrv) rules = NULL;
  g_auto(GStrv) whitelists = NULL;
  g_auto(GStrv) ops = NULL;
  g_auto(GStrv) fail_on = NULL;
  g_autofree char *export_whitelist = NULL;
  g_auto(GStrv) targets = NULL;
  gboolean verify = FALSE, measure = FALSE;
  g_autofree char *export_dir = NULL;
  g_autofree char *tolerance = NULL;
  g_autofree char *verify_policy = NULL;
  g_autofree char *kernel_cache = NULL;
  g_autofree char *render = NULL;
  g_autofree char *roofline = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *model_explorer = NULL;
  g_autofree char *superkernel = NULL;
  g_auto(GStrv) superkernel_scopes = NULL;
  g_auto(GStrv) no_superkernel = NULL;
  gint superkernel_max_kernels = 0;
  gint64 seed = 1;
  gint repeats = 0, threads = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    { "batch", 0, 0, G_OPTION_ARG_FILENAME, &batch, N_("Run headless on MODEL and write a report"), N_("MODEL") },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report, N_("Write the report to FILE (- for standard output)"), N_("FILE") },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("Report format: json or markdown"), N_("FORMAT") },
    { "bind", 0, 0, G_OPTION_ARG_STRING_ARRAY, &binds, N_("Bind a symbolic dimension, e.g. batch=8 (repeatable)"), N_("NAME=VALUE") },
    { "profile", 0, 0, G_OPTION_ARG_FILENAME, &profile, N_("Hardware profile: ascend-910b (default), ascend-310p, host, or a YAML file"), N_("NAME|FILE") },
    { "rules", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rules, N_("Extra fusion rules, a YAML file or a folder of them (repeatable)"), N_("FILE|DIR") },
    { "ops", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &ops, N_("Operator registry declaring custom operators fusable (docs/custom-ops.md), a YAML file or a folder of them (repeatable)"), N_("FILE|DIR") },
    { "strategy", 0, 0, G_OPTION_ARG_STRING, &strategy, N_("Fusion strategy: conservative, balanced (default) or aggressive"), N_("STRATEGY") },
    { "max-depth", 0, 0, G_OPTION_ARG_INT, &max_depth, N_("Longest chain of operators in one fusion (default 32)"), N_("N") },
    { "max-fusion-size", 0, 0, G_OPTION_ARG_INT, &max_fusion_size, N_("Most operators in one fusion (default: the profile's, 64)"), N_("N") },
    { "whitelist", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &whitelists, N_("Apply a whitelist of accepted and vetoed fusions after planning (repeatable, in order)"), N_("FILE") },
    { "export-whitelist", 0, 0, G_OPTION_ARG_FILENAME, &export_whitelist, N_("Write the final plan as a whitelist: accepted entries for proposed and accepted fusions, vetoed ones for vetoed, pattern-level decisions kept"), N_("FILE") },
    { "target", 0, 0, G_OPTION_ARG_STRING_ARRAY, &targets, N_("Generate kernels for a target: host (C SuperKernels, compiled and loaded) or ascend (Ascend C sources); repeatable"), N_("TARGET") },
    { "verify", 0, 0, G_OPTION_ARG_NONE, &verify, N_("Run the fused model against the unfused one on seeded inputs and compare every output and group boundary (uses the host target; with --target ascend also runs each Ascend kernel on the Ascend C twin)"), NULL },
    { "measure", 0, 0, G_OPTION_ARG_NONE, &measure, N_("Time each SuperKernel against the operators it replaces and the whole model fused against unfused (uses the host target)"), NULL },
    { "export", 0, 0, G_OPTION_ARG_FILENAME, &export_dir, N_("Write the fused ONNX model, the whitelist and the kernel package (manifest.json) into DIR"), N_("DIR") },
    { "tolerance", 0, 0, G_OPTION_ARG_STRING, &tolerance, N_("Verification tolerance for every float output, e.g. rel=1e-4,abs=1e-5 (default: by dtype)"), N_("SPEC") },
    { "verify-policy", 0, 0, G_OPTION_ARG_STRING, &verify_policy, N_("Which side verification holds right: strict (fused within tolerance of the reference) or golden (fused no farther than the reference from a widened golden run; the default for float16 and bfloat16 models)"), N_("POLICY") },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of the inputs --verify and --measure run on (default 1)"), N_("N") },
    { "repeats", 0, 0, G_OPTION_ARG_INT, &repeats, N_("Timed samples per figure for --measure, medians reported (default 5)"), N_("N") },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, N_("Threads for running kernels (default: all cores)"), N_("N") },
    { "kernel-cache", 0, 0, G_OPTION_ARG_FILENAME, &kernel_cache, N_("Folder of compiled SuperKernels (default $XDG_CACHE_HOME/fusion-workbench/kernels)"), N_("DIR") },
    { "render", 0, 0, G_OPTION_ARG_FILENAME, &render, N_("Draw the laid-out graph, fusion candidates as hulls, to FILE.svg or FILE.png"), N_("FILE") },
    { "roofline", 0, 0, G_OPTION_ARG_FILENAME, &roofline, N_("Draw the roofline of the fusion candidates on the profile (unfused and fused) to FILE.svg or FILE.png"), N_("FILE") },
    { "summary", 0, 0, G_OPTION_ARG_FILENAME, &summary, N_("Draw kernels, HBM traffic and estimated time of the original graph, the proposed plan and the decisions to FILE.svg or FILE.png"), N_("FILE") },
    { "dump-graph", 0, 0, G_OPTION_ARG_FILENAME, &dump_graph, N_("Write the graph before fusion, as planned and as decided (ONNX and .pbtxt) and one model per fused kernel into DIR, as DUMP_GRAPH=1 DUMP_GRAPH_PATH=DIR does"), N_("DIR") },
    { "model-explorer", 0, 0, G_OPTION_ARG_FILENAME, &model_explorer, N_("Write the graph with the plan for Google's Model Explorer into DIR: MODEL.model-explorer.json (each fused group one namespace) and node data files of refusal codes and estimated (and, with --measure, measured) µs saved"), N_("DIR") },
    { "superkernel", 0, 0, G_OPTION_ARG_STRING, &superkernel, N_("SuperKernel scopes: auto (maximal runs of kernels bound into one launch, with the barriers between them narrowed) or off (default)"), N_("MODE") },
    { "superkernel-scope", 0, 0, G_OPTION_ARG_STRING_ARRAY, &superkernel_scopes, N_("Make the kernels under a name scope one SuperKernel, e.g. /encoder/layers.3 (repeatable; implies --superkernel auto over those scopes only)"), N_("PREFIX") },
    { "no-superkernel", 0, 0, G_OPTION_ARG_STRING_ARRAY, &no_superkernel, N_("Keep the nodes under a name scope (or of that name) out of every SuperKernel (repeatable)"), N_("PREFIX") },
    { "superkernel-max-kernels", 0, 0, G_OPTION_ARG_INT, &superkernel_max_kernels, N_("Most kernels in one SuperKernel scope (default 64)"), N_("N") },
    { "fail-on", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fail_on, N_("Exit with 1 when a condition holds (comma list, repeatable): mismatch (a group or output failed --verify, or a fused group has no verified kernel), regression (--measure found the fused model or a SuperKernel slower than unfused), rejected-whitelist (an accepted whitelist entry for this model matched nothing or a fusion the planner refused)"), N_("LIST") },
    { "max-nodes", 0, 0, G_OPTION_ARG_INT, &max_nodes, N_("Refuse models with more nodes than N (default 5000000)"), N_("N") },
    { "max-nesting", 0, 0, G_OPTION_ARG_INT, &max_nesting, N_("Refuse models nested deeper than N (default 64)"), N_("N") },
    { "max-alloc-mb", 0, 0, G_OPTION_ARG_INT, &max_alloc_mb, N_("Refuse models that would make the reader copy more than N MiB (default 2048)"), N_("N") },
    { "max-tensor-elements", 0, 0, G_OPTION_ARG_INT64, &max_tensor_elements, N_("Refuse tensors claiming more than N elements (default 2^39)"), N_("N") },
    { "twin", 0, 0, G_OPTION_ARG_FILENAME, &twin, N_("Run every Ascend kernel of an exported kernel package (DIR with manifest.json) on the Ascend C twin against the reference run of its group, print a table (--format json for JSON) and exit: 0 all pass, 1 a kernel failed or gave a diagnostic, 2 bad input"), N_("DIR") },
    { "kernel", 0, 0, G_OPTION_ARG_STRING_ARRAY, &twin_kernels, N_("With --twin: run only this kernel (kNNN or its folder; repeatable)"), N_("kNNN") },
    { "calibrate", 0, 0, G_OPTION_ARG_NONE, &calibrate, N_("Time a short set of microbenchmarks on this machine (a few seconds), fit the host profile's bandwidth, throughputs, overheads and per-class factors to them, cache the result (applied whenever the host profile loads), print the numbers old → new and exit"), NULL },
    { "convert-rules", 0, 0, G_OPTION_ARG_FILENAME, &convert_rules, N_("Print a fusion_rules file (the graph-autofusion articles' rule dialect) in this tool's rule format and exit"), N_("FILE") },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Print the version and exit"), NULL },
    { NULL }
  };

  context = g_option_context_new (_("[MODEL] — inspect and steer operator fusion for Ascend NPUs"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
    _("Without --batch the desktop workbench opens. Exit codes in batch mode:\n"
      "  0 success, 1 a --fail-on condition held, 2 bad input or usage, 3 internal error."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("fusion-workbench: %s\n", error->message);
      return FW_EXIT_BAD_INPUT;
    }
  if (version)
    {
      printf ("fusion-workbench %s\n", PACKAGE_VERSION);
      return FW_EXIT_OK;
    }
  if (calibrate)
    return fw_calibrate_command_run ();
  if (convert_rules != NULL)
    return convert_rules_file (convert_rules);
  if (twin != NULL)
    return fw_twin_command_run (twin, (const char * const *) twin_kernels, format, kernel_cache, (guint64) seed);
  if (batch == NULL)
    {
#if FW_HAVE_GUI
      /* Options are checked here; what remains are models for the window to open. Rules and whitelists apply
       * to every model it opens. */
      return fw_application_run (argc, argv, (const char * const *) rules, (const char * const *) whitelists,
                                 (const char * const *) ops);
#else
      g_printerr ("fusion-workbench: %s\n", _("this build has no desktop interface; use --batch MODEL"));
      return FW_EXIT_BAD_INPUT;
#endif
    }
  if (argc > 1)
    {
      g_printerr ("fusion-workbench: %s “%s”\n", _("unexpected argument"), argv[1]);
      return FW_EXIT_BAD_INPUT;
    }
  if (max_nodes < 0 || max_nesting < 0 || max_depth < 0 || max_fusion_size < 0 || max_depth > 4096 ||
      max_fusion_size > 4096 || max_alloc_mb < 0 || max_tensor_elements < 0 || repeats < 0 || repeats > 10000 ||
      threads < 0 || threads > 1024 || seed < 0)
    {
      g_printerr ("fusion-workbench: %s\n",
                  _("--max-nodes, --max-nesting, --max-alloc-mb, --max-tensor-elements and --seed must be positive, "
                    "--max-depth and --max-fusion-size from 1 to 4096, --repeats up to 10000, --threads up to 1024"));
      return FW_EXIT_BAD_INPUT;
    }
  /* Process-wide, so set before any model is read. */
  if (max_tensor_elements > 0)
    fw_tensor_set_max_elements (max_tensor_elements);
  {
    FwBatchOptions options = {
      .model_path = batch,
      .report_path = report,
      .format = format,
      .binds = binds,
      .max_nodes = max_nodes,
      .max_nesting = max_nesting,
      .max_alloc_mb = max_alloc_mb,
      .profile = profile,
      .rules = rules,
      .strategy = strategy,
      .fusion_depth = max_depth,
      .max_fusion_size = max_fusion_size,
      .whitelists = whitelists,
      .ops = ops,
      .export_whitelist = export_whitelist,
      .fail_on = fail_on,
      .targets = targets,
      .verify = verify,
      .measure = measure,
      .export_dir = export_dir,
      .tolerance = tolerance,
      .verify_policy = verify_policy,
      .seed = seed,
      .repeats = repeats,
      .threads = threads,
      .kernel_cache = kernel_cache,
      .render = render,
      .roofline = roofline,
      .summary = summary,
      .dump_graph = dump_graph,
      .model_explorer = model_explorer,
      .superkernel = superkernel,
      .superkernel_scopes = superkernel_scopes,
      .no_superkernel = no_superkernel,
      .superkernel_max_kernels = superkernel_max_kernels,
    };
    return fw_batch_run (&options);
  }
}

int
main (int argc, char **argv)
{
  fw_host_tuning_apply ();
  /* A calibration (--calibrate, Preferences) times the fused kernels' products through the host target. */
  fw_host_bench_set_fused_product (fw_dnnl_time_product);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  return run_command_line (argc, argv);
}
