/* fw-exec-report.h: the report's "targets", "verification" and "measurement" members (schema in
 * docs/report-schema.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "codegen/fw-targets.h"
#include "exec/fw-fused.h"

G_BEGIN_DECLS

/* Any of targets, verify, measure may be NULL: that member is left out. */
void  fw_exec_report_add       (JsonNode              *report,
                                const FwPlan          *plan,
                                const FwTargets       *targets,
                                const FwVerifyResult  *verify,
                                const FwMeasureResult *measure);
/* The "twin" member of a targets.ascend.kernels[] entry: check, and the planner's estimate for the kernel
 * (seconds) beside the twin's. Also the --twin command's JSON. */
void  fw_exec_report_add_twin  (JsonBuilder           *b,
                                const FwTwinCheck     *check,
                                gdouble                planner_s);
/* Appends the Markdown sections for the members present in root. */
void  fw_exec_report_markdown  (GString               *md,
                                JsonObject            *root);

G_END_DECLS
