/* fw-graph-private.h: the IR's structs, open to libfwcore's own modules (reader, writer, inference,
 * planner) which walk graphs in hot loops. Code outside core/ uses the accessors in fw-graph.h. */
#pragma once

#include "fw-graph.h"

G_BEGIN_DECLS

typedef struct _FwOpInfo FwOpInfo;

/* One use of a value: node's input `slot`, or an implicit capture by a subgraph when slot is G_MAXUINT. */
typedef struct
{
  FwNode *node;
  guint   slot;
} FwUse;

#define FW_USE_IMPLICIT G_MAXUINT

struct _FwAttr
{
  const char *name;
  FwAttrType  type;
  const char *ref_attr_name;
  const char *doc_string;
  float       f;
  gint64      i;
  /* STRING: bytes (NUL-terminated copy, may hold non-UTF-8), s_len without the NUL. */
  const char *s;
  gsize       s_len;
  FwTensor   *t;
  FwGraph    *g;
  guint       n;          /* element count of the list kinds below */
  float      *floats;
  gint64     *ints;
  GBytes    **strings;
  FwTensor  **tensors;
  FwGraph   **graphs;
  GBytes     *raw;        /* SPARSE_TENSOR(S) and TYPE_PROTO(S) kept as encoded bytes for the writer */
};

struct _FwNode
{
  FwGraph     *graph;
  guint        index;     /* position in graph->nodes (file order) */
  const char  *name;
  const char  *op_type;
  const char  *domain;    /* "" for ai.onnx */
  const char  *doc_string;
  const char  *scope;
  FwValue    **inputs;    /* NULL entries are omitted optional inputs */
  guint        n_inputs;
  FwValue    **outputs;   /* NULL entries are omitted optional outputs */
  guint        n_outputs;
  FwAttr      *attrs;
  guint        n_attrs;
  guint        attrs_alloc;
  GPtrArray   *implicit_inputs;  /* outer values captured by this node's subgraphs, or NULL */
  GPtrArray   *extra_raw;        /* GBytes*, encoded fields (tags included) kept verbatim, or NULL */
  const FwOpInfo *op;     /* registry row, NULL when the op is unknown (then opaque) */
  gint64       opset;     /* version of the node's domain imported by the model; 0 if unknown */
  guint        topo_index;
};

struct _FwValue
{
  FwGraph     *graph;
  guint        index;
  const char  *name;
  const char  *doc_string;
  FwDType      dtype;
  gint         rank;      /* FW_RANK_UNKNOWN when unknown */
  FwDim       *dims;
  FwNode      *producer;
  guint        producer_slot;
  FwUse       *uses;
  guint        n_uses;
  guint        uses_alloc;
  FwTensor    *constant;  /* initializer data or a value folded at load */
  /* For small integer tensors whose elements are dims (Shape → Gather → Concat chains): the elements as
   * dims, so symbolic entries survive. NULL when not known. */
  FwDim       *shape_value;
  gint         shape_value_len;
  GBytes      *type_raw;  /* a non-tensor TypeProto (sequence, map, optional) kept encoded */
  guint        is_input : 1;
  guint        is_output : 1;
  guint        is_initializer : 1;
  guint        has_value_info : 1;
  guint        placeholder : 1;   /* referenced but not (yet) defined */
  guint        outer : 1;         /* belongs to an enclosing graph */
  guint        type_inferred : 1; /* a body input whose type inference set (a Loop's carried value the file
                                     gave no shape): set again on every inference */
};

struct _FwGraph
{
  FwGraph      *parent;
  FwNode       *parent_node;
  const char   *name;
  const char   *doc_string;
  GStringChunk *strings;
  GPtrArray    *nodes;        /* FwNode*, file order */
  GPtrArray    *values;       /* FwValue*, creation order */
  GHashTable   *by_name;      /* const char* → FwValue* */
  GPtrArray    *inputs;       /* FwValue* */
  GPtrArray    *outputs;      /* FwValue* */
  GPtrArray    *initializers; /* FwValue*, file order */
  GPtrArray    *extra_raw;    /* GBytes*, encoded fields (tags included) kept verbatim for the writer */
  FwNode      **order;
  gboolean      linked;
};

FwValue  *fw_graph_ensure_value (FwGraph *graph, const char *name);
FwAttr   *fw_node_add_attr      (FwNode *node, const char *name, FwAttrType type);
void      fw_value_set_shape_value (FwValue *value, gint len, const FwDim *elems);
gboolean  fw_dims_equal         (const FwDim *a, const FwDim *b);

G_END_DECLS
