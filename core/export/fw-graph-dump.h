/* fw-graph-dump.h: the graph before fusion, as planned and as decided, for a viewer (docs/graph-dumps.md).
 *
 * CANN dumps its graphs before and after fusion when DUMP_GRAPH=1 (into DUMP_GRAPH_PATH); users compare
 * node counts in a viewer. We write each stage as ONNX and as protobuf text (.pbtxt, which Netron opens),
 * the later stages with the fused groups as fusion.workbench function nodes like the export, and one small
 * model per fused kernel: its nodes with their boundary inputs and outputs. */
#pragma once

#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef enum {
  FW_GRAPH_DUMP_LOADED,   /* the model as read, shapes inferred */
  FW_GRAPH_DUMP_PLANNED,  /* the planner's proposal fused */
  FW_GRAPH_DUMP_DECIDED,  /* after the decisions (whitelists): what the export writes, and the kernels */
} FwGraphDumpStage;

/* DUMP_GRAPH=1: DUMP_GRAPH_PATH, or the current folder when it is not set; NULL when DUMP_GRAPH is unset or
 * 0. FALSE with FW_ERROR_USAGE for another value of DUMP_GRAPH. */
gboolean  fw_graph_dump_dir_from_env (char          **dir,
                                      GError        **error);
/* Writes DIR/STEM.N-STAGE.onnx and .pbtxt (STEM: the model file's name without .onnx), and at the decided
 * stage DIR/STEM.kernels/kNNN_PATTERN.onnx and .pbtxt per proposed or accepted candidate. Creates DIR.
 * FW_ERROR_IO names the file the system refused. */
gboolean  fw_graph_dump_write        (FwPlan         *plan,
                                      const char     *model_path,
                                      const char     *dir,
                                      FwGraphDumpStage stage,
                                      GError        **error);

G_END_DECLS
