#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "fw-batch.h"
#include "graph/fw-tensor.h"
#if FW_HAVE_GUI
# include "fw-application.h"
#endif

static int
run_command_line (int argc, char **argv)
{
  g_autofree char *batch = NULL;
  g_autofree char *report = NULL;
  g_autofree char *format = NULL;
  g_auto(GStrv) binds = NULL;
  gboolean version = FALSE;
  gint max_nodes = 0, max_nesting = 0, max_depth = 0, max_fusion_size = 0, max_alloc_mb = 0;
  gint64 max_tensor_elements = 0;
  g_autofree char *profile = NULL;
  g_autofree char *strategy = NULL;
  g_auto(GStrv) rules = NULL;
  g_auto(GStrv) whitelists = NULL;
  g_auto(GStrv) fail_on = NULL;
  g_autofree char *export_whitelist = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    { "batch", 0, 0, G_OPTION_ARG_FILENAME, &batch, N_("Run headless on MODEL and write a report"), N_("MODEL") },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &report, N_("Write the report to FILE (- for standard output)"), N_("FILE") },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, N_("Report format: json or markdown"), N_("FORMAT") },
    { "bind", 0, 0, G_OPTION_ARG_STRING_ARRAY, &binds, N_("Bind a symbolic dimension, e.g. batch=8 (repeatable)"), N_("NAME=VALUE") },
    { "profile", 0, 0, G_OPTION_ARG_FILENAME, &profile, N_("Hardware profile: ascend-910b (default), ascend-310p, host, or a YAML file"), N_("NAME|FILE") },
    { "rules", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rules, N_("Extra fusion rules, a YAML file or a folder of them (repeatable)"), N_("FILE|DIR") },
    { "strategy", 0, 0, G_OPTION_ARG_STRING, &strategy, N_("Fusion strategy: conservative, balanced (default) or aggressive"), N_("STRATEGY") },
    { "max-depth", 0, 0, G_OPTION_ARG_INT, &max_depth, N_("Longest chain of operators in one fusion (default 32)"), N_("N") },
    { "max-fusion-size", 0, 0, G_OPTION_ARG_INT, &max_fusion_size, N_("Most operators in one fusion (default: the profile's, 64)"), N_("N") },
    { "whitelist", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &whitelists, N_("Apply a whitelist of accepted and vetoed fusions after planning (repeatable, in order)"), N_("FILE") },
    { "export-whitelist", 0, 0, G_OPTION_ARG_FILENAME, &export_whitelist, N_("Write the final plan as a whitelist: accepted entries for proposed and accepted fusions, vetoed ones for vetoed, pattern-level decisions kept"), N_("FILE") },
    { "fail-on", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fail_on, N_("Exit with 1 when a condition holds (comma list, repeatable). Only rejected-whitelist so far: an accepted whitelist entry for this model matched nothing or a fusion the planner refused"), N_("LIST") },
    { "max-nodes", 0, 0, G_OPTION_ARG_INT, &max_nodes, N_("Refuse models with more nodes than N (default 5000000)"), N_("N") },
    { "max-nesting", 0, 0, G_OPTION_ARG_INT, &max_nesting, N_("Refuse models nested deeper than N (default 64)"), N_("N") },
    { "max-alloc-mb", 0, 0, G_OPTION_ARG_INT, &max_alloc_mb, N_("Refuse models that would make the reader copy more than N MiB (default 2048)"), N_("N") },
    { "max-tensor-elements", 0, 0, G_OPTION_ARG_INT64, &max_tensor_elements, N_("Refuse tensors claiming more than N elements (default 2^39)"), N_("N") },
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
  if (batch == NULL)
    {
#if FW_HAVE_GUI
      /* Options are checked here; what remains are models for the window to open. */
      return fw_application_run (argc, argv);
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
      max_fusion_size > 4096 || max_alloc_mb < 0 || max_tensor_elements < 0)
    {
      g_printerr ("fusion-workbench: %s\n",
                  _("--max-nodes, --max-nesting, --max-alloc-mb and --max-tensor-elements must be positive, "
                    "--max-depth and --max-fusion-size from 1 to 4096"));
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
      .export_whitelist = export_whitelist,
      .fail_on = fail_on,
    };
    return fw_batch_run (&options);
  }
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  return run_command_line (argc, argv);
}
