/* fw-workbench.c: the scripting face (fw-workbench.h) over the one pipeline: FwOpen to load and plan,
 * FwProject for decisions, FwCheck to verify, FwExport to write, the reports batch mode writes. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "export/fw-export.h"
#include "fw-error.h"
#include "fw-workbench.h"
#include "plan/fw-decisions.h"
#include "report/fw-exec-report.h"
#include "report/fw-model-report.h"
#include "report/fw-plan-report.h"
#include "session/fw-check.h"
#include "session/fw-open.h"

struct _FwFusion
{
  GObject  parent_instance;
  guint    id;
  char    *pattern;
  char    *kind;
  char    *status;
  char   **nodes;
  gdouble  ub_percent;
  gdouble  time_saved_us;
  char    *verification;
};

G_DEFINE_FINAL_TYPE (FwFusion, fw_fusion, G_TYPE_OBJECT)

static void
fw_fusion_finalize (GObject *object)
{
  FwFusion *self = FW_FUSION (object);

  g_free (self->pattern);
  g_free (self->kind);
  g_free (self->status);
  g_strfreev (self->nodes);
  g_free (self->verification);
  G_OBJECT_CLASS (fw_fusion_parent_class)->finalize (object);
}

static void
fw_fusion_class_init (FwFusionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fw_fusion_finalize;
}

static void
fw_fusion_init (FwFusion *self)
{
}

guint fw_fusion_get_id (FwFusion *self) { return self->id; }
const char *fw_fusion_get_pattern (FwFusion *self) { return self->pattern; }
const char *fw_fusion_get_kind (FwFusion *self) { return self->kind; }
const char *fw_fusion_get_status (FwFusion *self) { return self->status; }
const char * const *fw_fusion_get_nodes (FwFusion *self) { return (const char * const *) self->nodes; }
gdouble fw_fusion_get_ub_percent (FwFusion *self) { return self->ub_percent; }
gdouble fw_fusion_get_time_saved_us (FwFusion *self) { return self->time_saved_us; }
const char *fw_fusion_get_verification (FwFusion *self) { return self->verification; }

struct _FwWorkbench
{
  GObject      parent_instance;
  char        *profile;
  FwStrategy   strategy;
  gboolean     enabled;
  GPtrArray   *rules;        /* char* */
  GPtrArray   *whitelists;   /* char* */
  GPtrArray   *ops;          /* char*, operator registries */
  GHashTable  *bindings;     /* name → gint64* */
  FwProject   *project;
  FwCheck     *check;        /* the last verify of the plan's current revision, or NULL */
};

G_DEFINE_FINAL_TYPE (FwWorkbench, fw_workbench, G_TYPE_OBJECT)

static void
fw_workbench_finalize (GObject *object)
{
  FwWorkbench *self = FW_WORKBENCH (object);

  g_free (self->profile);
  g_ptr_array_unref (self->rules);
  g_ptr_array_unref (self->whitelists);
  g_ptr_array_unref (self->ops);
  g_hash_table_unref (self->bindings);
  g_clear_object (&self->check);
  g_clear_object (&self->project);
  G_OBJECT_CLASS (fw_workbench_parent_class)->finalize (object);
}

static void
fw_workbench_class_init (FwWorkbenchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fw_workbench_finalize;
}

static void
fw_workbench_init (FwWorkbench *self)
{
  self->strategy = FW_STRATEGY_BALANCED;
  self->enabled = TRUE;
  self->rules = g_ptr_array_new_with_free_func (g_free);
  self->whitelists = g_ptr_array_new_with_free_func (g_free);
  self->ops = g_ptr_array_new_with_free_func (g_free);
  self->bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

FwWorkbench *
fw_workbench_new (void)
{
  return g_object_new (FW_TYPE_WORKBENCH, NULL);
}

void
fw_workbench_set_profile (FwWorkbench *self, const char *profile)
{
  g_return_if_fail (FW_IS_WORKBENCH (self));
  g_free (self->profile);
  self->profile = g_strdup (profile);
}

gboolean
fw_workbench_set_strategy (FwWorkbench *self, const char *strategy, GError **error)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  if (strategy == NULL || !fw_strategy_from_string (strategy, &self->strategy))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("strategy “%s”: expected conservative, balanced or aggressive"),
                   strategy ? strategy : "");
      return FALSE;
    }
  return TRUE;
}

void
fw_workbench_set_enabled (FwWorkbench *self, gboolean enabled)
{
  g_return_if_fail (FW_IS_WORKBENCH (self));
  self->enabled = enabled;
}

void
fw_workbench_add_rules (FwWorkbench *self, const char *path)
{
  g_return_if_fail (FW_IS_WORKBENCH (self) && path != NULL);
  g_ptr_array_add (self->rules, g_strdup (path));
}

void
fw_workbench_add_whitelist (FwWorkbench *self, const char *path)
{
  g_return_if_fail (FW_IS_WORKBENCH (self) && path != NULL);
  g_ptr_array_add (self->whitelists, g_strdup (path));
}

void
fw_workbench_add_ops (FwWorkbench *self, const char *path)
{
  g_return_if_fail (FW_IS_WORKBENCH (self) && path != NULL);
  g_ptr_array_add (self->ops, g_strdup (path));
}

void
fw_workbench_bind (FwWorkbench *self, const char *name, gint64 value)
{
  g_return_if_fail (FW_IS_WORKBENCH (self) && name != NULL);
  g_hash_table_insert (self->bindings, g_strdup (name), g_memdup2 (&value, sizeof value));
}

static gboolean
need_project (FwWorkbench *self, GError **error)
{
  if (self->project != NULL)
    return TRUE;
  g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("no model is open (call open first)"));
  return FALSE;
}

gboolean
fw_workbench_open (FwWorkbench *self, const char *path, GCancellable *cancellable, GError **error)
{
  FwOpenOptions options;
  g_autoptr(FwOpen) job = NULL;
  g_autoptr(GPtrArray) rules = g_ptr_array_copy (self->rules, (GCopyFunc) (void (*) (void)) g_strdup, NULL);
  g_autoptr(GPtrArray) whitelists = g_ptr_array_copy (self->whitelists, (GCopyFunc) (void (*) (void)) g_strdup, NULL);
  g_autoptr(GPtrArray) ops = g_ptr_array_copy (self->ops, (GCopyFunc) (void (*) (void)) g_strdup, NULL);
  FwProject *project;
  gboolean ok;

  g_return_val_if_fail (FW_IS_WORKBENCH (self) && path != NULL, FALSE);
  g_ptr_array_add (rules, NULL);
  g_ptr_array_add (whitelists, NULL);
  g_ptr_array_add (ops, NULL);
  fw_open_options_init (&options);
  /* The environment first, as batch mode and the window read it; what the script set wins. */
  if (!fw_plan_options_from_env (&options.plan, error))
    return FALSE;
  options.plan.strategy = self->strategy;
  options.plan.enabled = options.plan.enabled && self->enabled;
  options.bindings = self->bindings;
  options.profile = self->profile;
  options.rules = (const char * const *) rules->pdata;
  options.whitelists = (const char * const *) whitelists->pdata;
  /* None added: the registry installed before (by another workbench, say) stays. */
  options.ops = ops->len > 1 ? (const char * const *) ops->pdata : NULL;
  job = fw_open_new (path, &options);
  fw_plan_options_clear (&options.plan);
  project = fw_open_run (job, cancellable, error);
  ok = project != NULL;
  if (ok)
    {
      g_clear_object (&self->check);
      g_clear_object (&self->project);
      self->project = project;
    }
  return ok;
}

guint
fw_workbench_get_n_fusions (FwWorkbench *self)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self), 0);
  return self->project != NULL ? fw_project_get_plan (self->project)->candidates->len : 0;
}

FwFusion *
fw_workbench_get_fusion (FwWorkbench *self, guint index)
{
  GListModel *items;
  const FwCandidate *c;
  FwFusion *f;
  GStrvBuilder *names;
  FwPlan *plan;

  g_return_val_if_fail (FW_IS_WORKBENCH (self), NULL);
  if (index >= fw_workbench_get_n_fusions (self))
    return NULL;
  plan = fw_project_get_plan (self->project);
  c = g_ptr_array_index (plan->candidates, index);
  f = g_object_new (FW_TYPE_FUSION, NULL);
  f->id = c->index;
  f->pattern = g_strdup (c->pattern);
  f->kind = g_strdup (c->kind ? c->kind : c->pattern);
  f->status = g_strdup (fw_candidate_status_name (c->status));
  names = g_strv_builder_new ();
  for (guint n = 0; n < c->nodes->len; n++)
    g_strv_builder_add (names, ((FwNode *) g_ptr_array_index (c->nodes, n))->name);
  f->nodes = g_strv_builder_end (names);
  g_strv_builder_unref (names);
  f->ub_percent = fw_candidate_get_resource (c)->ub_percent;
  f->time_saved_us = fw_candidate_get_cost (c)->saving_s * 1e6;
  /* The project's rows carry what the last check said of each candidate. */
  items = fw_project_get_candidates (self->project);
  for (guint k = 0; k < g_list_model_get_n_items (items) && f->verification == NULL; k++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, k);
      if (fw_candidate_item_get_index (item) == c->index)
        f->verification = g_strdup (fw_candidate_item_get_verification (item));
    }
  if (f->verification == NULL)
    f->verification = g_strdup ("");
  return f;
}

/* A decision changes the plan: an earlier verify no longer speaks for it. */
static gboolean
decided (FwWorkbench *self, gboolean ok)
{
  if (ok)
    g_clear_object (&self->check);
  return ok;
}

gboolean
fw_workbench_accept (FwWorkbench *self, guint id, GError **error)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  return need_project (self, error) && decided (self, fw_project_accept (self->project, id, error));
}

gboolean
fw_workbench_veto (FwWorkbench *self, guint id, GError **error)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  return need_project (self, error) && decided (self, fw_project_veto (self->project, id, error));
}

gboolean
fw_workbench_decide_pattern (FwWorkbench *self, const char *pattern, gboolean accept, GError **error)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self) && pattern != NULL, FALSE);
  return need_project (self, error) &&
         decided (self, fw_project_decide_pattern (self->project, accept ? FW_DECISION_ACCEPT : FW_DECISION_VETO,
                                                   pattern, error));
}

gboolean
fw_workbench_undo (FwWorkbench *self)
{
  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  return self->project != NULL && decided (self, fw_project_undo (self->project));
}

gdouble
fw_workbench_get_saving_percent (FwWorkbench *self)
{
  FwPlan *plan;

  g_return_val_if_fail (FW_IS_WORKBENCH (self), 0);
  if (self->project == NULL)
    return 0;
  plan = fw_project_get_plan (self->project);
  return plan->before.time_s > 0 ? 100.0 * (plan->before.time_s - plan->after.time_s) / plan->before.time_s : 0;
}

gboolean
fw_workbench_verify (FwWorkbench *self, GCancellable *cancellable, GError **error)
{
  FwCheckOptions options;
  g_autoptr(FwCheck) check = NULL;

  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  if (!need_project (self, error))
    return FALSE;
  fw_check_options_init (&options);
  options.verify = TRUE;
  options.twin = TRUE;
  options.without_kernels = TRUE;
  check = fw_check_new (self->project, &options);
  if (!fw_check_run (check, cancellable, error))
    return FALSE;
  fw_check_apply (check);
  g_set_object (&self->check, check);
  return TRUE;
}

gboolean
fw_workbench_get_verified (FwWorkbench *self)
{
  FwVerifyResult *v;

  g_return_val_if_fail (FW_IS_WORKBENCH (self), FALSE);
  if (self->check == NULL)
    return FALSE;
  v = fw_check_get_verify (self->check);
  return v != NULL && v->pass && fw_check_get_n_failed (self->check) == 0;
}

gboolean
fw_workbench_export (FwWorkbench *self, const char *dir, GCancellable *cancellable, GError **error)
{
  FwExportOptions options;
  g_autoptr(FwExport) export = NULL;

  g_return_val_if_fail (FW_IS_WORKBENCH (self) && dir != NULL, FALSE);
  if (!need_project (self, error))
    return FALSE;
  fw_export_options_init (&options);
  options.model_report = fw_project_get_model_report (self->project);
  if (self->check != NULL)
    {
      options.targets = fw_check_get_targets (self->check);
      options.verify = fw_check_get_verify (self->check);
      options.measure = fw_check_get_measure (self->check);
    }
  export = fw_export_new (fw_project_get_model (self->project), fw_project_get_plan (self->project), dir, &options);
  return fw_export_run (export, cancellable, error);
}

char *
fw_workbench_get_report (FwWorkbench *self)
{
  g_autoptr(JsonNode) report = NULL;
  FwPlan *plan;

  g_return_val_if_fail (FW_IS_WORKBENCH (self), NULL);
  if (self->project == NULL)
    return g_strdup ("{}");
  plan = fw_project_get_plan (self->project);
  report = json_node_copy (fw_project_get_model_report (self->project));
  fw_plan_report_add (report, plan);
  fw_exec_report_add (report, plan, self->check ? fw_check_get_targets (self->check) : NULL,
                      self->check ? fw_check_get_verify (self->check) : NULL,
                      self->check ? fw_check_get_measure (self->check) : NULL);
  return fw_model_report_format (report, FW_REPORT_JSON);
}
