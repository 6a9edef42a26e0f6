/* fw-summary-view.h: a project's plan in three figures (kernels, HBM traffic, estimated time), each for the
 * original graph, the planner's proposal and the user's decisions (core/report/fw-roofline.h), redrawn
 * when the plan changes. */
#pragma once

#include <gtk/gtk.h>

#include "report/fw-roofline.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_SUMMARY_VIEW (fw_summary_view_get_type ())
G_DECLARE_FINAL_TYPE (FwSummaryView, fw_summary_view, FW, SUMMARY_VIEW, GtkWidget)

GtkWidget            *fw_summary_view_new         (void);
/* "project": whose plan to draw; NULL draws nothing. */
void                  fw_summary_view_set_project (FwSummaryView *self,
                                                   FwProject     *project);
FwProject            *fw_summary_view_get_project (FwSummaryView *self);
/* What is drawn now (NULL without a project or plan); valid until the plan next changes. */
const FwRooflineData *fw_summary_view_get_data    (FwSummaryView *self);

G_END_DECLS
