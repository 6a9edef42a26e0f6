/* fw-superkernel-report.h: the report's "superkernel" member, the SuperKernel scopes of the plan and the
 * barriers between their kernels (schema in docs/report-schema.md). */
#pragma once

#include <json-glib/json-glib.h>

#include "codegen/host/fw-host-scope.h"
#include "exec/fw-fused.h"
#include "plan/fw-superkernel-plan.h"

G_BEGIN_DECLS

void  fw_superkernel_report_add       (JsonNode       *report,
                                       const FwSkPlan *sk);
/* fw-superkernel-host-report.c: after fw_superkernel_report_add, each scope's "host" (its host programs,
 * arenas and peaks; verified and measured when check is given) and superkernel.host (the totals and the
 * kernels with no host code). check may be NULL. */
void  fw_superkernel_report_add_host  (JsonNode       *report,
                                       const FwHostScopes *host,
                                       const FwScopeCheckResult *check);
/* Each scope's Ascend SuperKernel on the twin (FwTwinCheck*, one per scope in order, as
 * fw_check_get_scope_twin gives them) as scopes[].twin, in the form of a kernel's targets.ascend twin. */
void  fw_superkernel_report_add_twin  (JsonNode       *report,
                                       GPtrArray      *checks);
/* Appends the Markdown section when root has the member. */
void  fw_superkernel_report_markdown  (GString        *md,
                                       JsonObject     *root);

G_END_DECLS
