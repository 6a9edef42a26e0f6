/* fw-layout-private.h: what the layout's files share: the layout object, the snapshot one compute reads,
 * the layered graph its phases build (fw-layout-layering.c, fw-layout-crossings.c, fw-layout-coordinates.c)
 * and the result they leave (fw-layout-result.c). */
#pragma once

#include "fw-layout.h"
#include "io/fw-progress.h"

G_BEGIN_DECLS

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
/* " · −12.3 µs" after a collapsed scope's name and count (views/fw-scope-label.c). */
#define SCOPE_SAVING_CHARS 12
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

/* What one compute reads: a snapshot, so the window may expand scopes while a worker lays out. */
typedef struct
{
  FwLayout     *self;
  gboolean     *expanded;   /* scope id → expanded */
  GMainContext *context;    /* where progress goes; NULL: at once */
} Job;

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

typedef struct
{
  gdouble key;
  guint   tie;
  guint   id;
} SortItem;

/* Adjacency in compressed rows: the neighbours of v are list[start[v] .. start[v + 1]). */
typedef struct
{
  guint *start;
  guint *list;
} Adjacency;

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

/* Progress of a compute: fraction 0 begins it (message the title), later ones report. */
void     fw_layout_report_progress     (FwLayout      *self,
                                        GMainContext  *context,
                                        gdouble        fraction,
                                        const char    *message);
/* qsort order of SortItem: key, then tie, then id. */
int      fw_layout_compare_sort_item   (const void    *a,
                                        const void    *b);

/* fw-layout-layering.c */
void     fw_layout_layered_clear       (Layered       *g);
void     fw_layout_collect_units       (Layered       *g,
                                        const Job     *job);
void     fw_layout_collect_unit_edges  (Layered       *g,
                                        FwGraph       *graph);
void     fw_layout_assign_layers       (Layered       *g);
void     fw_layout_insert_dummies      (Layered       *g);
void     fw_layout_initial_order       (Layered       *g);

/* fw-layout-crossings.c */
gboolean fw_layout_reduce_crossings    (Layered       *g,
                                        const Job     *job,
                                        GCancellable  *cancellable,
                                        GError       **error);

/* fw-layout-coordinates.c */
gboolean fw_layout_assign_coordinates  (Layered       *g,
                                        const Job     *job,
                                        GCancellable  *cancellable,
                                        GError       **error);

/* fw-layout-result.c: the boxes and the per-layer index first (they shift g's x to the margin), then the
 * routes. */
void     fw_layout_result_add_boxes    (Result        *r,
                                        Layered       *g);
void     fw_layout_result_add_routes   (Result        *r,
                                        const Layered *g);

G_END_DECLS
