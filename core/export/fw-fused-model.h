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

#include "codegen/fw-targets.h"
#include "onnx/fw-onnx.h"
#include "onnx/fw-onnx-rewrite.h"
#include "plan/fw-plan.h"
#include "plan/fw-superkernel-plan.h"

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
/* One fused candidate of that rewrite alone as a small model (fw_onnx_rewrite_serialize_set): its nodes,
 * its boundary as graph inputs and outputs, constants as initializers. NULL with FW_ERROR_INVALID when the
 * candidate is not one of the rewrite's sets. The graph dump's per-kernel models and the kernel package's
 * group.onnx. */
GBytes        *fw_fused_model_serialize_group (FwOnnxRewrite *rewrite,
                                               FwPlan        *plan,
                                               guint          candidate,
                                               GError       **error);
/* The kernel package (fw_kernel_package_write) with each generated Ascend kernel's group as group.onnx
 * (fw_kernel_package_write_with_groups): what the export and batch mode write. */
gboolean       fw_fused_model_write_kernel_package (FwPlan          *plan,
                                                    const FwTargets *targets,
                                                    const char      *dir,
                                                    GError         **error);
/* The same with the SuperKernel scopes of sk (NULL: none) under superkernels/ (fw_kernel_package_write_with_scopes). */
gboolean       fw_fused_model_write_kernel_package_with_scopes (FwPlan          *plan,
                                                                const FwTargets *targets,
                                                                const FwSkPlan  *sk,
                                                                const char      *dir,
                                                                GError         **error);

G_END_DECLS
