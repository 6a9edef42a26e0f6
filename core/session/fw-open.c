/* fw-open.c: profile, rules, whitelists, model, inference, report and plan, in that order, off the main
 * thread or not. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-open.h"
#include "export/fw-graph-dump.h"
#include "fw-error.h"
#include "codegen/ascend/fw-ascend.h"
#include "graph/fw-graph.h"
#include "io/fw-progress.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-decisions.h"
#include "report/fw-model-report.h"
#include "ops/fw-custom-ops.h"
#include "rules/fw-rules.h"
#include "shape/fw-shape-infer.h"

/* Parsing is most of the work; inference and planning share the rest of the bar. */
#define PARSE_SHARE 0.8
#define INFER_SHARE 0.1

struct _FwOpen
{
  GObject        parent_instance;
  char          *path;
  FwOpenOptions  options;
  char          *profile;        /* the copies options points into */
  char          *dump_dir;
  GStrv          rules;
  GStrv          whitelists;
  GStrv          ops;
  FwProgress     progress;
  GStrv          symbols;
  GMainContext  *notify_context;  /* set while an async run is on */
};

enum {
  PROP_0,
  PROP_PATH,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FwOpen, fw_open, G_TYPE_OBJECT)

void
fw_open_options_init (FwOpenOptions *options)
{
  memset (options, 0, sizeof *options);
  fw_plan_options_init (&options->plan);
}

static void
fw_open_finalize (GObject *object)
{
  FwOpen *self = FW_OPEN (object);

  g_clear_pointer (&self->options.bindings, g_hash_table_unref);
  fw_plan_options_clear (&self->options.plan);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->profile, g_free);
  g_clear_pointer (&self->dump_dir, g_free);
  g_clear_pointer (&self->rules, g_strfreev);
  g_clear_pointer (&self->whitelists, g_strfreev);
  g_clear_pointer (&self->ops, g_strfreev);
  g_clear_pointer (&self->symbols, g_strfreev);
  fw_progress_clear (&self->progress);
  G_OBJECT_CLASS (fw_open_parent_class)->finalize (object);
}

static void
fw_open_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwOpen *self = FW_OPEN (object);

  if (fw_progress_get_property (&self->progress, pspec, value))
    return;
  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_open_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwOpen *self = FW_OPEN (object);

  switch (prop_id)
    {
    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_open_class_init (FwOpenClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fw_open_finalize;
  object_class->get_property = fw_open_get_property;
  object_class->set_property = fw_open_set_property;

  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  fw_progress_pspecs (&properties[PROP_FRACTION], &properties[PROP_MESSAGE]);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fw_open_init (FwOpen *self)
{
  fw_progress_init (&self->progress, properties[PROP_FRACTION], properties[PROP_MESSAGE]);
  fw_open_options_init (&self->options);
}

FwOpen *
fw_open_new (const char *path, const FwOpenOptions *options)
{
  FwOpen *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (FW_TYPE_OPEN, "path", path, NULL);
  if (options == NULL)
    return self;
  self->options = *options;
  self->options.plan.skips = fw_node_skips_ref (options->plan.skips);
  if (options->bindings != NULL)
    g_hash_table_ref (options->bindings);
  self->profile = g_strdup (options->profile);
  self->dump_dir = g_strdup (options->dump_dir);
  self->options.dump_dir = self->dump_dir;
  self->rules = g_strdupv ((char **) options->rules);
  self->whitelists = g_strdupv ((char **) options->whitelists);
  self->ops = options->ops ? g_strdupv ((char **) options->ops) : NULL;
  self->options.profile = self->profile;
  self->options.rules = (const char * const *) self->rules;
  self->options.whitelists = (const char * const *) self->whitelists;
  self->options.ops = (const char * const *) self->ops;
  return self;
}

const char *
fw_open_get_path (FwOpen *self)
{
  g_return_val_if_fail (FW_IS_OPEN (self), NULL);
  return self->path;
}

gdouble
fw_open_get_fraction (FwOpen *self)
{
  g_return_val_if_fail (FW_IS_OPEN (self), 0.0);
  return self->progress.fraction;
}

const char *
fw_open_get_message (FwOpen *self)
{
  g_return_val_if_fail (FW_IS_OPEN (self), NULL);
  return self->progress.message;
}

const char * const *
fw_open_get_symbols (FwOpen *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (FW_IS_OPEN (self), NULL);
  return self->symbols ? (const char * const *) self->symbols : none;
}

static void
report_progress (FwOpen *self, gdouble fraction, const char *message)
{
  fw_progress_report (G_OBJECT (self), &self->progress, self->notify_context, fraction, message);
}

static void
on_parse_progress (gdouble fraction, gpointer user_data)
{
  report_progress (user_data, fraction * PARSE_SHARE, NULL);
}

/* The shipped rules, then each file or folder in order; each load is one transaction of the set. */
static FwRuleSet *
load_rules (FwOpen *self, GError **error)
{
  g_autoptr(FwRuleSet) rules = fw_rule_set_new ();

  if (!fw_rule_set_load_builtin (rules, error))
    return NULL;
  for (guint i = 0; self->rules != NULL && self->rules[i] != NULL; i++)
    if (!fw_rule_set_load_path (rules, self->rules[i], error))
      return NULL;
  return g_steal_pointer (&rules);
}

static GPtrArray *
load_whitelists (FwOpen *self, GError **error)
{
  g_autoptr(GPtrArray) whitelists = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_whitelist_free);

  for (guint i = 0; self->whitelists != NULL && self->whitelists[i] != NULL; i++)
    {
      FwWhitelist *w = fw_whitelist_load (self->whitelists[i], error);

      if (w == NULL)
        return NULL;
      g_ptr_array_add (whitelists, w);
    }
  return g_steal_pointer (&whitelists);
}

/* The model with shapes inferred; infer gets what inference found. */
static FwModel *
load_model (FwOpen *self, FwInferReport *infer, GCancellable *cancellable, GError **error)
{
  FwOnnxLoadOptions options = {
    .max_nodes = self->options.max_nodes,
    .max_depth = self->options.max_depth,
    .progress = on_parse_progress,
    .progress_data = self,
    .max_alloc_bytes = self->options.max_alloc,
  };
  FwInferOptions infer_options = { self->options.bindings, 0 };
  g_autoptr(FwModel) model = NULL;

  model = fw_onnx_load (self->path, &options, cancellable, error);
  if (model == NULL)
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  /* Bindings make dims static, so the model's own symbols are read before inference. */
  g_clear_pointer (&self->symbols, g_strfreev);
  self->symbols = fw_graph_collect_symbols (fw_model_get_graph (model));
  report_progress (self, PARSE_SHARE, _("Inferring shapes…"));
  if (!fw_shape_infer_graph (fw_model_get_graph (model), &infer_options, infer, error))
    {
      g_prefix_error (error, "%s: ", self->path);
      return NULL;
    }
  return g_steal_pointer (&model);
}

/* "name=value" per binding, for the session file. */
static GStrv
binding_strings (GHashTable *bindings)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  GHashTableIter iter;
  gpointer key, value;

  if (bindings == NULL)
    return NULL;
  g_hash_table_iter_init (&iter, bindings);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *text = g_strdup_printf ("%s=%" G_GINT64_FORMAT, (const char *) key, *(const gint64 *) value);

      g_strv_builder_add (builder, text);
    }
  return g_strv_builder_end (builder);
}

/* The graph dumps the options or DUMP_GRAPH ask for, at each stage of the job. */
static gboolean
dump (FwOpen *self, FwProject *project, FwGraphDumpStage stage, GError **error)
{
  g_autofree char *from_env = NULL;
  const char *dir = self->options.dump_dir;

  if (dir == NULL)
    {
      if (!fw_graph_dump_dir_from_env (&from_env, error))
        return FALSE;
      dir = from_env;
    }
  return dir == NULL || fw_graph_dump_write (fw_project_get_plan (project), self->path, dir, stage, error);
}

static FwProject *
run (FwOpen *self, GCancellable *cancellable, GError **error)
{
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(GPtrArray) whitelists = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwProject) project = NULL;
  g_autoptr(JsonNode) report = NULL;
  g_auto(GStrv) bindings = NULL;
  FwRuleSet *rules;
  FwInferReport infer;

  fw_progress_begin (G_OBJECT (self), &self->progress, self->notify_context, _("Loading model…"));
  /* Profile and rules before the model: a typo there should not wait for a large model to load. */
  profile = fw_profile_lookup (self->options.profile ? self->options.profile : "ascend-910b", error);
  if (profile == NULL)
    return NULL;
  /* The custom operators before the rules, which resolve op names to registry rows, and the model, whose
     reader gives each node its row. */
  if (self->ops != NULL && !fw_custom_ops_install_paths (self->options.ops, error))
    return NULL;
  rules = load_rules (self, error);
  if (rules == NULL)
    return NULL;
  whitelists = load_whitelists (self, error);
  if (whitelists == NULL)
    {
      fw_rule_set_free (rules);
      return NULL;
    }
  fw_infer_report_init (&infer);
  model = load_model (self, &infer, cancellable, error);
  if (model != NULL)
    report = fw_model_report_build (model, &infer, self->options.bindings, fw_open_get_symbols (self));
  fw_infer_report_clear (&infer);
  if (model == NULL || g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      fw_rule_set_free (rules);
      return NULL;
    }

  report_progress (self, PARSE_SHARE + INFER_SHARE, _("Planning fusions…"));
  /* On an NPU profile the plan prices the Ascend kernels' own buffers, so its UB figures are theirs. */
  if (self->options.plan.arrange == NULL && profile->kind == FW_PROFILE_NPU)
    self->options.plan.arrange = fw_ascend_arrange;
  project = fw_project_new_owning_rules (model, profile, rules, &self->options.plan, error);
  if (project == NULL)
    return NULL;
  fw_project_set_model_report (project, report);
  bindings = binding_strings (self->options.bindings);
  fw_project_set_bindings (project, (const char * const *) bindings);
  if (!dump (self, project, FW_GRAPH_DUMP_LOADED, error) || !dump (self, project, FW_GRAPH_DUMP_PLANNED, error))
    return NULL;
  for (guint i = 0; i < whitelists->len; i++)
    if (!fw_project_apply_whitelist (project, g_ptr_array_index (whitelists, i), error))
      return NULL;
  if (!dump (self, project, FW_GRAPH_DUMP_DECIDED, error))
    return NULL;
  report_progress (self, 1.0, _("Model loaded"));
  return g_steal_pointer (&project);
}

FwProject *
fw_open_run (FwOpen *self, GCancellable *cancellable, GError **error)
{
  g_return_val_if_fail (FW_IS_OPEN (self), NULL);
  return run (self, cancellable, error);
}

static void
run_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  FwProject *project = run (source, cancellable, &error);

  if (project == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, project, g_object_unref);
}

static void
run_done (GObject *source, GParamSpec *pspec, gpointer user_data)
{
  FwOpen *self = FW_OPEN (source);

  g_clear_pointer (&self->notify_context, g_main_context_unref);
}

void
fw_open_run_async (FwOpen *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (FW_IS_OPEN (self));
  g_return_if_fail (self->notify_context == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fw_open_run_async);
  self->notify_context = g_main_context_ref_thread_default ();
  g_signal_connect_object (task, "notify::completed", G_CALLBACK (run_done), self, G_CONNECT_SWAPPED);
  g_task_run_in_thread (task, run_thread);
}

FwProject *
fw_open_run_finish (FwOpen *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (FW_IS_OPEN (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
