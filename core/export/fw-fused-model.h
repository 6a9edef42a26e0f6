/* fw-fused-model.h: the fused model (docs/design.md §4.7).
 *
 * The export is the plan's model with every proposed or accepted candidate replaced by one node of domain
 * "fusion.workbench" whose body is a model-local function (ModelProto.functions, IR 8) holding the group's
 * original nodes, attributes and value names. Vetoed and refused candidates stay as they are. ONNX Runtime
 * inlines model-local functions, so the export runs there and gives the original outputs; Netron shows each
 * group as one function node that opens onto the original nodes.
 *
 * This file reads the plan: which candidates, the function names (Fused_PATTERN_INDEX) and their
 * descriptions. Writing the rewritten model is core/onnx's (fw-onnx-rewrite.h), which knows no plan.
 *
 * A plan without candidates exports the same bytes fw_onnx_serialize writes for the model. Like
 * fw_onnx_write, the export refuses to write over the model's source file or its external data. */
#pragma once

#include <gio/gio.h>

#include "onnx/fw-onnx.h"
#include "onnx/fw-onnx-rewrite.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

GBytes   *fw_fused_model_serialize (FwPlan           *plan,
                                    FwOnnxWriteFlags  flags,
                                    GError          **error);
gboolean  fw_fused_model_write     (FwPlan           *plan,
                                    const char       *path,
                                    FwOnnxWriteFlags  flags,
                                    GError          **error);

/* The rewrite the export writes: one set per proposed or accepted candidate, in plan order. */
FwOnnxRewrite *fw_fused_model_rewrite (FwPlan           *plan,
                                       GError          **error);

G_END_DECLS
