/* fw-model-report.h: the model report of batch mode, as JSON (schema in docs/report-schema.md) and as
 * Markdown rendered from the same data, so the two never disagree. Output is deterministic: no times, no
 * absolute paths beyond what the user passed, stable orderings. */
#pragma once

#include <json-glib/json-glib.h>

#include "graph/fw-model.h"
#include "shape/fw-shape-infer.h"

G_BEGIN_DECLS

#define FW_REPORT_SCHEMA_VERSION 1

typedef enum {
  FW_REPORT_JSON,
  FW_REPORT_MARKDOWN,
} FwReportFormat;

/* bindings: symbol → gint64*, as given to inference; may be NULL. symbols: the model's symbolic dims before
 * binding (fw_graph_collect_symbols), NULL-terminated; may be NULL. */
JsonNode *fw_model_report_build       (FwModel             *model,
                                       const FwInferReport *infer,
                                       GHashTable          *bindings,
                                       const char * const  *symbols);
char     *fw_model_report_format      (JsonNode            *report,
                                       FwReportFormat       format);

G_END_DECLS
