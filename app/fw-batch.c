#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "fw-batch.h"
#include "codegen/fw-kernel-package.h"
#include "export/fw-export.h"
#include "export/fw-fused-model.h"
#include "layout/fw-layout.h"
#include "fw-error.h"
#include "io/fw-file-write.h"
#include "plan/fw-decisions.h"
#include "report/fw-model-report.h"
#include "report/fw-exec-report.h"
#include "report/fw-plan-report.h"
#include "report/fw-superkernel-report.h"
#include "report/fw-model-explorer.h"
#include "report/fw-render.h"
#include "report/fw-roofline.h"
#include "session/fw-check.h"
#include "session/fw-open.h"

static int
exit_code_for (const GError *error)
{
  if (error->domain == FW_ERROR && error->code == FW_ERROR_INTERNAL)
    return FW_EXIT_INTERNAL;
  return FW_EXIT_BAD_INPUT;
}

/* Any long operation's `fraction` and `message` (FwOpen, FwCheck, FwExport). */
static void
on_progress (GObject *task, GParamSpec *pspec, gpointer user_data)
{
  g_autofree char *message = NULL;
  gdouble fraction = 0;

  g_object_get (task, "fraction", &fraction, "message", &message, NULL);
  fprintf (stderr, "\r\033[K%s %3.0f%%", message ? message : "", 100.0 * fraction);
}

/* A progress line only on a terminal: CI logs and pipes get deterministic output. */
static void
follow_progress (gpointer task)
{
  if (isatty (STDERR_FILENO))
    g_signal_connect (task, "notify::fraction", G_CALLBACK (on_progress), NULL);
}

static void
progress_done (void)
{
  if (isatty (STDERR_FILENO))
    fprintf (stderr, "\r\033[K");
}

static gboolean
parse_bindings (char **binds, GHashTable *out, GError **error)
{
  for (guint i = 0; binds && binds[i]; i++)
    {
      const char *eq = strchr (binds[i], '=');
      g_autofree char *name = NULL;
      const char *text;
      char *end = NULL;
      gint64 value;

      if (eq == NULL || eq == binds[i])
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("--bind “%s”: expected NAME=VALUE, e.g. --bind batch=8"), binds[i]);
          return FALSE;
        }
      name = g_strndup (binds[i], eq - binds[i]);
      text = eq + 1;
      errno = 0;
      value = g_ascii_strtoll (text, &end, 10);
      if (errno != 0 || end == text || *end != '\0' || value < 1 || value > (G_GINT64_CONSTANT (1) << 40))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("--bind “%s”: the value must be a positive integer"), binds[i]);
          return FALSE;
        }
      g_hash_table_insert (out, g_steal_pointer (&name), g_memdup2 (&value, sizeof value));
    }
  return TRUE;
}

static gboolean
choose_format (const FwBatchOptions *options, FwReportFormat *out, GError **error)
{
  const char *format = options->format;

  if (format == NULL)
    {
      const char *path = options->report_path;
      *out = path && (g_str_has_suffix (path, ".json")) ? FW_REPORT_JSON : FW_REPORT_MARKDOWN;
      return TRUE;
    }
  if (g_ascii_strcasecmp (format, "json") == 0)
    *out = FW_REPORT_JSON;
  else if (g_ascii_strcasecmp (format, "markdown") == 0 || g_ascii_strcasecmp (format, "md") == 0)
    *out = FW_REPORT_MARKDOWN;
  else
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("--format “%s”: expected json or markdown"), format);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_report (const char *path, const char *text, GError **error)
{
  if (path == NULL || strcmp (path, "-") == 0)
    {
      fputs (text, stdout);
      fflush (stdout);
      return TRUE;
    }
  return fw_file_write (path, text, -1, error);
}

/* A binding that matches no dim is most likely a typo; say so, with the names that exist. */
static void
warn_unused_bindings (JsonNode *report, const char * const *symbols)
{
  JsonArray *unused = json_object_get_array_member (json_node_get_object (report), "bindings_unused");
  g_autofree char *known = g_strjoinv (", ", (char **) symbols);

  for (guint i = 0; i < json_array_get_length (unused); i++)
    g_printerr (_("fusion-workbench: warning: --bind %s: the model has no symbolic dim of that name (it has: %s)\n"),
                json_array_get_string_element (unused, i), known[0] ? known : _("none"));
}

/* Environment first (AUTOFUSION_*), then the command line, which wins. */
static gboolean
plan_options_for (const FwBatchOptions *options, FwPlanOptions *out, GError **error)
{
  fw_plan_options_init (out);
  if (!fw_plan_options_from_env (out, error))
    return FALSE;
  if (options->strategy != NULL && !fw_strategy_from_string (options->strategy, &out->strategy))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                   _("--strategy “%s”: expected conservative, balanced or aggressive"), options->strategy);
      return FALSE;
    }
  if (options->fusion_depth > 0)
    out->max_depth = options->fusion_depth;
  if (options->max_fusion_size > 0)
    out->max_fusion_size = options->max_fusion_size;
  return TRUE;
}

typedef struct
{
  gboolean mismatch;
  gboolean regression;
  gboolean rejected_whitelist;
} FailOn;

/* A measured figure counts as a regression only past these margins: timings on a shared machine wobble by a
 * few per cent, and a small kernel's by more. */
#define REGRESSION_MODEL_MARGIN 1.05
#define REGRESSION_KERNEL_MARGIN 1.10

/* --fail-on and --target take comma lists, repeatable. */
static gboolean
parse_fail_on (char **lists, FailOn *out, GError **error)
{
  memset (out, 0, sizeof *out);
  for (guint i = 0; lists && lists[i]; i++)
    {
      g_auto(GStrv) items = g_strsplit (lists[i], ",", -1);
      for (guint k = 0; items[k]; k++)
        {
          const char *item = g_strstrip (items[k]);
          if (strcmp (item, "rejected-whitelist") == 0)
            out->rejected_whitelist = TRUE;
          else if (strcmp (item, "mismatch") == 0)
            out->mismatch = TRUE;
          else if (strcmp (item, "regression") == 0)
            out->regression = TRUE;
          else
            {
              g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                           _("--fail-on “%s”: expected mismatch, regression or rejected-whitelist"), item);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
parse_targets (char **lists, gboolean *host, gboolean *ascend, GError **error)
{
  *host = *ascend = FALSE;
  for (guint i = 0; lists && lists[i]; i++)
    {
      g_auto(GStrv) items = g_strsplit (lists[i], ",", -1);
      for (guint k = 0; items[k]; k++)
        {
          const char *item = g_strstrip (items[k]);
          if (strcmp (item, "host") == 0)
            *host = TRUE;
          else if (strcmp (item, "ascend") == 0)
            *ascend = TRUE;
          else
            {
              g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("--target “%s”: expected host or ascend"), item);
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* The fused model, the whitelist and (with targets) the kernel package, as the window's export dialog
 * writes them; the report goes to --report. */
static gboolean
export_all (const FwBatchOptions *options, FwProject *project, FwCheck *check, const FwSkPlan *sk, GError **error)
{
  FwExportOptions export_options;
  g_autoptr(FwExport) export = NULL;

  fw_export_options_init (&export_options);
  export_options.report = FALSE;
  export_options.kernels = check != NULL;
  if (check != NULL)
    {
      export_options.targets = fw_check_get_targets (check);
      export_options.verify = fw_check_get_verify (check);
      export_options.measure = fw_check_get_measure (check);
    }
  export_options.model_report = fw_project_get_model_report (project);
  export_options.superkernel = sk;
  export = fw_export_new (fw_project_get_model (project), fw_project_get_plan (project), options->export_dir,
                          &export_options);
  follow_progress (export);
  if (!fw_export_run (export, NULL, error))
    return FALSE;
  progress_done ();
  return TRUE;
}

/* AUTOFUSE_DFX_FLAGS --codegen_compile_debug: every kernel's sources and tiling (the kernel package) and
 * the compiler lines under DIR/autofuse_compile_debug/, where CANN keeps its own. */
static gboolean
keep_compile_debug (const FwCannDebug *debug, FwPlan *plan, FwCheck *check, GError **error)
{
  g_autofree char *dir = g_build_filename (debug->debug_dir, "autofuse_compile_debug", NULL);
  g_autofree char *path = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);
  FwTargets *targets = fw_check_get_targets (check);

  if (g_mkdir_with_parents (debug->debug_dir, 0755) != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("AUTOFUSE_DFX_FLAGS --debug_dir %s: %s"), debug->debug_dir,
                   g_strerror (errno));
      return FALSE;
    }
  if (!fw_kernel_package_check_destination (plan, dir, error) || !fw_fused_model_write_kernel_package (plan, targets, dir, error))
    return FALSE;
  if (targets->toolchain != NULL)
    g_string_append_printf (lines, "compiler: %s\nversion: %s\nflags: %s\n",
                            fw_host_toolchain_get_compiler (targets->toolchain),
                            fw_host_toolchain_get_version (targets->toolchain),
                            fw_host_toolchain_get_flags (targets->toolchain));
  else
    g_string_append_printf (lines, "compiler: none (%s)\n", targets->toolchain_error ? targets->toolchain_error : "");
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      const FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      for (guint t = 0; t < FW_N_TARGETS; t++)
        if (k->errors[t] != NULL)
          g_string_append_printf (lines, "candidate %u, %s: %s\n", k->candidate, fw_target_name (t), k->errors[t]);
    }
  path = g_build_filename (dir, "compile.txt", NULL);
  return fw_file_write (path, lines->str, (gssize) lines->len, error);
}

/* Kernels for the asked targets, then verification and measurement: the window's Compile and Verify. */
static FwCheck *
check_all (const FwBatchOptions *options, FwProject *project, gboolean host, gboolean ascend,
           const FwTolerance *tolerance, FwVerifyPolicy policy, const FwSkPlan *sk, GError **error)
{
  FwCheckOptions check_options;
  g_autoptr(FwCheck) check = NULL;

  fw_check_options_init (&check_options);
  check_options.host = host;
  check_options.ascend = ascend;
  check_options.verify = options->verify;
  check_options.twin = TRUE;
  check_options.measure = options->measure;
  /* The report has verification and measurement sections whenever they were asked for. */
  check_options.without_kernels = TRUE;
  check_options.seed = (guint64) options->seed;
  check_options.has_tolerance = options->tolerance != NULL;
  check_options.tolerance = *tolerance;
  check_options.verify_policy = policy;
  check_options.n_threads = (guint) options->threads;
  check_options.repeats = (guint) options->repeats;
  check_options.cache_dir = options->kernel_cache;
  /* With the Ascend target, verification runs each scope's SuperKernel on the twin too. */
  check_options.superkernel = sk;
  check = fw_check_new (project, &check_options);
  follow_progress (check);
  if (!fw_check_run (check, NULL, error))
    return NULL;
  progress_done ();
  return g_steal_pointer (&check);
}

/* The preferences' operator registries, as the desktop reads them, when the schema is installed (or
 * GSETTINGS_SCHEMA_DIR names it); without it there are no saved preferences to honour. */
static GStrv
saved_ops (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = source ? g_settings_schema_source_lookup (source, APP_ID, TRUE) : NULL;
  g_autoptr(GSettings) settings = NULL;

  if (schema == NULL || !g_settings_schema_has_key (schema, "ops"))
    return NULL;
  settings = g_settings_new_full (schema, NULL, NULL);
  return g_settings_get_strv (settings, "ops");
}

static GStrv
ops_paths (const FwBatchOptions *options)
{
  g_auto(GStrv) saved = saved_ops ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (saved != NULL)
    g_strv_builder_addv (builder, (const char **) saved);
  if (options->ops != NULL)
    g_strv_builder_addv (builder, (const char **) options->ops);
  return g_strv_builder_end (builder);
}

/* Profile, rules, whitelists, model and plan: the window's way of opening a model (core/session/fw-open.c). */
static FwProject *
open_model (const FwBatchOptions *options, GHashTable *bindings, const FwPlanOptions *plan_options,
            GError **error)
{
  FwOpenOptions open_options;
  g_autoptr(FwOpen) job = NULL;
  g_autoptr(FwProject) project = NULL;
  g_auto(GStrv) ops = ops_paths (options);

  fw_open_options_init (&open_options);
  open_options.bindings = bindings;
  open_options.max_nodes = MAX (options->max_nodes, 0);
  open_options.max_depth = MAX (options->max_nesting, 0);
  open_options.max_alloc = (guint64) MAX (options->max_alloc_mb, 0) << 20;
  open_options.profile = options->profile;
  open_options.rules = (const char * const *) options->rules;
  open_options.whitelists = (const char * const *) options->whitelists;
  open_options.ops = (const char * const *) ops;
  open_options.plan = *plan_options;
  open_options.dump_dir = options->dump_graph;
  job = fw_open_new (options->model_path, &open_options);
  follow_progress (job);
  project = fw_open_run (job, NULL, error);
  progress_done ();
  if (project != NULL)
    warn_unused_bindings (fw_project_get_model_report (project), fw_open_get_symbols (job));
  return g_steal_pointer (&project);
}

/* The input model (or its data) must survive a mistyped output path. */
static gboolean
check_out_paths (const FwBatchOptions *options, FwModel *model, GError **error)
{
  const char *out_paths[] = { options->report_path, options->export_whitelist, options->render,
                              options->roofline, options->summary };

  for (guint i = 0; i < G_N_ELEMENTS (out_paths); i++)
    if (out_paths[i] != NULL && strcmp (out_paths[i], "-") != 0 && fw_model_is_source_file (model, out_paths[i]))
      {
        g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                     _("%s: refusing to overwrite the input model or its external data; choose another file name"),
                     out_paths[i]);
        return FALSE;
      }
  return TRUE;
}

static gboolean
draw_pictures (const FwBatchOptions *options, FwModel *model, FwPlan *plan, GError **error)
{
  if (options->render != NULL)
    {
      g_autoptr(FwLayout) layout = fw_layout_new (fw_model_get_graph (model), NULL);

      if (!fw_layout_compute (layout, NULL, error) || !fw_render_graph (layout, plan, options->render, error))
        return FALSE;
    }
  if (options->roofline != NULL && !fw_render_roofline (plan, options->roofline, error))
    return FALSE;
  if (options->summary != NULL && !fw_render_summary (plan, options->summary, error))
    return FALSE;
  return TRUE;
}

/* --model-explorer DIR: MODEL.model-explorer.json and its node data files, named after the model. */
static gboolean
write_model_explorer (const FwBatchOptions *options, FwPlan *plan, FwMeasureResult *measure, GError **error)
{
  g_autofree char *base = g_path_get_basename (options->model_path);

  if (g_str_has_suffix (base, ".onnx"))
    base[strlen (base) - strlen (".onnx")] = '\0';
  return fw_model_explorer_write (plan, measure, options->model_explorer, base, NULL, error);
}

/* The --fail-on conditions that hold, each said on stderr; TRUE when any does. */
/* --superkernel, --superkernel-scope, --no-superkernel and --superkernel-max-kernels; *wanted FALSE when no
 * scopes were asked for here (the report then has no superkernel member unless the plan's decisions made
 * scopes). */
static gboolean
superkernel_options_for (const FwBatchOptions *options, FwSkOptions *out, gboolean *wanted, GError **error)
{
  fw_sk_options_init (out);
  *wanted = options->superkernel_scopes != NULL;
  if (options->superkernel != NULL)
    {
      if (g_strcmp0 (options->superkernel, "auto") == 0)
        *wanted = TRUE;
      else if (g_strcmp0 (options->superkernel, "off") == 0)
        *wanted = FALSE;
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("unknown --superkernel “%s” (known: auto, off)"),
                       options->superkernel);
          return FALSE;
        }
    }
  if (options->superkernel_max_kernels < 0 || options->superkernel_max_kernels == 1 ||
      options->superkernel_max_kernels > 100000)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s",
                   _("--superkernel-max-kernels must be from 2 to 100000"));
      return FALSE;
    }
  for (guint i = 0; options->superkernel_scopes && options->superkernel_scopes[i]; i++)
    if (options->superkernel_scopes[i][0] == '\0')
      {
        g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s", _("--superkernel-scope needs a name scope, e.g. /encoder"));
        return FALSE;
      }
  out->scopes = options->superkernel_scopes;
  out->excluded = options->no_superkernel;
  out->max_kernels = (guint) options->superkernel_max_kernels;
  return TRUE;
}

static gboolean
report_fail_on (const FailOn *fail_on, FwPlan *plan, FwCheck *check)
{
  FwTargets *targets = check ? fw_check_get_targets (check) : NULL;
  FwVerifyResult *verify = check ? fw_check_get_verify (check) : NULL;
  FwMeasureResult *measure = check ? fw_check_get_measure (check) : NULL;
  gboolean rejected = fail_on->rejected_whitelist && fw_plan_whitelist_rejected (plan);
  gboolean mismatch = FALSE, regression = FALSE;

  if (fail_on->mismatch)
    {
      mismatch = !verify->pass;
      for (guint i = 0; targets && i < targets->kernels->len; i++)
        {
          const FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
          /* An Ascend kernel that failed on the twin, or gave a diagnostic there, is a mismatch too. */
          mismatch |= !k->host_compiled || (k->twin != NULL && !k->twin->pass);
        }
      /* So is a SuperKernel scope's Ascend source that failed there. */
      for (guint i = 0; check && fw_check_get_scope_twin (check) && i < fw_check_get_scope_twin (check)->len; i++)
        mismatch |= !((FwTwinCheck *) g_ptr_array_index (fw_check_get_scope_twin (check), i))->pass;
    }
  if (fail_on->regression)
    {
      /* The paired speed-ups (fw_measure_time_pair): a drift of the machine's load between the two sides'
         series would otherwise fail a CI job that changed nothing. */
      regression = measure->speedup * REGRESSION_MODEL_MARGIN < 1.0;
      for (guint i = 0; i < measure->kernels->len; i++)
        {
          const FwKernelTiming *k = &g_array_index (measure->kernels, FwKernelTiming, i);
          regression |= k->measured_speedup * REGRESSION_KERNEL_MARGIN < 1.0;
        }
    }
  if (rejected)
    g_printerr ("fusion-workbench: %s\n",
                _("--fail-on rejected-whitelist: an accepted whitelist entry matched nothing or a candidate "
                  "the planner refused (see plan.whitelist in the report)"));
  if (mismatch)
    g_printerr ("fusion-workbench: %s\n",
                _("--fail-on mismatch: a fused group or a model output is outside tolerance, or a fused group "
                  "has no verified kernel (see verification and targets in the report)"));
  if (regression)
    g_printerr ("fusion-workbench: %s\n",
                _("--fail-on regression: the fused model or a SuperKernel measured slower than unfused "
                  "(see measurement in the report)"));
  return rejected || mismatch || regression;
}

/* The scopes' host programs, compiled with the host kernels' toolchain, then verified and measured as the
 * run asks (docs/superkernel.md, "Host target"). */
static gboolean
check_host_scopes (const FwBatchOptions *options, FwPlan *plan, const FwSkPlan *sk, FwCheck *check,
                   const FwTolerance *tolerance, FwHostScopes **scopes, FwScopeCheckResult **result, GError **error)
{
  FwTargets *targets = fw_check_get_targets (check);
  g_autoptr(GPtrArray) kernels = NULL;
  g_autoptr(GPtrArray) scope_kernels = NULL;
  FwScopeCheckOptions check_options = { 0 };

  *scopes = fw_host_scopes_build (plan, sk);
  if (targets == NULL || targets->toolchain == NULL)
    return TRUE;
  if (!fw_host_scopes_compile (*scopes, targets->toolchain, NULL, error))
    return FALSE;
  if (!options->verify && !options->measure)
    return TRUE;
  kernels = fw_targets_group_kernels (targets);
  scope_kernels = fw_host_scopes_kernels (*scopes);
  check_options.seed = (guint64) options->seed;
  check_options.has_tolerance = options->tolerance != NULL;
  check_options.tolerance = *tolerance;
  check_options.n_threads = (guint) options->threads;
  check_options.verify = options->verify;
  check_options.measure = options->measure;
  check_options.repeats = (guint) options->repeats;
  *result = fw_scope_check_run (plan, kernels, scope_kernels, &check_options, error);
  return *result != NULL;
}

int
fw_batch_run (const FwBatchOptions *options)
{
  FailOn fail_on;
  gboolean want_host = FALSE, want_ascend = FALSE;
  FwTolerance tolerance = { 0 };
  FwVerifyPolicy policy = FW_VERIFY_POLICY_AUTO;
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProject) project = NULL;
  g_autoptr(FwCheck) check = NULL;
  g_auto(FwPlanOptions) plan_options = { 0 };
  g_auto(FwCannDebug) cann_debug = { 0 };
  FwModel *model;
  FwPlan *plan;
  JsonNode *report;
  g_autofree char *text = NULL;
  FwReportFormat format;
  FwSkOptions sk_options;
  gboolean want_sk = FALSE;
  g_autoptr(FwSkPlan) sk = NULL;
  g_autoptr(FwHostScopes) host_scopes = NULL;
  g_autoptr(FwScopeCheckResult) scope_check = NULL;
  gboolean failed_on;

  if (!parse_bindings (options->binds, bindings, &error) || !choose_format (options, &format, &error) ||
      !plan_options_for (options, &plan_options, &error) || !fw_cann_debug_from_env (&cann_debug, &error) ||
      !parse_fail_on (options->fail_on, &fail_on, &error) ||
      !parse_targets (options->targets, &want_host, &want_ascend, &error) ||
      !superkernel_options_for (options, &sk_options, &want_sk, &error) ||
      (options->tolerance != NULL && !fw_tolerance_parse (options->tolerance, &tolerance, &error)) ||
      (options->verify_policy != NULL && !fw_verify_policy_parse (options->verify_policy, &policy, &error)))
    goto fail;
  if (fail_on.mismatch && !options->verify)
    {
      g_set_error (&error, FW_ERROR, FW_ERROR_USAGE, _("--fail-on mismatch needs --verify"));
      goto fail;
    }
  if (fail_on.regression && !options->measure)
    {
      g_set_error (&error, FW_ERROR, FW_ERROR_USAGE, _("--fail-on regression needs --measure"));
      goto fail;
    }
  /* Verifying and measuring run host SuperKernels; an export without a target packages both. */
  if (options->verify || options->measure)
    want_host = TRUE;
  if ((options->export_dir != NULL && options->targets == NULL) || cann_debug.compile_debug)
    want_host = want_ascend = TRUE;

  project = open_model (options, bindings, &plan_options, &error);
  if (project == NULL)
    goto fail;
  model = fw_project_get_model (project);
  plan = fw_project_get_plan (project);
  if (!check_out_paths (options, model, &error))
    goto fail;
  if (options->export_whitelist != NULL)
    {
      g_autofree char *base = g_path_get_basename (options->model_path);
      g_autoptr(FwWhitelist) out = fw_whitelist_from_plan (plan, base);
      if (!fw_whitelist_save (out, options->export_whitelist, &error))
        goto fail;
    }
  /* Scopes bind the kernels of the plan as decided; scopes a whitelist or session made ask for them too. */
  if (!want_sk && g_strcmp0 (options->superkernel, "off") != 0)
    {
      g_autoptr(GPtrArray) decided = fw_plan_get_user_scopes (plan);
      want_sk = decided->len > 0;
    }
  if (want_sk && !(sk = fw_sk_plan_build (plan, &sk_options, &error)))
    goto fail;
  if ((want_host || want_ascend) &&
      !(check = check_all (options, project, want_host, want_ascend, &tolerance, policy, sk, &error)))
    goto fail;
  if (sk != NULL && check != NULL && want_host &&
      !check_host_scopes (options, plan, sk, check, &tolerance, &host_scopes, &scope_check, &error))
    goto fail;
  if (cann_debug.compile_debug && !keep_compile_debug (&cann_debug, plan, check, &error))
    goto fail;
  if (options->export_dir != NULL && !export_all (options, project, check, sk, &error))
    goto fail;
  if (!draw_pictures (options, model, plan, &error))
    goto fail;
  if (options->model_explorer != NULL &&
      !write_model_explorer (options, plan, check ? fw_check_get_measure (check) : NULL, &error))
    goto fail;
  /* The project's model report is batch's own to finish: nothing else reads it after this. */
  report = fw_project_get_model_report (project);
  fw_plan_report_add (report, plan);
  if (sk != NULL)
    fw_superkernel_report_add (report, sk);
  if (host_scopes != NULL)
    fw_superkernel_report_add_host (report, host_scopes, scope_check);
  if (sk != NULL && check != NULL && fw_check_get_scope_twin (check) != NULL)
    fw_superkernel_report_add_twin (report, fw_check_get_scope_twin (check));
  fw_exec_report_add (report, plan, check ? fw_check_get_targets (check) : NULL,
                      check ? fw_check_get_verify (check) : NULL, check ? fw_check_get_measure (check) : NULL);
  text = fw_model_report_format (report, format);
  if (!write_report (options->report_path, text, &error))
    goto fail;
  failed_on = report_fail_on (&fail_on, plan, check);
  if (fail_on.mismatch && scope_check != NULL && !scope_check->pass)
    {
      g_printerr ("fusion-workbench: %s\n",
                  _("--fail-on mismatch: a SuperKernel scope's host program is outside tolerance (see "
                    "superkernel.host in the report)"));
      failed_on = TRUE;
    }
  return failed_on ? FW_EXIT_FAIL_ON : FW_EXIT_OK;

fail:
  progress_done ();
  g_printerr ("fusion-workbench: %s\n", error->message);
  return exit_code_for (error);
}
