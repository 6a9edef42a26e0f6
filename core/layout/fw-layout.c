#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw-layout-private.h"
#include "graph/fw-graph-private.h"

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FwLayout, fw_layout, G_TYPE_OBJECT)

static void
result_free (Result *r)
{
  if (r == NULL)
    return;
  g_free (r->boxes);
  g_free (r->edges);
  g_free (r->points);
  g_free (r->box_of_node);
  g_free (r->layer_start);
  g_free (r->layer_box);
  g_free (r);
}

static void
scope_free (gpointer data)
{
  Scope *s = data;

  g_free (s->path);
  g_ptr_array_unref (s->children);
  g_free (s);
}

static void
fw_layout_finalize (GObject *object)
{
  FwLayout *self = FW_LAYOUT (object);

  g_clear_pointer (&self->scopes, g_ptr_array_unref);
  g_clear_pointer (&self->scope_by_path, g_hash_table_unref);
  g_clear_pointer (&self->node_scope, g_free);
  g_clear_pointer (&self->result, result_free);
  fw_progress_clear (&self->progress);
  G_OBJECT_CLASS (fw_layout_parent_class)->finalize (object);
}

static void
fw_layout_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwLayout *self = FW_LAYOUT (object);

  if (!fw_progress_get_property (&self->progress, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
fw_layout_class_init (FwLayoutClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fw_layout_finalize;
  object_class->get_property = fw_layout_get_property;

  fw_progress_pspecs (&properties[PROP_FRACTION], &properties[PROP_MESSAGE]);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fw_layout_init (FwLayout *self)
{
  fw_progress_init (&self->progress, properties[PROP_FRACTION], properties[PROP_MESSAGE]);
}

void
fw_layout_options_init (FwLayoutOptions *options)
{
  memset (options, 0, sizeof *options);
  options->collapse_threshold = 1000;
  options->collapsed_target = 200;
  options->crossing_passes = 4;
  options->coordinate_passes = 8;
}

/* ---- scopes ---- */

/* hidden: node index → not drawn, filled in topological order so producers are known first. */
static gboolean
node_is_drawn (const FwLayout *self, const FwNode *node, const gboolean *hidden)
{
  if (node->domain[0] != '\0')
    return TRUE;
  /* Constants are weights in all but name; drawing them would double a model's node count. */
  if (strcmp (node->op_type, "Constant") == 0)
    return FALSE;
  if (!self->options.fold_weight_copies || strcmp (node->op_type, "Identity") != 0 || node->n_inputs == 0)
    return TRUE;
  for (guint i = 0; i < node->n_inputs; i++)
    {
      const FwValue *input = node->inputs[i];

      if (input == NULL)
        continue;
      if (input->producer != NULL ? !hidden[input->producer->index] : !input->is_initializer)
        return TRUE;
    }
  return FALSE;
}

static Scope *
scope_new (FwLayout *self, const char *path, gsize len, Scope *parent)
{
  Scope *s = g_new0 (Scope, 1);
  const char *slash;

  s->id = self->scopes->len;
  s->path = g_strndup (path, len);
  slash = strrchr (s->path, '/');
  s->label = slash ? slash + 1 : s->path;
  s->parent = parent;
  s->children = g_ptr_array_new ();
  s->expanded = TRUE;
  g_ptr_array_add (self->scopes, s);
  g_hash_table_insert (self->scope_by_path, s->path, s);
  if (parent != NULL)
    g_ptr_array_add (parent->children, s);
  return s;
}

/* The scope of path, created with its missing ancestors. */
static Scope *
scope_ensure (FwLayout *self, const char *path)
{
  Scope *found = g_hash_table_lookup (self->scope_by_path, path);
  gsize len = strlen (path);
  gsize known;
  Scope *parent;

  if (found != NULL)
    return found;
  /* Find the deepest ancestor that exists, then create downwards. */
  known = len;
  parent = NULL;
  while (parent == NULL)
    {
      g_autofree char *prefix = NULL;

      while (known > 0 && path[known - 1] != '/')
        known--;
      if (known == 0)
        {
          parent = g_ptr_array_index (self->scopes, 0);
          break;
        }
      known--;
      prefix = g_strndup (path, known);
      parent = g_hash_table_lookup (self->scope_by_path, prefix);
      if (parent == NULL && known == 0)
        parent = g_ptr_array_index (self->scopes, 0);
    }
  for (gsize i = known == 0 ? 0 : known + 1; i <= len; i++)
    if (i == len || path[i] == '/')
      {
        g_autofree char *prefix = g_strndup (path, i);
        Scope *s = g_hash_table_lookup (self->scope_by_path, prefix);

        if (s == NULL)
          s = scope_new (self, path, i, parent);
        parent = s;
      }
  return parent;
}

static gint
compare_scope_size (const Scope *a, const Scope *b)
{
  if (a->n_nodes != b->n_nodes)
    return a->n_nodes > b->n_nodes ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Starts from the top-level scopes collapsed and opens the largest while the number of visible boxes stays
 * under the target, so a model whose top level is one scope ("encoder") still shows its layers. */
static void
collapse_by_default (FwLayout *self)
{
  Scope *root = g_ptr_array_index (self->scopes, 0);
  g_autoptr(GPtrArray) frontier = g_ptr_array_new ();
  guint target = self->options.collapsed_target;
  guint visible;

  for (guint i = 1; i < self->scopes->len; i++)
    ((Scope *) g_ptr_array_index (self->scopes, i))->expanded = FALSE;
  visible = root->n_direct + root->children->len;
  g_ptr_array_extend (frontier, root->children, NULL, NULL);
  while (frontier->len > 0)
    {
      guint best = 0;
      Scope *s;
      guint grow;

      for (guint i = 1; i < frontier->len; i++)
        if (compare_scope_size (g_ptr_array_index (frontier, i), g_ptr_array_index (frontier, best)) < 0)
          best = i;
      s = g_ptr_array_index (frontier, best);
      grow = s->n_direct + s->children->len;
      if (grow > 0 && visible + grow - 1 > target)
        break;
      visible = visible + grow - 1;
      s->expanded = TRUE;
      g_ptr_array_remove_index (frontier, best);
      g_ptr_array_extend (frontier, s->children, NULL, NULL);
    }
  /* A box for one node says less than the node. */
  for (guint i = 1; i < self->scopes->len; i++)
    {
      Scope *s = g_ptr_array_index (self->scopes, i);
      if (s->n_nodes <= 1)
        s->expanded = TRUE;
    }
}

FwLayout *
fw_layout_new (FwGraph *graph, const FwLayoutOptions *options)
{
  FwLayout *self;
  FwLayoutOptions defaults;
  FwNode **order;
  guint n_order;
  g_autofree gboolean *hidden = NULL;
  g_autoptr(GPtrArray) overridden = NULL;
  const char *override;

  g_return_val_if_fail (graph != NULL, NULL);

  self = g_object_new (FW_TYPE_LAYOUT, NULL);
  self->graph = graph;
  fw_layout_options_init (&defaults);
  self->options = options ? *options : defaults;
  if (self->options.collapse_threshold == 0)
    self->options.collapse_threshold = defaults.collapse_threshold;
  if (self->options.collapsed_target == 0)
    self->options.collapsed_target = defaults.collapsed_target;
  if (self->options.crossing_passes == 0)
    self->options.crossing_passes = defaults.crossing_passes;
  if (self->options.coordinate_passes == 0)
    self->options.coordinate_passes = defaults.coordinate_passes;

  self->scopes = g_ptr_array_new_with_free_func (scope_free);
  self->scope_by_path = g_hash_table_new (g_str_hash, g_str_equal);
  scope_new (self, "", 0, NULL);
  self->node_scope = g_new0 (Scope *, graph->nodes->len);
  hidden = g_new0 (gboolean, MAX (graph->nodes->len, 1));

  order = fw_graph_get_order (graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      Scope *s;

      if (!node_is_drawn (self, node, hidden))
        {
          hidden[node->index] = TRUE;
          continue;
        }
      override = self->options.scope_override != NULL ? g_hash_table_lookup (self->options.scope_override, node) : NULL;
      s = scope_ensure (self, override != NULL ? override : node->scope ? node->scope : "");
      if (override != NULL && (overridden == NULL || g_ptr_array_find (overridden, s, NULL) == FALSE))
        {
          if (overridden == NULL)
            overridden = g_ptr_array_new ();
          g_ptr_array_add (overridden, s);
        }
      self->node_scope[node->index] = s;
      s->n_direct++;
      for (Scope *t = s; t != NULL; t = t->parent)
        t->n_nodes++;
      self->n_drawn++;
    }
  if (self->n_drawn > self->options.collapse_threshold)
    collapse_by_default (self);
  for (guint i = 0; overridden != NULL && i < overridden->len; i++)
    ((Scope *) g_ptr_array_index (overridden, i))->expanded = FALSE;
  /* Borrowed for the above only. */
  self->options.scope_override = NULL;
  return self;
}

FwGraph *
fw_layout_get_graph (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), NULL);
  return self->graph;
}

gdouble
fw_layout_get_fraction (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), 0.0);
  return self->progress.fraction;
}

const char *
fw_layout_get_message (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), NULL);
  return self->progress.message;
}

gboolean
fw_layout_set_expanded (FwLayout *self, const char *scope, gboolean expanded)
{
  Scope *s;

  g_return_val_if_fail (FW_IS_LAYOUT (self), FALSE);
  if (scope == NULL || scope[0] == '\0')
    return FALSE;
  s = g_hash_table_lookup (self->scope_by_path, scope);
  if (s == NULL)
    return FALSE;
  s->expanded = expanded != FALSE;
  if (expanded)
    for (Scope *t = s->parent; t != NULL; t = t->parent)
      t->expanded = TRUE;
  return TRUE;
}

gboolean
fw_layout_get_expanded (FwLayout *self, const char *scope)
{
  Scope *s;

  g_return_val_if_fail (FW_IS_LAYOUT (self), FALSE);
  if (scope == NULL)
    return FALSE;
  s = g_hash_table_lookup (self->scope_by_path, scope);
  return s != NULL && s->expanded;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
fw_layout_list_scopes (FwLayout *self)
{
  GPtrArray *list;

  g_return_val_if_fail (FW_IS_LAYOUT (self), NULL);
  list = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 1; i < self->scopes->len; i++)
    g_ptr_array_add (list, g_strdup (((Scope *) g_ptr_array_index (self->scopes, i))->path));
  g_ptr_array_sort (list, compare_strings);
  return list;
}

/* ---- progress ---- */

void
fw_layout_report_progress (FwLayout *self, GMainContext *context, gdouble fraction, const char *message)
{
  if (fraction == 0.0)
    fw_progress_begin (G_OBJECT (self), &self->progress, context, message);
  else
    fw_progress_report (G_OBJECT (self), &self->progress, context, fraction, message);
}

/* ---- the computation ---- */

static void
job_free (Job *job)
{
  g_object_unref (job->self);
  g_free (job->expanded);
  g_clear_pointer (&job->context, g_main_context_unref);
  g_free (job);
}

static Job *
job_new (FwLayout *self, GMainContext *context)
{
  Job *job = g_new0 (Job, 1);

  job->self = g_object_ref (self);
  job->expanded = g_new (gboolean, self->scopes->len);
  for (guint i = 0; i < self->scopes->len; i++)
    job->expanded[i] = ((Scope *) g_ptr_array_index (self->scopes, i))->expanded;
  job->context = context ? g_main_context_ref (context) : NULL;
  return job;
}

static Result *
compute (Job *job, GCancellable *cancellable, GError **error)
{
  FwLayout *self = job->self;
  Layered g = { 0 };
  Result *r = NULL;

  fw_layout_report_progress (self, job->context, 0.0, _("Laying out the graph…"));
  fw_layout_collect_units (&g, job);
  fw_layout_collect_unit_edges (&g, self->graph);
  fw_layout_assign_layers (&g);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  fw_layout_report_progress (self, job->context, 0.1, NULL);

  fw_layout_insert_dummies (&g);
  fw_layout_initial_order (&g);
  if (!fw_layout_reduce_crossings (&g, job, cancellable, error)
      || !fw_layout_assign_coordinates (&g, job, cancellable, error))
    goto out;

  r = g_new0 (Result, 1);
  r->n_layers = g.n_layers;
  r->n_dummies = g.n_total - g.nu;
  r->n_graph_nodes = self->graph->nodes->len;
  fw_layout_result_add_boxes (r, &g);
  fw_layout_result_add_routes (r, &g);
  fw_layout_report_progress (self, job->context, 1.0, _("Graph laid out"));

out:
  fw_layout_layered_clear (&g);
  return r;
}

gboolean
fw_layout_compute (FwLayout *self, GCancellable *cancellable, GError **error)
{
  Job *job;
  Result *r;

  g_return_val_if_fail (FW_IS_LAYOUT (self), FALSE);
  job = job_new (self, NULL);
  r = compute (job, cancellable, error);
  job_free (job);
  if (r == NULL)
    return FALSE;
  g_clear_pointer (&self->result, result_free);
  self->result = r;
  return TRUE;
}

static void
compute_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  Result *r = compute (task_data, cancellable, &error);

  if (r == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, r, (GDestroyNotify) result_free);
}

void
fw_layout_compute_async (FwLayout *self, GCancellable *cancellable, GAsyncReadyCallback callback,
                         gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GMainContext) context = NULL;

  g_return_if_fail (FW_IS_LAYOUT (self));

  context = g_main_context_ref_thread_default ();
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fw_layout_compute_async);
  g_task_set_task_data (task, job_new (self, context), (GDestroyNotify) job_free);
  g_task_run_in_thread (task, compute_thread);
}

gboolean
fw_layout_compute_finish (FwLayout *self, GAsyncResult *result, GError **error)
{
  Result *r;

  g_return_val_if_fail (FW_IS_LAYOUT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  /* The result is installed here, in the caller's thread, so readers never see a half-made one. */
  r = g_task_propagate_pointer (G_TASK (result), error);
  if (r == NULL)
    return FALSE;
  g_clear_pointer (&self->result, result_free);
  self->result = r;
  return TRUE;
}

/* ---- the result ---- */

guint
fw_layout_get_n_boxes (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), 0);
  return self->result ? self->result->n_boxes : 0;
}

const FwLayoutBox *
fw_layout_get_box (FwLayout *self, guint index)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), NULL);
  g_return_val_if_fail (self->result != NULL && index < self->result->n_boxes, NULL);
  return &self->result->boxes[index];
}

guint
fw_layout_get_n_edges (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), 0);
  return self->result ? self->result->n_edges : 0;
}

const FwLayoutEdge *
fw_layout_get_edge (FwLayout *self, guint index)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), NULL);
  g_return_val_if_fail (self->result != NULL && index < self->result->n_edges, NULL);
  return &self->result->edges[index];
}

guint
fw_layout_get_n_layers (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), 0);
  return self->result ? self->result->n_layers : 0;
}

guint
fw_layout_get_n_dummies (FwLayout *self)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), 0);
  return self->result ? self->result->n_dummies : 0;
}

void
fw_layout_get_bounds (FwLayout *self, gdouble *width, gdouble *height)
{
  g_return_if_fail (FW_IS_LAYOUT (self));
  if (width)
    *width = self->result ? self->result->width : 0;
  if (height)
    *height = self->result ? self->result->height : 0;
}

guint
fw_layout_find_node (FwLayout *self, const FwNode *node)
{
  g_return_val_if_fail (FW_IS_LAYOUT (self), G_MAXUINT);
  if (self->result == NULL || node == NULL || node->graph != self->graph
      || node->index >= self->result->n_graph_nodes)
    return G_MAXUINT;
  return self->result->box_of_node[node->index];
}

guint
fw_layout_hit_test (FwLayout *self, gdouble x, gdouble y)
{
  Result *r;
  gdouble band = NODE_HEIGHT + LAYER_GAP;
  gdouble t;
  guint l, lo, hi;

  g_return_val_if_fail (FW_IS_LAYOUT (self), G_MAXUINT);
  r = self->result;
  if (r == NULL || r->n_layers == 0 || !(y >= MARGIN) || !isfinite (x))
    return G_MAXUINT;
  t = (y - MARGIN) / band;
  if (t >= r->n_layers)
    return G_MAXUINT;
  l = (guint) t;
  if (y - MARGIN - l * band > NODE_HEIGHT)
    return G_MAXUINT;
  /* Boxes of a layer are sorted left to right: the last one starting at or before x. */
  lo = r->layer_start[l];
  hi = r->layer_start[l + 1];
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (r->boxes[r->layer_box[mid]].x <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == r->layer_start[l])
    return G_MAXUINT;
  {
    const FwLayoutBox *box = &r->boxes[r->layer_box[lo - 1]];
    return x <= box->x + box->w ? r->layer_box[lo - 1] : G_MAXUINT;
  }
}
