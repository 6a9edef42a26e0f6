/* fw-graph.h: the graph IR every part of Fusion Workbench works on.
 *
 * A graph owns its nodes and values (tensors between nodes); values know their producer and consumers;
 * initializers reference their bytes (usually inside the mmap'd model) without copying them. Subgraphs of
 * If/Loop/Scan are nested FwGraphs owned by their node's attribute. Nothing here reads files or knows ONNX's
 * wire format: that is core/onnx. Shapes here are what is known; core/shape fills them in. */
#pragma once

#include <glib.h>

#include "fw-dtype.h"
#include "fw-tensor.h"

G_BEGIN_DECLS

typedef struct _FwGraph FwGraph;
typedef struct _FwNode  FwNode;
typedef struct _FwValue FwValue;
typedef struct _FwAttr  FwAttr;

/* A dimension: value >= 0 is static; otherwise symbol names a symbolic dim ("batch") or, if NULL, the dim
 * is unknown. */
typedef struct
{
  gint64      value;
  const char *symbol;
} FwDim;

#define FW_DIM_UNKNOWN ((FwDim) { -1, NULL })
#define FW_DIM_STATIC(v) ((FwDim) { (v), NULL })
#define FW_RANK_UNKNOWN (-1)

typedef enum {
  FW_ATTR_UNDEFINED = 0,
  FW_ATTR_FLOAT = 1,
  FW_ATTR_INT = 2,
  FW_ATTR_STRING = 3,
  FW_ATTR_TENSOR = 4,
  FW_ATTR_GRAPH = 5,
  FW_ATTR_FLOATS = 6,
  FW_ATTR_INTS = 7,
  FW_ATTR_STRINGS = 8,
  FW_ATTR_TENSORS = 9,
  FW_ATTR_GRAPHS = 10,
  FW_ATTR_SPARSE_TENSOR = 11,
  FW_ATTR_SPARSE_TENSORS = 12,
  FW_ATTR_TYPE_PROTO = 13,
  FW_ATTR_TYPE_PROTOS = 14,
} FwAttrType;

FwGraph      *fw_graph_new                 (FwGraph        *parent);
void          fw_graph_free                (FwGraph        *graph);
guint         fw_graph_get_n_nodes         (const FwGraph  *graph);
FwNode       *fw_graph_get_node            (const FwGraph  *graph,
                                            guint           index);
/* Nodes in a stable topological order (the file's order when it already is one); valid after linking. */
FwNode      **fw_graph_get_order           (const FwGraph  *graph,
                                            guint          *n_nodes);
guint         fw_graph_get_n_values        (const FwGraph  *graph);
FwValue      *fw_graph_get_value           (const FwGraph  *graph,
                                            guint           index);
FwValue      *fw_graph_lookup_value        (const FwGraph  *graph,
                                            const char     *name);
guint         fw_graph_get_n_inputs        (const FwGraph  *graph);
FwValue      *fw_graph_get_input           (const FwGraph  *graph,
                                            guint           index);
guint         fw_graph_get_n_outputs       (const FwGraph  *graph);
FwValue      *fw_graph_get_output          (const FwGraph  *graph,
                                            guint           index);
/* The symbolic dim names used anywhere in the graph and its subgraphs, sorted, each once. */
GStrv         fw_graph_collect_symbols     (const FwGraph  *graph);
/* Total node count including nested subgraphs. */
guint         fw_graph_count_nodes_deep    (const FwGraph  *graph);

/* Building (the ONNX reader and tests use these). Names are copied into the graph. */
const char   *fw_graph_intern              (FwGraph        *graph,
                                            const char     *string);
FwValue      *fw_graph_add_input           (FwGraph        *graph,
                                            const char     *name,
                                            FwDType         dtype,
                                            gint            rank,
                                            const FwDim    *dims,
                                            GError        **error);
FwValue      *fw_graph_add_initializer     (FwGraph        *graph,
                                            const char     *name,
                                            FwTensor       *tensor,
                                            GError        **error);
gboolean      fw_graph_add_output          (FwGraph        *graph,
                                            const char     *name,
                                            GError        **error);
/* Input names may be "" for an omitted optional input; outputs "" for an omitted optional output. */
FwNode       *fw_graph_add_node            (FwGraph        *graph,
                                            const char     *op_type,
                                            const char     *domain,
                                            const char     *name,
                                            guint           n_inputs,
                                            const char * const *inputs,
                                            guint           n_outputs,
                                            const char * const *outputs,
                                            GError        **error);
/* Resolves names, links producers and consumers, checks for dangling names and cycles, computes the
 * topological order and scopes, recursively for subgraphs. */
gboolean      fw_graph_link                (FwGraph        *graph,
                                            GError        **error);

const char   *fw_node_get_name             (const FwNode   *node);
const char   *fw_node_get_op_type          (const FwNode   *node);
const char   *fw_node_get_domain           (const FwNode   *node);
const char   *fw_node_get_scope            (const FwNode   *node);
/* Scope from a node name: "/blocks.3/mlp/fc1/MatMul" → "blocks.3/mlp/fc1"; "" when there is none. */
char         *fw_scope_from_node_name      (const char     *name);

/* Whether node is the standard (ai.onnx) operator op; FALSE for NULL. */
gboolean      fw_node_is_onnx_op           (const FwNode *node, const char *op);

FwAttr       *fw_node_set_attr_int         (FwNode *node, const char *name, gint64 value);
FwAttr       *fw_node_set_attr_float       (FwNode *node, const char *name, float value);
FwAttr       *fw_node_set_attr_string      (FwNode *node, const char *name, const char *value);
FwAttr       *fw_node_set_attr_ints        (FwNode *node, const char *name, guint n, const gint64 *values);
FwAttr       *fw_node_set_attr_floats      (FwNode *node, const char *name, guint n, const float *values);
FwAttr       *fw_node_set_attr_tensor      (FwNode *node, const char *name, FwTensor *tensor);
/* Takes ownership of subgraph, whose parent must be node's graph. */
FwAttr       *fw_node_set_attr_graph       (FwNode *node, const char *name, FwGraph *subgraph);
const FwAttr *fw_node_get_attr             (const FwNode *node, const char *name);
gint64        fw_node_get_attr_int         (const FwNode *node, const char *name, gint64 default_value);
float         fw_node_get_attr_float       (const FwNode *node, const char *name, float default_value);
/* NULL if absent or not a string attribute. */
const char   *fw_node_get_attr_string      (const FwNode *node, const char *name);
/* NULL if absent; *n set to the count. */
const gint64 *fw_node_get_attr_ints        (const FwNode *node, const char *name, guint *n);
const float  *fw_node_get_attr_floats      (const FwNode *node, const char *name, guint *n);

/* Reading a node whole, for code outside core/ (the views), which does not see the structs. Inputs and
 * outputs are NULL where an optional one is omitted; attributes come in file order. */
guint         fw_node_get_n_inputs         (const FwNode   *node);
FwValue      *fw_node_get_input            (const FwNode   *node,
                                            guint           index);
guint         fw_node_get_n_outputs        (const FwNode   *node);
FwValue      *fw_node_get_output           (const FwNode   *node,
                                            guint           index);
guint         fw_node_get_n_attrs          (const FwNode   *node);
const FwAttr *fw_node_get_attr_nth         (const FwNode   *node,
                                            guint           index);

const char   *fw_attr_get_name             (const FwAttr   *attr);
FwAttrType    fw_attr_get_attr_type        (const FwAttr   *attr);
float         fw_attr_get_float            (const FwAttr   *attr);
gint64        fw_attr_get_int              (const FwAttr   *attr);
/* The bytes of a STRING attribute (NUL-terminated, not necessarily UTF-8), NULL if there are none;
 * *len without the NUL. */
const char   *fw_attr_get_string           (const FwAttr   *attr,
                                            gsize          *len);
/* The elements of an INTS or FLOATS attribute (NULL when there are none); *n the count. */
const gint64 *fw_attr_get_ints             (const FwAttr   *attr,
                                            guint          *n);
const float  *fw_attr_get_floats           (const FwAttr   *attr,
                                            guint          *n);
/* The element count of any list kind. */
guint         fw_attr_get_n_values         (const FwAttr   *attr);

const char   *fw_value_get_name            (const FwValue  *value);
FwDType       fw_value_get_dtype           (const FwValue  *value);
gint          fw_value_get_rank            (const FwValue  *value);
const FwDim  *fw_value_get_dims            (const FwValue  *value);
gboolean      fw_value_is_initializer      (const FwValue  *value);
/* The initializer's data or a value folded at load; NULL when not known. */
const FwTensor *fw_value_get_constant      (const FwValue  *value);
/* Sets dtype and shape; rank FW_RANK_UNKNOWN clears the shape. */
void          fw_value_set_type            (FwValue        *value,
                                            FwDType         dtype,
                                            gint            rank,
                                            const FwDim    *dims);
gboolean      fw_value_is_static           (const FwValue  *value);
/* Element count for a static shape; -1 otherwise. */
gint64        fw_value_get_n_elements      (const FwValue  *value);
/* "[1,3,224,224]", "[batch,128]", "[?,?]" or "?" */
char         *fw_value_format_shape        (const FwValue  *value);

G_END_DECLS
