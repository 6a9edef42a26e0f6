/* fw-compare-window.h: the plan as it is against another strategy's plan of the same model (win.compare), or
 * against a session file's (win.compare-session). */
#pragma once

#include <adwaita.h>

#include "fw-window.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

#define FW_TYPE_COMPARE_WINDOW (fw_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (FwCompareWindow, fw_compare_window, FW, COMPARE_WINDOW, AdwWindow)

/* Starts planning with strategy in a thread; the list fills when it is done. */
FwCompareWindow *fw_compare_window_new          (FwWindow        *window,
                                                 FwStrategy       strategy);
/* Against the plan a session file's strategy and decisions make (errors show in the window). */
FwCompareWindow *fw_compare_window_new_for_session (FwWindow   *window,
                                                    const char *session_path);
/* Whether the other plan is made and the list filled. */
gboolean         fw_compare_window_get_ready    (FwCompareWindow *self);
/* The other plan (owned by the window): NULL until ready. */
FwPlan          *fw_compare_window_get_other_plan (FwCompareWindow *self);
/* fw_plan_diff (the plan here, the other): NULL until ready. */
GArray          *fw_compare_window_get_diff     (FwCompareWindow *self);
/* What activating the n-th row does: select its fusion, or find the first node of one only the other has. */
void             fw_compare_window_activate_row (FwCompareWindow *self,
                                                 guint            n);

G_END_DECLS
