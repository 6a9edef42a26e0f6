/* fw-model-explorer.h: the graph and the plan in Google's Model Explorer's own formats, so a team can look at
 * a plan in the tool it already uses: a graph JSON (a GraphCollection: nodes with their namespace, incoming
 * edges and output shapes; every fused group one namespace inside its scope, "fused_3_epilogue") and node
 * data JSON files (the refusal code that kept a node out of fusion, the estimated and the measured µs its
 * group saves) for Model Explorer's node data overlays. Batch --model-explorer DIR and the export dialog
 * write them. No GTK. */
#pragma once

#include <json-glib/json-glib.h>

#include "exec/fw-fused.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* The id of the one graph in the collection, which the node data files name. */
#define FW_MODEL_EXPLORER_GRAPH_ID "main"

typedef enum {
  FW_MODEL_EXPLORER_REFUSAL,       /* "FW-NF-006" per unfused node a refusal names */
  FW_MODEL_EXPLORER_ESTIMATED_US,  /* the estimated saving of the node's proposed or accepted group */
  FW_MODEL_EXPLORER_MEASURED_US,   /* the measured saving of its group (needs a measurement) */
} FwModelExplorerData;

/* The graph JSON for plan's model, labelled label. */
JsonNode  *fw_model_explorer_graph      (FwPlan               *plan,
                                         const char           *label);
/* One node data file; measure may be NULL (then the measured file has no results). */
JsonNode  *fw_model_explorer_node_data  (FwPlan               *plan,
                                         FwMeasureResult      *measure,
                                         FwModelExplorerData   which);
/* Writes BASE.model-explorer.json and BASE.node-data.{refusal,estimated-us[,measured-us]}.json into dir
 * (created), atomically; the paths written are appended to written when it is not NULL. */
gboolean   fw_model_explorer_write      (FwPlan               *plan,
                                         FwMeasureResult      *measure,
                                         const char           *dir,
                                         const char           *base,
                                         GPtrArray            *written,
                                         GError              **error);

G_END_DECLS
