/* fw-onnx-fused.h: the fused model (docs/design.md §4.7).
 *
 * The export is the plan's model with every proposed or accepted candidate replaced by one node of domain
 * "fusion.workbench" whose body is a model-local function (ModelProto.functions, IR 8) holding the group's
 * original nodes, attributes and value names. Vetoed and refused candidates stay as they are. ONNX Runtime
 * inlines model-local functions, so the export runs there and gives the original outputs; Netron shows each
 * group as one function node that opens onto the original nodes.
 *
 * A plan without candidates exports the same bytes fw_onnx_serialize writes for the model. Like
 * fw_onnx_write, the export refuses to write over the model's source file or its external data. */
#pragma once

#include <gio/gio.h>

#include "fw-onnx.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

#define FW_ONNX_FUSED_DOMAIN "fusion.workbench"
#define FW_ONNX_FUSED_DOMAIN_VERSION 1
/* Model-local functions need IR 8. */
#define FW_ONNX_FUSED_MIN_IR_VERSION 8

GBytes   *fw_onnx_serialize_fused (FwPlan           *plan,
                                   FwOnnxWriteFlags  flags,
                                   GError          **error);
gboolean  fw_onnx_export_fused    (FwPlan           *plan,
                                   const char       *path,
                                   FwOnnxWriteFlags  flags,
                                   GError          **error);

/* ---- between fw-onnx-fused.c and the writer (libfwcore only) ---- */

/* One fused group: the node that replaces it in the main graph and the function that is its body. */
typedef struct
{
  char       *op_type;     /* also the function's name */
  char       *name;        /* the node's name */
  char       *doc_string;  /* of the node and of the function */
  GPtrArray  *inputs;      /* FwValue*: the group's boundary inputs, initializers included */
  GPtrArray  *outputs;     /* FwValue*: what the group produces for the rest of the graph */
  GPtrArray  *nodes;       /* FwNode*: the original nodes, topological order */
  GPtrArray  *metadata;    /* char*: key, value, key, value… (node metadata_props where IR >= 10) */
} FwOnnxFusedGroup;

typedef struct
{
  GPtrArray  *order;       /* FwNode*: main-graph nodes to write, in order; a group appears once, as its
                              first node */
  GHashTable *group_of;    /* FwNode* → FwOnnxFusedGroup*, for every node inside a group */
  GPtrArray  *groups;      /* FwOnnxFusedGroup*, owned, in function order */
  GHashTable *hidden;      /* FwValue* set: values that now live only inside a function */
} FwOnnxRewrite;

GBytes   *fw_onnx_serialize_rewritten (FwModel             *model,
                                       const FwOnnxRewrite *rewrite,
                                       FwOnnxWriteFlags     flags,
                                       GError             **error);
gboolean  fw_onnx_write_rewritten     (FwModel             *model,
                                       const FwOnnxRewrite *rewrite,
                                       const char          *path,
                                       FwOnnxWriteFlags     flags,
                                       GError             **error);

G_END_DECLS
