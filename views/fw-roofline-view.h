/* fw-roofline-view.h: the roofline of a project's fusion candidates (core/report/fw-roofline.h): each
 * candidate unfused and fused, joined by an arrow, under the profile's roof. Redrawn when the plan changes;
 * the pointer over a candidate shows its figures in a tooltip; a click on one emits "candidate-selected";
 * "selected-candidate" draws one emphasised (the window keeps it in step with the list and the graph). */
#pragma once

#include <gtk/gtk.h>

#include "report/fw-roofline.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_ROOFLINE_VIEW (fw_roofline_view_get_type ())
G_DECLARE_FINAL_TYPE (FwRooflineView, fw_roofline_view, FW, ROOFLINE_VIEW, GtkWidget)

GtkWidget            *fw_roofline_view_new                    (void);
/* "project": whose plan to draw; NULL draws nothing. */
void                  fw_roofline_view_set_project            (FwRooflineView *self,
                                                               FwProject      *project);
FwProject            *fw_roofline_view_get_project            (FwRooflineView *self);
/* "selected-candidate": the candidate drawn emphasised, G_MAXUINT for none. Setting it does not emit
 * "candidate-selected", so views bound to each other do not loop. */
void                  fw_roofline_view_set_selected_candidate (FwRooflineView *self,
                                                               guint           candidate);
guint                 fw_roofline_view_get_selected_candidate (FwRooflineView *self);
/* What is drawn now (NULL without a project or plan); valid until the plan next changes. */
const FwRooflineData *fw_roofline_view_get_data               (FwRooflineView *self);
/* What a click at widget point (x, y) does: on a candidate's marker, select it and emit
 * "candidate-selected"; elsewhere nothing. For tests and keyboard-driven pointers. */
void                  fw_roofline_view_click                  (FwRooflineView *self,
                                                               gdouble         x,
                                                               gdouble         y);

/* Signals: "candidate-selected" (guint candidate). */

G_END_DECLS
