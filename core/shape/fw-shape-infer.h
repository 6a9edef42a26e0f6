/* fw-shape-infer.h: shape and dtype inference over a whole graph, with constant folding of the small
 * integer subgraphs exporters use to compute shapes (Shape → Gather → Unsqueeze → Concat → Reshape,
 * ConstantOfShape, Range…), so torchvision and BERT exports reach fully static shapes.
 *
 * Symbolic dims ("batch") stay symbolic unless bound. An op without inference leaves its outputs unknown
 * and is listed; inference never fails because an op is unknown. It never touches weights beyond the
 * small integer tensors that feed shape computations. */
#pragma once

#include <glib.h>

#include "graph/fw-graph-private.h"

G_BEGIN_DECLS

typedef struct
{
  /* Symbol → static value (char* → gint64*), e.g. "batch" → 8; may be NULL. */
  GHashTable *bindings;
  /* Constants folded only when the result has at most this many elements (0: default 65536). */
  gint64      max_fold_elements;
} FwInferOptions;

typedef struct
{
  guint       n_nodes;            /* nodes visited, subgraphs included */
  guint       n_values;           /* values with a producer or graph input, subgraphs included */
  guint       n_static_values;    /* of those, with a fully static shape */
  guint       n_folded;           /* nodes whose outputs became constants */
  GHashTable *ops_without_inference;  /* "domain:op_type" or "op_type" → count (GUINT_TO_POINTER) */
} FwInferReport;

void      fw_infer_report_init   (FwInferReport          *report);
void      fw_infer_report_clear  (FwInferReport          *report);

/* Infers the root graph and its subgraphs in topological order. Graph inputs' symbolic dims present in
 * options->bindings become static first. The error (FW_ERROR_INVALID) names the node and what
 * contradicts. */
gboolean  fw_shape_infer_graph   (FwGraph                *graph,
                                  const FwInferOptions   *options,
                                  FwInferReport          *report,
                                  GError                **error);

G_END_DECLS
