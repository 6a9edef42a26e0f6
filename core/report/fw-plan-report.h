/* fw-plan-report.h: the plan's part of the batch report (schema in docs/report-schema.md, "plan"). */
#pragma once

#include <json-glib/json-glib.h>

#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* Adds the "plan" member to a report built by fw_model_report_build. */
void  fw_plan_report_add       (JsonNode     *report,
                                const FwPlan *plan);
/* TRUE when a whitelist's accept entry (for this model) matched nothing or matched a candidate the planner
 * refused and could not be accepted: batch mode's `--fail-on rejected-whitelist`. */
gboolean fw_plan_whitelist_rejected (const FwPlan *plan);
/* Appends the plan's Markdown sections; plan is the report's "plan" object. */
void  fw_plan_report_markdown  (GString      *md,
                                JsonObject   *plan);

G_END_DECLS
