/* fw-candidate-list.h: the candidate list: a GtkColumnView over the project's candidates with pattern,
 * nodes, UB %, HBM bytes saved, launches saved, estimated and measured time saved, verification and
 * decision; sortable by every column and filterable by status, pattern and text; `a` accepts and `v`
 * vetoes the selected rows. */
#pragma once

#include <gtk/gtk.h>

#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_CANDIDATE_LIST (fw_candidate_list_get_type ())
G_DECLARE_FINAL_TYPE (FwCandidateList, fw_candidate_list, FW, CANDIDATE_LIST, GtkWidget)

GtkWidget   *fw_candidate_list_new            (void);
void         fw_candidate_list_set_project    (FwCandidateList *self, FwProject *project);   /* "project" */
FwProject   *fw_candidate_list_get_project    (FwCandidateList *self);
/* "filter-text", "filter-status" ("" for any, else proposed, accepted, vetoed, refused). */
void         fw_candidate_list_set_filter_text   (FwCandidateList *self, const char *text);
void         fw_candidate_list_set_filter_status (FwCandidateList *self, const char *status);
/* Selects the row of a candidate and scrolls to it. */
void         fw_candidate_list_select         (FwCandidateList *self, guint candidate);
/* Candidates of the selected rows, ascending. */
GArray      *fw_candidate_list_get_selection  (FwCandidateList *self);
/* Accept / veto every selected candidate through the project. */
void         fw_candidate_list_accept_selected (FwCandidateList *self);
void         fw_candidate_list_veto_selected   (FwCandidateList *self);
/* The rows' menu (right click, Menu, Shift+F10): Accept and Veto the selected rows, accept or veto every
 * candidate of candidate's pattern, through the window's win.* actions. A new model. */
GMenuModel  *fw_candidate_list_context_menu    (FwCandidateList *self, guint candidate);
/* Opens that menu for the first selected row. */
void         fw_candidate_list_popup_context_menu (FwCandidateList *self);

/* Signal: "candidate-selected" (guint), when the selection's first row changes. */

G_END_DECLS
