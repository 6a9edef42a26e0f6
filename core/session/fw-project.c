/* fw-project.c: the project the window observes: plan, decisions with undo and redo, the candidate items
 * and the autosaved session. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-project.h"
#include "fw-project-private.h"
#include "fw-autosave.h"
#include "fw-kernel-sources.h"
#include "fw-error.h"
#include "fw-session.h"
#include "graph/fw-graph.h"
#include "plan/fw-decisions.h"

/* ---- FwCandidateItem ---- */

struct _FwCandidateItem
{
  GObject  parent_instance;
  guint    index;
  char    *pattern;
  guint    n_nodes;
  gdouble  ub_percent;
  gdouble  bytes_saved;
  guint    launches_saved;
  gdouble  time_saved_us;
  gdouble  measured_saved_us;
  char    *verification;
  char    *twin;
  char    *status;
  char    *search_text;
  char    *body;
  char    *location;
};

G_DEFINE_FINAL_TYPE (FwCandidateItem, fw_candidate_item, G_TYPE_OBJECT)

enum {
  ITEM_PROP_0,
  ITEM_PROP_INDEX,
  ITEM_PROP_PATTERN,
  ITEM_PROP_N_NODES,
  ITEM_PROP_UB_PERCENT,
  ITEM_PROP_BYTES_SAVED,
  ITEM_PROP_LAUNCHES_SAVED,
  ITEM_PROP_TIME_SAVED_US,
  ITEM_PROP_MEASURED_SAVED_US,
  ITEM_PROP_VERIFICATION,
  ITEM_PROP_TWIN,
  ITEM_PROP_STATUS,
  ITEM_PROP_SEARCH_TEXT,
  ITEM_PROP_BODY,
  ITEM_PROP_LOCATION,
  ITEM_N_PROPS
};

static GParamSpec *item_properties[ITEM_N_PROPS];

static void
fw_candidate_item_finalize (GObject *object)
{
  FwCandidateItem *self = FW_CANDIDATE_ITEM (object);

  g_free (self->pattern);
  g_free (self->verification);
  g_free (self->twin);
  g_free (self->status);
  g_free (self->search_text);
  g_free (self->body);
  g_free (self->location);
  G_OBJECT_CLASS (fw_candidate_item_parent_class)->finalize (object);
}

static void
fw_candidate_item_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwCandidateItem *self = FW_CANDIDATE_ITEM (object);

  switch (prop_id)
    {
    case ITEM_PROP_INDEX: g_value_set_uint (value, self->index); break;
    case ITEM_PROP_PATTERN: g_value_set_string (value, self->pattern); break;
    case ITEM_PROP_N_NODES: g_value_set_uint (value, self->n_nodes); break;
    case ITEM_PROP_UB_PERCENT: g_value_set_double (value, self->ub_percent); break;
    case ITEM_PROP_BYTES_SAVED: g_value_set_double (value, self->bytes_saved); break;
    case ITEM_PROP_LAUNCHES_SAVED: g_value_set_uint (value, self->launches_saved); break;
    case ITEM_PROP_TIME_SAVED_US: g_value_set_double (value, self->time_saved_us); break;
    case ITEM_PROP_MEASURED_SAVED_US: g_value_set_double (value, self->measured_saved_us); break;
    case ITEM_PROP_VERIFICATION: g_value_set_string (value, self->verification); break;
    case ITEM_PROP_TWIN: g_value_set_string (value, self->twin); break;
    case ITEM_PROP_STATUS: g_value_set_string (value, self->status); break;
    case ITEM_PROP_SEARCH_TEXT: g_value_set_string (value, self->search_text); break;
    case ITEM_PROP_BODY: g_value_set_string (value, self->body); break;
    case ITEM_PROP_LOCATION: g_value_set_string (value, self->location); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_candidate_item_class_init (FwCandidateItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = fw_candidate_item_finalize;
  object_class->get_property = fw_candidate_item_get_property;

  item_properties[ITEM_PROP_INDEX] = g_param_spec_uint ("index", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_PATTERN] = g_param_spec_string ("pattern", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_N_NODES] = g_param_spec_uint ("n-nodes", NULL, NULL, 0, G_MAXUINT, 0, flags);
  item_properties[ITEM_PROP_UB_PERCENT] = g_param_spec_double ("ub-percent", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE,
                                                               0, flags);
  item_properties[ITEM_PROP_BYTES_SAVED] = g_param_spec_double ("bytes-saved", NULL, NULL, -G_MAXDOUBLE,
                                                                G_MAXDOUBLE, 0, flags);
  item_properties[ITEM_PROP_LAUNCHES_SAVED] = g_param_spec_uint ("launches-saved", NULL, NULL, 0, G_MAXUINT, 0,
                                                                 flags);
  item_properties[ITEM_PROP_TIME_SAVED_US] = g_param_spec_double ("time-saved-us", NULL, NULL, -G_MAXDOUBLE,
                                                                  G_MAXDOUBLE, 0, flags);
  /* NaN is outside any range a GParamSpecDouble can state, so the range is left open. */
  item_properties[ITEM_PROP_MEASURED_SAVED_US] = g_param_spec_double ("measured-saved-us", NULL, NULL,
                                                                      -G_MAXDOUBLE, G_MAXDOUBLE, 0, flags);
  item_properties[ITEM_PROP_VERIFICATION] = g_param_spec_string ("verification", NULL, NULL, "", flags);
  item_properties[ITEM_PROP_TWIN] = g_param_spec_string ("twin", NULL, NULL, "", flags);
  item_properties[ITEM_PROP_STATUS] = g_param_spec_string ("status", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_SEARCH_TEXT] = g_param_spec_string ("search-text", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_BODY] = g_param_spec_string ("body", NULL, NULL, NULL, flags);
  item_properties[ITEM_PROP_LOCATION] = g_param_spec_string ("location", NULL, NULL, "", flags);
  g_object_class_install_properties (object_class, ITEM_N_PROPS, item_properties);
}

static void
fw_candidate_item_init (FwCandidateItem *self)
{
  self->measured_saved_us = NAN;
  self->verification = g_strdup ("");
  self->twin = g_strdup ("");
}

guint fw_candidate_item_get_index (FwCandidateItem *self) { return self->index; }
const char *fw_candidate_item_get_pattern (FwCandidateItem *self) { return self->pattern; }
guint fw_candidate_item_get_n_nodes (FwCandidateItem *self) { return self->n_nodes; }
gdouble fw_candidate_item_get_ub_percent (FwCandidateItem *self) { return self->ub_percent; }
gdouble fw_candidate_item_get_bytes_saved (FwCandidateItem *self) { return self->bytes_saved; }
guint fw_candidate_item_get_launches_saved (FwCandidateItem *self) { return self->launches_saved; }
gdouble fw_candidate_item_get_time_saved_us (FwCandidateItem *self) { return self->time_saved_us; }
gdouble fw_candidate_item_get_measured_saved_us (FwCandidateItem *self) { return self->measured_saved_us; }
const char *fw_candidate_item_get_verification (FwCandidateItem *self) { return self->verification; }
const char *fw_candidate_item_get_twin (FwCandidateItem *self) { return self->twin; }
const char *fw_candidate_item_get_status (FwCandidateItem *self) { return self->status; }
const char *fw_candidate_item_get_search_text (FwCandidateItem *self) { return self->search_text; }
const char *fw_candidate_item_get_body (FwCandidateItem *self) { return self->body; }
const char *fw_candidate_item_get_location (FwCandidateItem *self) { return self->location ? self->location : ""; }

/* Where the candidate sits in the model: the name scope its nodes share ("encoder/layer.3/attention"),
 * cut at a '/' boundary; without one, its first node's name. Twelve attention rows then read apart. */
static char *
candidate_location (const FwCandidate *c)
{
  g_auto(GStrv) common = NULL;
  guint n_common = 0;

  for (guint i = 0; i < c->nodes->len; i++)
    {
      const char *scope = fw_node_get_scope (g_ptr_array_index (c->nodes, i));
      g_auto(GStrv) parts = g_strsplit (scope != NULL ? scope : "", "/", -1);
      guint k = 0;

      if (common == NULL)
        {
          common = g_steal_pointer (&parts);
          n_common = g_strv_length (common);
          continue;
        }
      /* Whole components only: "layer.1" and "layer.10" share no scope. */
      while (k < n_common && parts[k] != NULL && strcmp (parts[k], common[k]) == 0)
        k++;
      n_common = k;
    }
  if (common != NULL && n_common > 0 && common[0][0] != '\0')
    {
      GString *joined = g_string_new (common[0]);

      for (guint k = 1; k < n_common; k++)
        g_string_append_printf (joined, "/%s", common[k]);
      return g_string_free (joined, FALSE);
    }
  return g_strdup (c->nodes->len > 0 ? fw_node_get_name (g_ptr_array_index (c->nodes, 0)) : "");
}

static void
item_set_string (FwCandidateItem *self, char **field, const char *value, guint prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), item_properties[prop]);
}

static void
item_set_double (FwCandidateItem *self, gdouble *field, gdouble value, guint prop)
{
  /* NaN never equals itself; two unknowns are the same. */
  if (*field == value || (isnan (*field) && isnan (value)))
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), item_properties[prop]);
}

static void
item_set_uint (FwCandidateItem *self, guint *field, guint value, guint prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), item_properties[prop]);
}

static void
item_update (FwCandidateItem *self, const FwCandidate *c, gdouble measured, const char *verification,
             const char *twin)
{
  const FwCostEstimate *cost = fw_candidate_get_cost (c);
  const char *status = fw_candidate_status_name (c->status);
  g_autoptr(GString) search = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *location = NULL;

  g_object_freeze_notify (G_OBJECT (self));
  item_set_uint (self, &self->index, c->index, ITEM_PROP_INDEX);
  item_set_string (self, &self->pattern, c->pattern, ITEM_PROP_PATTERN);
  item_set_uint (self, &self->n_nodes, c->nodes->len, ITEM_PROP_N_NODES);
  item_set_double (self, &self->ub_percent, fw_candidate_get_resource (c)->ub_percent, ITEM_PROP_UB_PERCENT);
  item_set_double (self, &self->bytes_saved,
                   (cost->bytes_read_before + cost->bytes_written_before) -
                   (cost->bytes_read_after + cost->bytes_written_after), ITEM_PROP_BYTES_SAVED);
  item_set_uint (self, &self->launches_saved,
                 cost->launches_before > cost->launches_after ? cost->launches_before - cost->launches_after : 0,
                 ITEM_PROP_LAUNCHES_SAVED);
  item_set_double (self, &self->time_saved_us, cost->saving_s * 1e6, ITEM_PROP_TIME_SAVED_US);
  item_set_double (self, &self->measured_saved_us, measured, ITEM_PROP_MEASURED_SAVED_US);
  item_set_string (self, &self->verification, verification ? verification : "", ITEM_PROP_VERIFICATION);
  item_set_string (self, &self->twin, twin ? twin : "", ITEM_PROP_TWIN);
  item_set_string (self, &self->status, status, ITEM_PROP_STATUS);
  item_set_string (self, &self->body, c->body, ITEM_PROP_BODY);
  location = candidate_location (c);
  item_set_string (self, &self->location, location, ITEM_PROP_LOCATION);

  g_string_append_printf (search, "%s %s %s", c->pattern, c->kind, status);
  if (c->body != NULL)
    g_string_append_printf (search, " %s", c->body);
  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (search, " %s", ((FwNode *) g_ptr_array_index (c->nodes, i))->name);
  text = g_utf8_casefold (search->str, -1);
  item_set_string (self, &self->search_text, text, ITEM_PROP_SEARCH_TEXT);
  g_object_thaw_notify (G_OBJECT (self));
}

/* ---- FwProject ---- */

struct _FwProject
{
  GObject     parent_instance;
  FwModel    *model;
  FwProfile  *profile;
  FwRuleSet  *rules;        /* owned only when owns_rules */
  gboolean    owns_rules;
  FwPlan     *plan;
  GListStore *items;        /* FwCandidateItem, one per plan candidate, by index */
  GArray     *measured;     /* gdouble by candidate index, NaN unknown */
  GPtrArray  *verification; /* char* by candidate index, NULL unknown */
  GPtrArray  *twin;         /* char* by candidate index: the Ascend kernel on the twin, NULL unknown */
  GPtrArray  *details;      /* char* by candidate index, NULL none */
  FwSkPlan   *superkernel;  /* SuperKernel scopes of the plan at superkernel_revision, or NULL */
  guint64     superkernel_revision;
  gboolean    busy;
  guint64     revision;
  JsonNode   *model_report;
  char       *session_path;
  GStrv       bindings;
  gboolean    could_undo;
  gboolean    could_redo;
  /* Decisions in quick succession make one write: the snapshot is taken when the timer fires. */
  FwAutosave *autosave;
  GSource    *autosave_timer;
  GPtrArray  *sources;      /* FwKernelSources* by candidate index, NULL none */
  GMutex      readers_lock; /* guards n_readers */
  GCond       readers_done;
  guint       n_readers;    /* fw_project_hold_plan holds on */
};

G_DEFINE_FINAL_TYPE (FwProject, fw_project, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CAN_UNDO,
  PROP_CAN_REDO,
  PROP_SESSION_PATH,
  PROP_BUSY,
  N_PROPS
};

enum {
  PLAN_CHANGED,
  AUTOSAVE_FAILED,
  CHECK_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void autosave_flush (FwProject *self);

static void
fw_project_dispose (GObject *object)
{
  FwProject *self = FW_PROJECT (object);

  /* Nothing decided is lost: a pending autosave is written before the plan goes. */
  autosave_flush (self);
  G_OBJECT_CLASS (fw_project_parent_class)->dispose (object);
}

static void
fw_project_finalize (GObject *object)
{
  FwProject *self = FW_PROJECT (object);

  g_clear_pointer (&self->autosave, fw_autosave_free);
  g_clear_object (&self->items);
  g_clear_pointer (&self->plan, fw_plan_free);
  if (self->owns_rules)
    g_clear_pointer (&self->rules, fw_rule_set_free);
  g_clear_pointer (&self->profile, fw_profile_unref);
  g_clear_object (&self->model);
  g_clear_pointer (&self->measured, g_array_unref);
  g_clear_pointer (&self->verification, g_ptr_array_unref);
  g_clear_pointer (&self->twin, g_ptr_array_unref);
  g_clear_pointer (&self->details, g_ptr_array_unref);
  g_clear_pointer (&self->superkernel, fw_sk_plan_free);
  g_clear_pointer (&self->model_report, json_node_unref);
  g_clear_pointer (&self->session_path, g_free);
  g_clear_pointer (&self->bindings, g_strfreev);
  g_clear_pointer (&self->sources, g_ptr_array_unref);
  g_mutex_clear (&self->readers_lock);
  g_cond_clear (&self->readers_done);
  G_OBJECT_CLASS (fw_project_parent_class)->finalize (object);
}

static void
fw_project_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwProject *self = FW_PROJECT (object);

  switch (prop_id)
    {
    case PROP_CAN_UNDO: g_value_set_boolean (value, fw_project_can_undo (self)); break;
    case PROP_CAN_REDO: g_value_set_boolean (value, fw_project_can_redo (self)); break;
    case PROP_SESSION_PATH: g_value_set_string (value, self->session_path); break;
    case PROP_BUSY: g_value_set_boolean (value, self->busy); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_project_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwProject *self = FW_PROJECT (object);

  switch (prop_id)
    {
    case PROP_SESSION_PATH: fw_project_set_session_path (self, g_value_get_string (value)); break;
    case PROP_BUSY: fw_project_set_busy (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_project_class_init (FwProjectClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = fw_project_dispose;
  object_class->finalize = fw_project_finalize;
  object_class->get_property = fw_project_get_property;
  object_class->set_property = fw_project_set_property;

  properties[PROP_CAN_UNDO] = g_param_spec_boolean ("can-undo", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                    G_PARAM_STATIC_STRINGS);
  properties[PROP_CAN_REDO] = g_param_spec_boolean ("can-redo", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                    G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION_PATH] = g_param_spec_string ("session-path", NULL, NULL, NULL,
                                                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                       G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* After every change of the plan: a decision, undo, redo, a restored session, new measurements. */
  signals[PLAN_CHANGED] = g_signal_new ("plan-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* The decision stands but its autosave failed (GError*); the window tells the user. */
  signals[AUTOSAVE_FAILED] = g_signal_new ("autosave-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                           NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /* A candidate's check detail changed (guint candidate). */
  signals[CHECK_CHANGED] = g_signal_new ("check-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
fw_project_init (FwProject *self)
{
  self->items = g_list_store_new (FW_TYPE_CANDIDATE_ITEM);
  self->measured = g_array_new (FALSE, FALSE, sizeof (gdouble));
  self->verification = g_ptr_array_new_with_free_func (g_free);
  self->twin = g_ptr_array_new_with_free_func (g_free);
  self->details = g_ptr_array_new_with_free_func (g_free);
  self->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_kernel_sources_unref);
  g_mutex_init (&self->readers_lock);
  g_cond_init (&self->readers_done);
}

static gdouble
measured_of (FwProject *self, guint index)
{
  return index < self->measured->len ? g_array_index (self->measured, gdouble, index) : NAN;
}

static const char *
string_of (GPtrArray *by_candidate, guint index)
{
  return index < by_candidate->len ? g_ptr_array_index (by_candidate, index) : NULL;
}

static void
set_string_of (GPtrArray *by_candidate, guint index, const char *value)
{
  if (by_candidate->len <= index)
    g_ptr_array_set_size (by_candidate, index + 1);
  g_free (g_ptr_array_index (by_candidate, index));
  g_ptr_array_index (by_candidate, index) = g_strdup (value);
}

/* Brings the items in line with the plan: existing rows change in place (property notifications), rows
 * re-planning added are appended and rows an undo removed are dropped (items-changed). */
static void
refresh_items (FwProject *self)
{
  GPtrArray *candidates = self->plan->candidates;
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  guint common = MIN (n_items, candidates->len);

  for (guint i = 0; i < common; i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      item_update (item, g_ptr_array_index (candidates, i), measured_of (self, i),
                   string_of (self->verification, i), string_of (self->twin, i));
    }
  if (candidates->len > n_items)
    {
      guint n_new = candidates->len - n_items;
      g_autofree gpointer *added = g_new0 (gpointer, n_new);

      for (guint i = 0; i < n_new; i++)
        {
          guint index = n_items + i;
          FwCandidateItem *item = g_object_new (FW_TYPE_CANDIDATE_ITEM, NULL);

          item_update (item, g_ptr_array_index (candidates, index), measured_of (self, index),
                       string_of (self->verification, index), string_of (self->twin, index));
          added[i] = item;
        }
      g_list_store_splice (self->items, n_items, 0, added, n_new);
      for (guint i = 0; i < n_new; i++)
        g_object_unref (added[i]);
    }
  else if (candidates->len < n_items)
    g_list_store_splice (self->items, candidates->len, n_items - candidates->len, NULL, 0);
}

static void
on_autosave_failed (GObject *owner, const GError *error)
{
  g_signal_emit (owner, signals[AUTOSAVE_FAILED], 0, error);
}

static char *
session_text (FwProject *self)
{
  g_autoptr(FwSession) session = fw_session_from_plan (self->plan, fw_model_get_path (self->model),
                                                       (const char * const *) self->bindings);
  return fw_session_to_string (session);
}

static FwAutosave *
autosave_of (FwProject *self)
{
  if (self->autosave == NULL)
    self->autosave = fw_autosave_new (G_OBJECT (self), on_autosave_failed);
  return self->autosave;
}

/* The timer fired: the plan as it is now goes to the worker. */
static gboolean
autosave_now (gpointer user_data)
{
  FwProject *self = user_data;

  g_clear_pointer (&self->autosave_timer, g_source_unref);
  if (self->session_path != NULL && self->plan != NULL)
    fw_autosave_queue (autosave_of (self), self->session_path, session_text (self));
  return G_SOURCE_REMOVE;
}

static void
cancel_autosave_timer (FwProject *self)
{
  if (self->autosave_timer == NULL)
    return;
  g_source_destroy (self->autosave_timer);
  g_clear_pointer (&self->autosave_timer, g_source_unref);
}

/* Every decision restarts the timer, so a burst of key presses writes once, after the last. */
static void
autosave (FwProject *self)
{
  if (self->session_path == NULL)
    return;
  cancel_autosave_timer (self);
  self->autosave_timer = g_timeout_source_new (FW_PROJECT_AUTOSAVE_DELAY_MS);
  g_source_set_callback (self->autosave_timer, autosave_now, self, NULL);
  g_source_set_name (self->autosave_timer, "[fusion-workbench] autosave");
  g_source_attach (self->autosave_timer, g_main_context_get_thread_default ());
}

/* A pending snapshot is taken now and everything queued reaches the disk before this returns. */
static void
autosave_flush (FwProject *self)
{
  if (self->autosave_timer != NULL)
    {
      cancel_autosave_timer (self);
      autosave_now (self);
    }
  if (self->autosave != NULL)
    fw_autosave_wait (self->autosave);
}

void
fw_project_flush_session (FwProject *self)
{
  g_return_if_fail (FW_IS_PROJECT (self));
  autosave_flush (self);
}

guint
fw_project_get_n_session_writes (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), 0);
  return self->autosave != NULL ? fw_autosave_get_n_writes (self->autosave) : 0;
}

static void
plan_changed (FwProject *self, gboolean save)
{
  gboolean can_undo = fw_project_can_undo (self);
  gboolean can_redo = fw_project_can_redo (self);

  self->revision++;
  refresh_items (self);
  if (save)
    autosave (self);
  g_signal_emit (self, signals[PLAN_CHANGED], 0);
  if (can_undo != self->could_undo)
    {
      self->could_undo = can_undo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
    }
  if (can_redo != self->could_redo)
    {
      self->could_redo = can_redo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
    }
}

/* Before the plan changes: a worker reading it under fw_project_hold_plan finishes first. */
static void
wait_for_readers (FwProject *self)
{
  g_mutex_lock (&self->readers_lock);
  while (self->n_readers > 0)
    g_cond_wait (&self->readers_done, &self->readers_lock);
  g_mutex_unlock (&self->readers_lock);
}

static gboolean
check_idle (FwProject *self, GError **error)
{
  if (!self->busy)
    {
      wait_for_readers (self);
      return TRUE;
    }
  g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
               _("the plan cannot change while a compile, verification or export is running; wait or cancel it"));
  return FALSE;
}

FwProject *
fw_project_new (FwModel *model, FwProfile *profile, FwRuleSet *rules, const FwPlanOptions *options,
                GError **error)
{
  g_autoptr(FwProject) self = NULL;

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);
  g_return_val_if_fail (profile != NULL, NULL);

  self = g_object_new (FW_TYPE_PROJECT, NULL);
  self->model = g_object_ref (model);
  self->profile = fw_profile_ref (profile);
  self->rules = rules;
  self->plan = fw_plan_new (model, profile, rules, options, error);
  if (self->plan == NULL)
    return NULL;
  refresh_items (self);
  return g_steal_pointer (&self);
}

FwProject *
fw_project_new_owning_rules (FwModel *model, FwProfile *profile, FwRuleSet *rules, const FwPlanOptions *options,
                             GError **error)
{
  FwProject *self = fw_project_new (model, profile, rules, options, error);

  if (self == NULL)
    {
      if (rules != NULL)
        fw_rule_set_free (rules);
      return NULL;
    }
  self->owns_rules = TRUE;
  return self;
}

FwModel *
fw_project_get_model (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return self->model;
}

FwPlan *
fw_project_get_plan (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return self->plan;
}

FwProfile *
fw_project_get_profile (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return self->profile;
}

GListModel *
fw_project_get_candidates (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return G_LIST_MODEL (self->items);
}

gboolean
fw_project_accept (FwProject *self, guint candidate, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);

  if (!check_idle (self, error))
    return FALSE;
  if (!fw_plan_accept (self->plan, candidate, NULL, NULL, error))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_veto (FwProject *self, guint candidate, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);

  if (!check_idle (self, error))
    return FALSE;
  if (!fw_plan_veto (self->plan, candidate, NULL, NULL, error))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_decide_pattern (FwProject *self, FwDecisionAction action, const char *pattern, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (pattern != NULL, FALSE);

  if (!check_idle (self, error))
    return FALSE;
  if (!fw_plan_decide_pattern (self->plan, action, pattern, NULL, NULL, error))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_apply_whitelist (FwProject *self, const FwWhitelist *whitelist, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (whitelist != NULL, FALSE);

  if (!check_idle (self, error))
    return FALSE;
  fw_plan_apply_whitelist (self->plan, whitelist);
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_make_superkernel (FwProject *self, const FwSkUserScope *scope, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (scope != NULL, FALSE);

  if (!check_idle (self, error) || !fw_plan_make_superkernel (self->plan, scope, error))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_remove_superkernel (FwProject *self, const char *name, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!check_idle (self, error) || !fw_plan_remove_superkernel (self->plan, name, error))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_can_undo (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  return !self->busy && fw_plan_can_undo (self->plan);
}

gboolean
fw_project_can_redo (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  return !self->busy && fw_plan_can_redo (self->plan);
}

gboolean
fw_project_undo (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);

  if (!check_idle (self, NULL) || !fw_plan_undo (self->plan))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

gboolean
fw_project_redo (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);

  if (!check_idle (self, NULL) || !fw_plan_redo (self->plan))
    return FALSE;
  plan_changed (self, TRUE);
  return TRUE;
}

void
fw_project_set_measured (FwProject *self, guint candidate, gdouble saved_us)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (candidate >= self->plan->candidates->len)
    return;
  while (self->measured->len <= candidate)
    {
      gdouble unknown = NAN;
      g_array_append_val (self->measured, unknown);
    }
  g_array_index (self->measured, gdouble, candidate) = saved_us;
  refresh_items (self);
}

void
fw_project_set_verification (FwProject *self, guint candidate, const char *result)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (candidate >= self->plan->candidates->len)
    return;
  set_string_of (self->verification, candidate, result);
  refresh_items (self);
}

void
fw_project_set_twin (FwProject *self, guint candidate, const char *result)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (candidate >= self->plan->candidates->len)
    return;
  set_string_of (self->twin, candidate, result);
  refresh_items (self);
}

void
fw_project_set_check_detail (FwProject *self, guint candidate, const char *detail)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (candidate >= self->plan->candidates->len)
    return;
  set_string_of (self->details, candidate, detail);
  g_signal_emit (self, signals[CHECK_CHANGED], 0, candidate);
}

const FwSkPlan *
fw_project_get_superkernel_plan (FwProject *self)
{
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  if (self->superkernel != NULL && self->superkernel_revision == self->revision)
    return self->superkernel;
  g_clear_pointer (&self->superkernel, fw_sk_plan_free);
  self->superkernel = fw_sk_plan_build (self->plan, NULL, &error);
  self->superkernel_revision = self->revision;
  if (self->superkernel == NULL)
    g_warning ("SuperKernel scopes: %s", error->message);
  return self->superkernel;
}

const char *
fw_project_get_check_detail (FwProject *self, guint candidate)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return candidate < self->details->len ? g_ptr_array_index (self->details, candidate) : NULL;
}

void
fw_project_set_busy (FwProject *self, gboolean busy)
{
  gboolean can_undo, can_redo;

  g_return_if_fail (FW_IS_PROJECT (self));

  busy = !!busy;
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  /* Undo and redo are unavailable while busy: the actions bound to can-undo/can-redo follow. */
  can_undo = fw_project_can_undo (self);
  can_redo = fw_project_can_redo (self);
  if (can_undo != self->could_undo)
    {
      self->could_undo = can_undo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_UNDO]);
    }
  if (can_redo != self->could_redo)
    {
      self->could_redo = can_redo;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CAN_REDO]);
    }
}

void
fw_project_set_kernel_sources (FwProject *self, guint candidate, FwKernelSources *sources)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (candidate >= self->plan->candidates->len)
    return;
  if (self->sources->len <= candidate)
    g_ptr_array_set_size (self->sources, candidate + 1);
  fw_kernel_sources_unref (g_ptr_array_index (self->sources, candidate));
  g_ptr_array_index (self->sources, candidate) = sources ? fw_kernel_sources_ref (sources) : NULL;
}

FwKernelSources *
fw_project_get_kernel_sources (FwProject *self, guint candidate)
{
  FwKernelSources *sources;

  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);

  sources = candidate < self->sources->len ? g_ptr_array_index (self->sources, candidate) : NULL;
  /* Sources made before a decision may belong to another candidate under the same index. */
  if (sources == NULL || fw_kernel_sources_get_revision (sources) != self->revision)
    return NULL;
  return sources;
}

void
fw_project_hold_plan (FwProject *self)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  g_mutex_lock (&self->readers_lock);
  self->n_readers++;
  g_mutex_unlock (&self->readers_lock);
}

void
fw_project_release_plan (FwProject *self)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  g_mutex_lock (&self->readers_lock);
  g_assert (self->n_readers > 0);
  if (--self->n_readers == 0)
    g_cond_broadcast (&self->readers_done);
  g_mutex_unlock (&self->readers_lock);
}

guint64
fw_project_get_revision (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), 0);
  return self->revision;
}

void
fw_project_set_model_report (FwProject *self, JsonNode *report)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (report != NULL)
    json_node_ref (report);
  g_clear_pointer (&self->model_report, json_node_unref);
  self->model_report = report;
}

JsonNode *
fw_project_get_model_report (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return self->model_report;
}

gboolean
fw_project_get_busy (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  return self->busy;
}

void
fw_project_set_bindings (FwProject *self, const char * const *bindings)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  g_strfreev (self->bindings);
  self->bindings = g_strdupv ((char **) bindings);
}

const char * const *
fw_project_get_bindings (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return (const char * const *) self->bindings;
}

void
fw_project_set_session_path (FwProject *self, const char *path)
{
  g_return_if_fail (FW_IS_PROJECT (self));

  if (g_strcmp0 (self->session_path, path) == 0)
    return;
  g_free (self->session_path);
  self->session_path = g_strdup (path);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_PATH]);
}

const char *
fw_project_get_session_path (FwProject *self)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), NULL);
  return self->session_path;
}

gboolean
fw_project_save_session (FwProject *self, GError **error)
{
  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);

  if (self->session_path == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("the project has no session file to save to"));
      return FALSE;
    }
  /* This state supersedes any autosave still pending or being written: none may land after it. */
  cancel_autosave_timer (self);
  return fw_autosave_write_now (autosave_of (self), self->session_path, session_text (self), error);
}

gboolean
fw_project_restore_session (FwProject *self, const char *path, GError **error)
{
  g_autoptr(FwSession) session = NULL;

  g_return_val_if_fail (FW_IS_PROJECT (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!check_idle (self, error))
    return FALSE;
  session = fw_session_load (path, error);
  if (session == NULL || !fw_session_check_model (session, self->plan, error))
    return FALSE;
  fw_session_apply (session, self->plan);
  /* The file already holds this state: nothing to autosave. */
  plan_changed (self, FALSE);
  return TRUE;
}

char *
fw_project_session_path_for (const char *model_path)
{
  g_return_val_if_fail (model_path != NULL, NULL);

  if (g_str_has_suffix (model_path, ".onnx"))
    {
      g_autofree char *stem = g_strndup (model_path, strlen (model_path) - strlen (".onnx"));
      return g_strconcat (stem, ".fwsession", NULL);
    }
  return g_strconcat (model_path, ".fwsession", NULL);
}
