/* fw-onnx-rewrite-private.h: the rewrite as fw-onnx-rewrite.c computes it and fw-onnx-writer.c writes it. */
#pragma once

#include "fw-onnx-rewrite.h"

G_BEGIN_DECLS

/* Products of a set computed as one (fw_onnx_rewrite_pack_products): A times the packed weight, plus the
 * packed bias, split back into the roots' results. */
typedef struct
{
  FwValue    *a;
  GPtrArray  *roots;       /* FwNode*, in order */
  GArray     *columns;     /* gint64 per root */
  GPtrArray  *dropped;     /* FwValue*: the roots' weights and biases nothing else in the set reads */
  char       *weight_name;
  FwTensor   *weight;
  char       *bias_name;   /* NULL without a bias */
  FwTensor   *bias;
} FwOnnxPacked;

/* One set: the node that replaces it in its graph (the main graph or a body) and the function that is its body. */
typedef struct
{
  char       *op_type;     /* also the function's name */
  char       *name;        /* the node's name */
  char       *doc_string;  /* of the node and of the function */
  GPtrArray  *inputs;      /* FwValue*: the set's boundary inputs, initializers included */
  GPtrArray  *outputs;     /* FwValue*: what the set produces for the rest of the graph */
  GPtrArray  *nodes;       /* FwNode*: the original nodes, topological order */
  GPtrArray  *metadata;    /* char*: key, value, key, value… (node metadata_props where IR >= 10) */
  FwOnnxPacked *packed;    /* its products as one, or NULL */
} FwOnnxFusedGroup;

struct _FwOnnxRewrite
{
  FwModel    *model;
  GHashTable *taken;       /* op types a function node may not have */
  GPtrArray  *order;       /* FwNode*: main-graph nodes to write, in order; a set appears once, as its
                              first node; NULL until computed */
  GHashTable *body_orders; /* FwGraph* → GPtrArray* of FwNode*: as order, for each control-flow body that
                              holds a set */
  GHashTable *group_of;    /* FwNode* → FwOnnxFusedGroup*, for every node inside a set */
  GPtrArray  *groups;      /* FwOnnxFusedGroup*, owned, in function order */
  GHashTable *hidden;      /* FwValue* set: values that now live only inside a function */
};

GBytes   *fw_onnx_serialize_rewritten (FwModel             *model,
                                       const FwOnnxRewrite *rewrite,
                                       FwOnnxWriteFlags     flags,
                                       GError             **error);
gboolean  fw_onnx_write_rewritten     (FwModel             *model,
                                       const FwOnnxRewrite *rewrite,
                                       const char          *path,
                                       FwOnnxWriteFlags     flags,
                                       GError             **error);

/* One set alone as a model (fw_onnx_rewrite_serialize_set). */
GBytes   *fw_onnx_serialize_group     (FwModel             *model,
                                       const FwOnnxFusedGroup *group,
                                       GError             **error);

G_END_DECLS
