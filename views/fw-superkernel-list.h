/* fw-superkernel-list.h: the plan's SuperKernel scopes (fw_project_get_superkernel_plan) as a list: each
 * scope with its kernels, cores, estimated saving and why it ended; the user's own scopes with a Remove
 * button (win.remove-superkernel), also those that bind no kernels; and a button making a scope of the
 * graph's selection (win.make-superkernel). Rebuilt on "plan-changed". */
#pragma once

#include <gtk/gtk.h>

#include "session/fw-project.h"

G_BEGIN_DECLS

#define FW_TYPE_SUPERKERNEL_LIST (fw_superkernel_list_get_type ())
G_DECLARE_FINAL_TYPE (FwSuperkernelList, fw_superkernel_list, FW, SUPERKERNEL_LIST, GtkWidget)

GtkWidget   *fw_superkernel_list_new          (void);
/* "project": whose scopes to list; NULL lists none. */
void         fw_superkernel_list_set_project  (FwSuperkernelList *self,
                                               FwProject         *project);
FwProject   *fw_superkernel_list_get_project  (FwSuperkernelList *self);
/* The rows shown, and a row's text (its title and subtitle on two lines), for tests. */
guint        fw_superkernel_list_get_n_rows   (FwSuperkernelList *self);
char        *fw_superkernel_list_get_row_text (FwSuperkernelList *self,
                                               guint              row);
/* The line above the list that says how scopes are chosen now, for tests. */
const char  *fw_superkernel_list_get_hint     (FwSuperkernelList *self);

/* Signals: "scope-activated" (guint: the index in the SuperKernel plan's scopes) when a scope's row is
 * activated. */

G_END_DECLS
