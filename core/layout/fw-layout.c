#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw-layout.h"
#include "graph/fw-graph-private.h"
#include "io/fw-progress.h"

/* Geometry in canvas units (pixels at zoom 1). */
#define NODE_HEIGHT   28.0
#define LAYER_GAP     44.0
#define NODE_GAP      18.0
#define DUMMY_GAP      8.0
#define MARGIN        20.0
#define GLYPH_WIDTH     7.0
#define LABEL_PAD     10.0
#define MIN_WIDTH     40.0
#define MAX_LABEL_CHARS 40
/* A dummy pulls harder than a node: long edges stay straight and nodes move out of their way. */
#define DUMMY_WEIGHT   4.0
/* Dummies allowed: this many per node and edge drawn, plus a base. */
#define DUMMY_BUDGET_PER_ITEM 16
#define DUMMY_BUDGET_BASE     65536

typedef struct _Scope Scope;

struct _Scope
{
  guint      id;
  char      *path;
  const char *label;     /* last part of path */
  Scope     *parent;
  GPtrArray *children;   /* Scope*, in order of first appearance */
  guint      n_nodes;    /* drawn nodes inside, nested scopes included */
  guint      n_direct;   /* drawn nodes whose scope is this one */
  gboolean   expanded;
};

typedef struct
{
  FwLayoutBox   *boxes;
  guint          n_boxes;
  FwLayoutEdge  *edges;
  guint          n_edges;
  FwLayoutPoint *points;
  guint         *box_of_node;  /* node->index → box, G_MAXUINT when not drawn */
  guint          n_graph_nodes;
  guint          n_layers;
  guint          n_dummies;
  guint         *layer_start;  /* n_layers + 1 offsets into layer_box */
  guint         *layer_box;    /* box indices by layer, left to right */
  gdouble        width;
  gdouble        height;
} Result;

struct _FwLayout
{
  GObject          parent_instance;
  FwGraph         *graph;
  FwLayoutOptions  options;
  GPtrArray       *scopes;       /* Scope*, owned; [0] is the root "" */
  GHashTable      *scope_by_path;
  Scope          **node_scope;   /* node->index → its scope, NULL when not drawn */
  guint            n_drawn;
  Result          *result;
  FwProgress       progress;
};

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

static gboolean
node_is_drawn (const FwNode *node)
{
  /* Constants are weights in all but name; drawing them would double a model's node count. */
  return !(node->domain[0] == '\0' && strcmp (node->op_type, "Constant") == 0);
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

  order = fw_graph_get_order (graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      Scope *s;

      if (!node_is_drawn (node))
        continue;
      s = scope_ensure (self, node->scope ? node->scope : "");
      self->node_scope[node->index] = s;
      s->n_direct++;
      for (Scope *t = s; t != NULL; t = t->parent)
        t->n_nodes++;
      self->n_drawn++;
    }
  if (self->n_drawn > self->options.collapse_threshold)
    collapse_by_default (self);
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

static void
report_progress (FwLayout *self, GMainContext *context, gdouble fraction, const char *message)
{
  if (fraction == 0.0)
    fw_progress_begin (G_OBJECT (self), &self->progress, context, message);
  else
    fw_progress_report (G_OBJECT (self), &self->progress, context, fraction, message);
}

/* ---- the computation ---- */

/* What one compute reads: a snapshot, so the window may expand scopes while a worker lays out. */
typedef struct
{
  FwLayout     *self;
  gboolean     *expanded;   /* scope id → expanded */
  GMainContext *context;    /* where progress goes; NULL: at once */
} Job;

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

typedef struct
{
  guint    lo, hi;      /* units; data flows lo → hi unless reversed */
  gboolean reversed;
} UnitEdge;

typedef struct
{
  FwNode *node;        /* NULL for a collapsed scope */
  Scope  *scope;
  guint   n_nodes;
} Unit;

static int
compare_unit_edge (const void *a, const void *b)
{
  const UnitEdge *x = a, *y = b;

  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi < y->hi ? -1 : 1;
  return (int) x->reversed - (int) y->reversed;
}

typedef struct
{
  gdouble key;
  guint   tie;
  guint   id;
} SortItem;

static int
compare_sort_item (const void *a, const void *b)
{
  const SortItem *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->tie != y->tie)
    return x->tie < y->tie ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Adjacency in compressed rows: the neighbours of v are list[start[v] .. start[v + 1]). */
typedef struct
{
  guint *start;
  guint *list;
} Adjacency;

static void
adjacency_build (Adjacency *adj, guint n, guint n_edges, const guint *from, const guint *to)
{
  guint *fill = g_new0 (guint, n + 1);

  adj->start = g_new0 (guint, n + 1);
  adj->list = g_new (guint, MAX (n_edges, 1));
  for (guint e = 0; e < n_edges; e++)
    adj->start[from[e] + 1]++;
  for (guint v = 0; v < n; v++)
    adj->start[v + 1] += adj->start[v];
  memcpy (fill, adj->start, n * sizeof *fill);
  for (guint e = 0; e < n_edges; e++)
    adj->list[fill[from[e]]++] = to[e];
  g_free (fill);
}

static void
adjacency_clear (Adjacency *adj)
{
  g_clear_pointer (&adj->start, g_free);
  g_clear_pointer (&adj->list, g_free);
}

static gdouble
label_width (gsize n_chars)
{
  return MAX (MIN_WIDTH, MIN (n_chars, MAX_LABEL_CHARS) * GLYPH_WIDTH + 2 * LABEL_PAD);
}

static guint
count_digits (guint n)
{
  guint d = 1;

  while (n >= 10)
    {
      n /= 10;
      d++;
    }
  return d;
}

/* Places one layer as close to desired as the order and the gaps allow, least squares weighted: with
 * y_i = x_i − off_i (off the packed offsets) the gaps become y_i <= y_{i+1}, an isotonic regression that
 * pool-adjacent-violators solves in one pass. */
static void
place_layer (const guint *ids, guint n, const gdouble *width, const gboolean *dummy, const gdouble *desired,
             gdouble *x, gdouble *off, gdouble *bw, gdouble *bs, guint *bstart)
{
  guint nb = 0;

  for (guint i = 0; i < n; i++)
    {
      guint v = ids[i];
      gdouble w = dummy[v] ? DUMMY_WEIGHT : 1.0;

      if (i == 0)
        off[i] = 0;
      else
        {
          guint u = ids[i - 1];
          off[i] = off[i - 1] + (width[u] + width[v]) / 2 + (dummy[u] || dummy[v] ? DUMMY_GAP : NODE_GAP);
        }
      bw[nb] = w;
      bs[nb] = w * (desired[i] - off[i]);
      bstart[nb] = i;
      nb++;
      while (nb > 1 && bs[nb - 2] / bw[nb - 2] > bs[nb - 1] / bw[nb - 1])
        {
          bw[nb - 2] += bw[nb - 1];
          bs[nb - 2] += bs[nb - 1];
          nb--;
        }
    }
  for (guint b = 0; b < nb; b++)
    {
      gdouble value = bs[b] / bw[b];
      guint end = b + 1 < nb ? bstart[b + 1] : n;

      for (guint i = bstart[b]; i < end; i++)
        x[ids[i]] = value + off[i];
    }
}

/* The layered graph compute builds phase by phase: units and the edges between them, their layers, the
 * dummies that break long edges into one-layer segments, the order within each layer and the x of every
 * unit and dummy. Vertices are the units 0 .. nu − 1, then the dummies. */
typedef struct
{
  GArray    *units;         /* Unit, in topological order of their first node */
  GArray    *uedges;        /* UnitEdge, one per pair */
  guint     *unit_of_node;  /* node->index → unit, G_MAXUINT when not drawn */
  guint      nu, ne;
  guint     *efrom, *eto;   /* edge e runs from unit efrom[e] down to eto[e] */
  guint     *layer;         /* unit → layer */
  guint      n_layers;
  gboolean  *routed;        /* edge → drawn through dummies */
  guint     *first_dummy;   /* edge → its first dummy, G_MAXUINT when not routed */
  guint      n_total;       /* units and dummies */
  guint      n_segments;
  guint     *lnode_layer;   /* vertex → layer */
  gboolean  *dummy;         /* vertex → is a dummy */
  Adjacency  up, down;      /* segments, by lower and by upper end */
  guint     *layer_start;   /* n_layers + 1 offsets into layer_nodes */
  guint     *layer_nodes;   /* vertices by layer, left to right */
  guint     *pos;           /* vertex → its place in its layer */
  guint      max_layer_len;
  gdouble   *width;         /* vertex → box width */
  gdouble   *x;             /* vertex → centre */
} Layered;

static void
layered_clear (Layered *g)
{
  g_clear_pointer (&g->units, g_array_unref);
  g_clear_pointer (&g->uedges, g_array_unref);
  g_clear_pointer (&g->unit_of_node, g_free);
  g_clear_pointer (&g->efrom, g_free);
  g_clear_pointer (&g->eto, g_free);
  g_clear_pointer (&g->layer, g_free);
  g_clear_pointer (&g->routed, g_free);
  g_clear_pointer (&g->first_dummy, g_free);
  g_clear_pointer (&g->lnode_layer, g_free);
  g_clear_pointer (&g->dummy, g_free);
  adjacency_clear (&g->up);
  adjacency_clear (&g->down);
  g_clear_pointer (&g->layer_start, g_free);
  g_clear_pointer (&g->layer_nodes, g_free);
  g_clear_pointer (&g->pos, g_free);
  g_clear_pointer (&g->width, g_free);
  g_clear_pointer (&g->x, g_free);
}

/* Units: drawn nodes outside collapsed scopes, and one per outermost collapsed scope, numbered in
 * topological order of their first node. */
static void
collect_units (Layered *g, const Job *job)
{
  FwLayout *self = job->self;
  guint n_graph = self->graph->nodes->len;
  g_autofree guint *scope_unit = g_new (guint, self->scopes->len);
  FwNode **order;
  guint n_order;

  g->units = g_array_new (FALSE, FALSE, sizeof (Unit));
  g->unit_of_node = g_new (guint, MAX (n_graph, 1));
  for (guint i = 0; i < n_graph; i++)
    g->unit_of_node[i] = G_MAXUINT;
  for (guint i = 0; i < self->scopes->len; i++)
    scope_unit[i] = G_MAXUINT;

  order = fw_graph_get_order (self->graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      Scope *s = self->node_scope[node->index];
      Scope *collapsed = NULL;
      Unit unit = { 0 };

      if (s == NULL)
        continue;
      for (Scope *t = s; t->parent != NULL; t = t->parent)
        if (!job->expanded[t->id])
          collapsed = t;
      if (collapsed != NULL)
        {
          if (scope_unit[collapsed->id] == G_MAXUINT)
            {
              unit.scope = collapsed;
              scope_unit[collapsed->id] = g->units->len;
              g_array_append_val (g->units, unit);
            }
          g->unit_of_node[node->index] = scope_unit[collapsed->id];
          g_array_index (g->units, Unit, scope_unit[collapsed->id]).n_nodes++;
        }
      else
        {
          unit.node = node;
          unit.scope = s;
          unit.n_nodes = 1;
          g->unit_of_node[node->index] = g->units->len;
          g_array_append_val (g->units, unit);
        }
    }
  g->nu = g->units->len;
}

/* Edges between units, once per pair. Within a DAG every edge runs to a later unit; collapsing can make
 * one run back, and it is laid out turned round. */
static void
collect_unit_edges (Layered *g, FwGraph *graph)
{
  FwNode **order;
  guint n_order;
  guint ne;

  g->uedges = g_array_new (FALSE, FALSE, sizeof (UnitEdge));
  order = fw_graph_get_order (graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      guint u = g->unit_of_node[node->index];

      if (u == G_MAXUINT)
        continue;
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *value = node->outputs[k];

          for (guint j = 0; value != NULL && j < value->n_uses; j++)
            {
              FwNode *consumer = value->uses[j].node;
              UnitEdge e;
              guint w;

              if (consumer == NULL || consumer->graph != graph)
                continue;
              w = g->unit_of_node[consumer->index];
              if (w == G_MAXUINT || w == u)
                continue;
              e.lo = MIN (u, w);
              e.hi = MAX (u, w);
              e.reversed = u > w;
              g_array_append_val (g->uedges, e);
            }
        }
    }
  qsort (g->uedges->data, g->uedges->len, sizeof (UnitEdge), compare_unit_edge);
  ne = 0;
  for (guint e = 0; e < g->uedges->len; e++)
    {
      UnitEdge *cur = &g_array_index (g->uedges, UnitEdge, e);
      if (ne > 0)
        {
          UnitEdge *prev = &g_array_index (g->uedges, UnitEdge, ne - 1);
          if (prev->lo == cur->lo && prev->hi == cur->hi)
            continue;
        }
      g_array_index (g->uedges, UnitEdge, ne++) = *cur;
    }
  g_array_set_size (g->uedges, ne);
  g->ne = ne;

  g->efrom = g_new (guint, MAX (ne, 1));
  g->eto = g_new (guint, MAX (ne, 1));
  for (guint e = 0; e < ne; e++)
    {
      g->efrom[e] = g_array_index (g->uedges, UnitEdge, e).lo;
      g->eto[e] = g_array_index (g->uedges, UnitEdge, e).hi;
    }
}

/* Layers: longest path from the sources, then each node that feeds at least as many edges as feed it
 * moves down next to its consumers, which shortens its out-edges at no cost to the rest. */
static void
assign_layers (Layered *g)
{
  Adjacency out = { 0 }, in = { 0 };
  guint nu = g->nu;
  guint *layer;

  adjacency_build (&out, nu, g->ne, g->efrom, g->eto);
  adjacency_build (&in, nu, g->ne, g->eto, g->efrom);
  layer = g->layer = g_new0 (guint, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    for (guint k = out.start[u]; k < out.start[u + 1]; k++)
      layer[out.list[k]] = MAX (layer[out.list[k]], layer[u] + 1);
  for (guint u = nu; u-- > 0;)
    {
      guint n_out = out.start[u + 1] - out.start[u];
      guint n_in = in.start[u + 1] - in.start[u];
      guint lowest = G_MAXUINT;

      if (n_out == 0 || n_out < n_in)
        continue;
      for (guint k = out.start[u]; k < out.start[u + 1]; k++)
        lowest = MIN (lowest, layer[out.list[k]]);
      if (lowest - 1 > layer[u])
        layer[u] = lowest - 1;
    }
  g->n_layers = 0;
  for (guint u = 0; u < nu; u++)
    g->n_layers = MAX (g->n_layers, layer[u] + 1);
  adjacency_clear (&out);
  adjacency_clear (&in);
}

/* A graph where one node feeds every layer would need a number of dummies quadratic in its size; past a
 * budget linear in the graph, the longest edges are left as straight lines. */
static void
choose_routed_edges (Layered *g)
{
  const guint *layer = g->layer;
  guint ne = g->ne;
  guint64 want = 0, budget = DUMMY_BUDGET_PER_ITEM * ((guint64) g->nu + ne) + DUMMY_BUDGET_BASE;

  g->routed = g_new (gboolean, MAX (ne, 1));
  for (guint e = 0; e < ne; e++)
    {
      g->routed[e] = TRUE;
      want += layer[g->eto[e]] - layer[g->efrom[e]] - 1;
    }
  if (want > budget)
    {
      g_autofree SortItem *items = g_new (SortItem, ne);
      guint64 used = 0;

      for (guint e = 0; e < ne; e++)
        items[e] = (SortItem) { layer[g->eto[e]] - layer[g->efrom[e]], e, e };
      qsort (items, ne, sizeof (SortItem), compare_sort_item);
      for (guint i = 0; i < ne; i++)
        {
          guint64 need = (guint64) items[i].key - 1;

          if (used + need <= budget)
            used += need;
          else
            g->routed[items[i].id] = FALSE;
        }
    }
}

/* Dummy nodes: a routed edge across k layers becomes a chain through k − 1 of them, k segments. */
static void
insert_dummies (Layered *g)
{
  const guint *layer = g->layer;
  guint ne = g->ne;
  g_autofree guint *sfrom = NULL, *sto = NULL;
  guint s = 0;

  choose_routed_edges (g);
  g->first_dummy = g_new (guint, MAX (ne, 1));
  g->n_total = g->nu;
  g->n_segments = 0;
  for (guint e = 0; e < ne; e++)
    {
      guint span = layer[g->eto[e]] - layer[g->efrom[e]];

      g->first_dummy[e] = G_MAXUINT;
      if (!g->routed[e])
        continue;
      g->first_dummy[e] = g->n_total;
      g->n_total += span - 1;
      g->n_segments += span;
    }
  g->lnode_layer = g_new (guint, MAX (g->n_total, 1));
  g->dummy = g_new0 (gboolean, MAX (g->n_total, 1));
  sfrom = g_new (guint, MAX (g->n_segments, 1));
  sto = g_new (guint, MAX (g->n_segments, 1));
  memcpy (g->lnode_layer, layer, g->nu * sizeof (guint));
  for (guint e = 0; e < ne; e++)
    {
      guint span = layer[g->eto[e]] - layer[g->efrom[e]];
      guint prev = g->efrom[e];

      if (!g->routed[e])
        continue;
      for (guint k = 1; k < span; k++)
        {
          guint d = g->first_dummy[e] + k - 1;
          g->lnode_layer[d] = layer[g->efrom[e]] + k;
          g->dummy[d] = TRUE;
          sfrom[s] = prev;
          sto[s] = d;
          s++;
          prev = d;
        }
      sfrom[s] = prev;
      sto[s] = g->eto[e];
      s++;
    }
  adjacency_build (&g->down, g->n_total, g->n_segments, sfrom, sto);
  adjacency_build (&g->up, g->n_total, g->n_segments, sto, sfrom);
}

/* Initial order: by id within each layer (units in topological order, dummies by edge). */
static void
initial_order (Layered *g)
{
  guint n_layers = g->n_layers;
  g_autofree guint *fill = NULL;

  g->layer_start = g_new0 (guint, n_layers + 1);
  g->layer_nodes = g_new (guint, MAX (g->n_total, 1));
  g->pos = g_new (guint, MAX (g->n_total, 1));
  g->max_layer_len = 0;
  for (guint v = 0; v < g->n_total; v++)
    g->layer_start[g->lnode_layer[v] + 1]++;
  for (guint l = 0; l < n_layers; l++)
    {
      g->max_layer_len = MAX (g->max_layer_len, g->layer_start[l + 1]);
      g->layer_start[l + 1] += g->layer_start[l];
    }
  fill = g_memdup2 (g->layer_start, (n_layers + 1) * sizeof (guint));
  for (guint v = 0; v < g->n_total; v++)
    {
      guint l = g->lnode_layer[v];
      g->pos[v] = fill[l] - g->layer_start[l];
      g->layer_nodes[fill[l]++] = v;
    }
}

/* Crossing reduction: barycenter sweeps between adjacent layers, down then up; ties keep the current
 * order, then ids. */
static gboolean
reduce_crossings (Layered *g, const Job *job, GCancellable *cancellable, GError **error)
{
  g_autofree SortItem *items = g_new (SortItem, MAX (g->max_layer_len, 1));
  guint passes = job->self->options.crossing_passes;
  guint n_layers = g->n_layers;
  guint *pos = g->pos;

  for (guint p = 0; p < 2 * passes; p++)
    {
      gboolean going_down = p % 2 == 0;
      Adjacency *ref = going_down ? &g->up : &g->down;

      for (guint step = 1; step < n_layers; step++)
        {
          guint l = going_down ? step : n_layers - 1 - step;
          guint n = g->layer_start[l + 1] - g->layer_start[l];
          guint *ids = g->layer_nodes + g->layer_start[l];

          for (guint i = 0; i < n; i++)
            {
              guint v = ids[i];
              guint deg = ref->start[v + 1] - ref->start[v];
              gdouble sum = 0;

              for (guint k = ref->start[v]; k < ref->start[v + 1]; k++)
                sum += pos[ref->list[k]];
              items[i].key = deg > 0 ? sum / deg : pos[v];
              items[i].tie = pos[v];
              items[i].id = v;
            }
          qsort (items, n, sizeof (SortItem), compare_sort_item);
          for (guint i = 0; i < n; i++)
            {
              ids[i] = items[i].id;
              pos[ids[i]] = i;
            }
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      report_progress (job->self, job->context, 0.1 + 0.4 * (p + 1) / (2 * passes), NULL);
    }
  return TRUE;
}

/* Box widths from the labels, and a first x: each layer packed from 0 in its order. */
static void
initial_coordinates (Layered *g)
{
  g->width = g_new0 (gdouble, MAX (g->n_total, 1));
  g->x = g_new0 (gdouble, MAX (g->n_total, 1));
  for (guint u = 0; u < g->nu; u++)
    {
      Unit *unit = &g_array_index (g->units, Unit, u);

      if (unit->node != NULL)
        g->width[u] = label_width (strlen (unit->node->op_type));
      else
        g->width[u] = label_width (MIN (strlen (unit->scope->label), MAX_LABEL_CHARS) + 3
                                   + count_digits (unit->n_nodes));
    }
  for (guint l = 0; l < g->n_layers; l++)
    {
      gdouble at = 0;

      for (guint i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
        {
          guint v = g->layer_nodes[i];

          if (i > g->layer_start[l])
            {
              guint u = g->layer_nodes[i - 1];
              at += (g->width[u] + g->width[v]) / 2 + (g->dummy[u] || g->dummy[v] ? DUMMY_GAP : NODE_GAP);
            }
          g->x[v] = at;
        }
    }
}

/* Coordinates: each layer moves as a whole towards the mean of its neighbours in the layer before,
 * alternating down and up, the last sweep looking both ways; the gaps between boxes are constraints. */
static gboolean
assign_coordinates (Layered *g, const Job *job, GCancellable *cancellable, GError **error)
{
  guint n_buf = MAX (g->max_layer_len, 1);
  g_autofree gdouble *desired = g_new (gdouble, n_buf);
  g_autofree gdouble *off = g_new (gdouble, n_buf);
  g_autofree gdouble *bw = g_new (gdouble, n_buf);
  g_autofree gdouble *bs = g_new (gdouble, n_buf);
  g_autofree guint *bstart = g_new (guint, n_buf);
  guint passes = job->self->options.coordinate_passes;
  guint n_layers = g->n_layers;
  gdouble *x;

  initial_coordinates (g);
  x = g->x;
  for (guint p = 0; p < passes; p++)
    {
      gboolean last = p + 1 == passes;
      gboolean going_down = p % 2 == 0;

      for (guint step = 0; step < n_layers; step++)
        {
          guint l = going_down ? step : n_layers - 1 - step;
          guint n = g->layer_start[l + 1] - g->layer_start[l];
          const guint *ids = g->layer_nodes + g->layer_start[l];

          for (guint i = 0; i < n; i++)
            {
              guint v = ids[i];
              gdouble sum = 0;
              guint deg = 0;

              if (going_down || last)
                for (guint k = g->up.start[v]; k < g->up.start[v + 1]; k++, deg++)
                  sum += x[g->up.list[k]];
              if (!going_down || last)
                for (guint k = g->down.start[v]; k < g->down.start[v + 1]; k++, deg++)
                  sum += x[g->down.list[k]];
              desired[i] = deg > 0 ? sum / deg : x[v];
            }
          place_layer (ids, n, g->width, g->dummy, desired, x, off, bw, bs, bstart);
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      report_progress (job->self, job->context, 0.5 + 0.4 * (p + 1) / passes, NULL);
    }
  return TRUE;
}

/* The boxes, shifted so the drawing starts at the margin, and the bounds. */
static void
result_add_boxes (Result *r, Layered *g)
{
  gdouble *x = g->x, *width = g->width;
  gdouble min_x = G_MAXDOUBLE, max_x = 0;
  guint n_total = g->n_total, n_layers = g->n_layers;

  for (guint v = 0; v < n_total; v++)
    min_x = MIN (min_x, x[v] - width[v] / 2);
  if (n_total == 0)
    min_x = 0;
  for (guint v = 0; v < n_total; v++)
    {
      x[v] += MARGIN - min_x;
      max_x = MAX (max_x, x[v] + width[v] / 2);
    }
  r->width = n_total > 0 ? max_x + MARGIN : 2 * MARGIN;
  r->height = 2 * MARGIN + (n_layers > 0 ? n_layers * NODE_HEIGHT + (n_layers - 1) * LAYER_GAP : 0);

  r->n_boxes = g->nu;
  r->boxes = g_new0 (FwLayoutBox, MAX (g->nu, 1));
  for (guint u = 0; u < g->nu; u++)
    {
      Unit *unit = &g_array_index (g->units, Unit, u);
      FwLayoutBox *box = &r->boxes[u];

      box->w = width[u];
      box->h = NODE_HEIGHT;
      box->x = x[u] - width[u] / 2;
      box->y = MARGIN + g->layer[u] * (NODE_HEIGHT + LAYER_GAP);
      box->layer = g->layer[u];
      box->n_nodes = unit->n_nodes;
      if (unit->node != NULL)
        {
          box->kind = FW_LAYOUT_BOX_NODE;
          box->node = unit->node;
          box->scope = unit->scope->path;
          box->label = unit->node->op_type;
        }
      else
        {
          box->kind = FW_LAYOUT_BOX_SCOPE;
          box->scope = unit->scope->path;
          box->label = unit->scope->label;
        }
    }
  r->box_of_node = g_memdup2 (g->unit_of_node, MAX (r->n_graph_nodes, 1) * sizeof (guint));

  /* The per-layer index for hit tests: the boxes of each layer, left to right. */
  r->layer_start = g_new0 (guint, n_layers + 1);
  r->layer_box = g_new (guint, MAX (g->nu, 1));
  {
    guint b = 0;

    for (guint l = 0; l < n_layers; l++)
      {
        r->layer_start[l] = b;
        for (guint i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
          if (!g->dummy[g->layer_nodes[i]])
            r->layer_box[b++] = g->layer_nodes[i];
      }
    r->layer_start[n_layers] = b;
  }
}

/* The routes: from the bottom of the upper box through the centres of the dummies to the top of the lower
 * box; an edge left unrouted is one straight segment. */
static void
result_add_routes (Result *r, const Layered *g)
{
  const guint *layer = g->layer;
  const gdouble *x = g->x;
  guint ne = g->ne;
  guint n_points = 0;

  for (guint e = 0; e < ne; e++)
    n_points += g->routed[e] ? layer[g->eto[e]] - layer[g->efrom[e]] + 1 : 2;
  r->n_edges = ne;
  r->edges = g_new0 (FwLayoutEdge, MAX (ne, 1));
  r->points = g_new (FwLayoutPoint, MAX (n_points, 1));
  n_points = 0;
  for (guint e = 0; e < ne; e++)
    {
      FwLayoutEdge *edge = &r->edges[e];
      guint a = g->efrom[e], z = g->eto[e];
      guint span = g->routed[e] ? layer[z] - layer[a] : 1;
      FwLayoutPoint *pt = r->points + n_points;

      edge->upper = a;
      edge->lower = z;
      edge->reversed = g_array_index (g->uedges, UnitEdge, e).reversed;
      edge->n_points = span + 1;
      pt[0].x = x[a];
      pt[0].y = r->boxes[a].y + NODE_HEIGHT;
      for (guint k = 1; k < span; k++)
        {
          guint d = g->first_dummy[e] + k - 1;
          pt[k].x = x[d];
          pt[k].y = MARGIN + g->lnode_layer[d] * (NODE_HEIGHT + LAYER_GAP) + NODE_HEIGHT / 2;
        }
      pt[span].x = x[z];
      pt[span].y = r->boxes[z].y;
      n_points += span + 1;
    }
  n_points = 0;
  for (guint e = 0; e < ne; e++)
    {
      r->edges[e].points = r->points + n_points;
      n_points += r->edges[e].n_points;
    }
}

static Result *
compute (Job *job, GCancellable *cancellable, GError **error)
{
  FwLayout *self = job->self;
  Layered g = { 0 };
  Result *r = NULL;

  report_progress (self, job->context, 0.0, _("Laying out the graph…"));
  collect_units (&g, job);
  collect_unit_edges (&g, self->graph);
  assign_layers (&g);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  report_progress (self, job->context, 0.1, NULL);

  insert_dummies (&g);
  initial_order (&g);
  if (!reduce_crossings (&g, job, cancellable, error)
      || !assign_coordinates (&g, job, cancellable, error))
    goto out;

  r = g_new0 (Result, 1);
  r->n_layers = g.n_layers;
  r->n_dummies = g.n_total - g.nu;
  r->n_graph_nodes = self->graph->nodes->len;
  result_add_boxes (r, &g);
  result_add_routes (r, &g);
  report_progress (self, job->context, 1.0, _("Graph laid out"));

out:
  layered_clear (&g);
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
