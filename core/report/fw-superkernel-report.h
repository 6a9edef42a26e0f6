/* fw-superkernel-report.h: the report's "superkernel" member, the SuperKernel scopes of the plan and the
 * barriers between their kernels (schema in docs/report-schema.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

void  fw_superkernel_report_add       (JsonNode       *report,
                                       const FwSkPlan *sk);
/* Appends the Markdown section when root has the member. */
void  fw_superkernel_report_markdown  (GString        *md,
                                       JsonObject     *root);

G_END_DECLS
