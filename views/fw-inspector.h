/* fw-inspector.h: details of what is selected: a node's attributes, inputs and outputs with shapes and
 * dtypes, initializer statistics (min, max, mean); a candidate's resource and cost estimates, the refusals
 * near it with their codes and explanations, its verification result and what the check found (refreshed on
 * the project's "check-changed"), and its generated host and Ascend C source, highlighted by GtkSourceView 5
 * in a light or dark scheme following the theme where it is installed: the sources of the last check, or
 * generated off the main thread when there are none for the plan as it is (fw-kernel-sources.h). */
#pragma once

#include <gtk/gtk.h>

#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_INSPECTOR (fw_inspector_get_type ())
G_DECLARE_FINAL_TYPE (FwInspector, fw_inspector, FW, INSPECTOR, GtkWidget)

GtkWidget   *fw_inspector_new                 (void);
void         fw_inspector_set_project         (FwInspector *self, FwProject *project);   /* "project" */
void         fw_inspector_show_node           (FwInspector *self, FwNode *node);
void         fw_inspector_show_candidate      (FwInspector *self, guint candidate);
void         fw_inspector_clear               (FwInspector *self);
/* The text shown, for tests ("title" property: the node's or candidate's heading). */
const char  *fw_inspector_get_title           (FwInspector *self);
/* The shown candidate's Verification section ("" when no candidate is shown), for tests. */
const char  *fw_inspector_get_verification_text (FwInspector *self);
/* For tests: the 1-based lines of the shown sources highlighted as a checker's findings, space-separated. */
char        *fw_inspector_get_marked_lines    (FwInspector *self);
/* For tests: whether the shown candidate's sources are being generated (a placeholder stands in for
 * them), and how many generations this inspector has asked for (a cached or checked candidate asks none). */
gboolean     fw_inspector_get_generating      (FwInspector *self);
guint        fw_inspector_get_n_generated     (FwInspector *self);

G_END_DECLS
