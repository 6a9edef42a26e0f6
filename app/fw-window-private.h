/* fw-window-private.h: FwWindow's instance, shared by fw-window.c (loading, views) and
 * fw-window-actions.c (the win.* actions). */
#pragma once

#include "fw-window.h"
#include "fw-candidate-list.h"
#include "fw-graph-view.h"
#include "fw-inspector.h"
#include "fw-roofline-view.h"
#include "fw-summary-view.h"
#include "fw-superkernel-list.h"
#include "session/fw-check.h"
#include "session/fw-open.h"

G_BEGIN_DECLS

struct _FwWindow
{
  AdwApplicationWindow parent_instance;

  GSettings *settings;

  /* The loaded model (the project owns its rules) and its layout. */
  FwProject *project;
  FwLayout *layout;
  char *model_path;

  /* Rule files or folders and whitelists from the command line, after the preferences' own. */
  GStrv extra_rules;
  GStrv extra_whitelists;

  /* The symbolic dims the shown model declares (the pending open's, until it is shown), and the sizes given
   * them in the banner: symbol → gint64*, applied over the preferences' bindings at the next open. */
  GStrv symbols;
  GStrv pending_symbols;
  GHashTable *dim_bindings;
  gulong plan_changed_handler;

  /* The fused view's layout (each fused group one box) and its compute in progress (fw-window-fused.c). */
  FwLayout *fused_layout;
  GCancellable *fused_cancellable;

  /* The open (FwOpen) and layout in progress: NULL when idle. */
  GCancellable *cancellable;
  FwOpen *opening;
  FwLayout *pending_layout;
  FwProject *pending_project;
  char *pending_path;

  /* A check or an export in progress (NULL when idle), and the last check that finished. */
  GCancellable *job_cancellable;
  FwCheck *running_check;
  FwCheck *last_check;
  GtkWindow *export_dialog;   /* weak: the open export dialog, if any */

  gulong can_undo_handler;
  gulong can_redo_handler;
  gulong busy_handler;
  guint reveal_source;   /* the progress bar appears after a moment of work */

  /* Template children */
  AdwWindowTitle *window_title;
  GtkSearchBar *search_bar;
  GtkSearchEntry *search_entry;
  GtkRevealer *progress_revealer;
  GtkProgressBar *progress_bar;
  GtkLabel *progress_label;
  AdwToastOverlay *toast_overlay;
  GtkStack *stack;
  AdwStatusPage *error_page;
  FwGraphView *graph_view;
  FwCandidateList *candidate_list;
  FwInspector *inspector;
  GtkStack *side_stack;
  FwRooflineView *roofline_view;
  FwSummaryView *summary_view;
  FwSuperkernelList *superkernel_list;
  GMenu *recent_section;
  GtkRevealer *dims_revealer;
  GtkLabel *dims_label;
  GtkBox *dims_entries;
  GtkButton *dims_apply;
  GtkLabel *empty_plan_label;
  GtkDropDown *overlay_dropdown;
  GtkToggleButton *fused_button;
};

/* fw-window-actions.c */
void fw_window_actions_init          (FwWindow *self);
void fw_window_actions_update        (FwWindow *self);
void fw_window_add_shortcuts         (FwWindow *self);
/* fw-window.c */
void fw_window_choose_file           (FwWindow *self);
void fw_window_save_session          (FwWindow *self, gboolean quiet);
void fw_window_show_progress         (FwWindow *self, gdouble fraction, const char *message);
/* Shows task's "fraction" and "message" (an FwProgress owner) in the progress bar; the caller disconnects
 * (by data, self) when the task is done. */
void fw_window_follow_progress       (FwWindow *self, GObject *task);
/* A check or export starts: the progress bar shows, the Cancel button cancels job_cancellable. */
void fw_window_begin_job             (FwWindow *self, const char *message);
void fw_window_end_job               (FwWindow *self);
/* What the whitelists applied while opening did, for a toast; NULL when the plan holds no whitelist entry. */
char *fw_window_whitelist_summary    (const FwPlan *plan);
/* fw-window-superkernel.c */
/* The user's SuperKernel scope from the graph's selection: the selected collapsed name scope, or the range of
 * kernels from the selected node to the one Shift+click added; FALSE with a FW_ERROR_USAGE error that says
 * how to select one. The new scope's name in *name (may be NULL). */
gboolean fw_window_make_superkernel      (FwWindow *self, char **name, GError **error);
gboolean fw_window_remove_superkernel    (FwWindow *self, const char *name, GError **error);
/* Connects the scope list to the graph (a row selects its scope's kernels). */
void     fw_window_superkernel_init      (FwWindow *self);
/* fw-window-fused.c */
/* Shows the plan after fusion (each fused group one box) or the graph as it is; the header's toggle. */
void     fw_window_set_fused_view        (FwWindow *self, gboolean fused);
/* Whether the fused view is on screen (laid out and shown). */
gboolean fw_window_get_fused_view_ready  (FwWindow *self);
void     fw_window_fused_plan_changed    (FwWindow *self);
void     fw_window_fused_dispose         (FwWindow *self);
/* fw-window-dims.c */
/* The symbolic dims of the shown model's inputs that have no size, sorted; owned by the caller. */
GStrv fw_window_get_unbound_symbols  (FwWindow *self);
/* After a project is shown or its plan changed: the banner of unbound dims and the empty plan's reason. */
void  fw_window_dims_update          (FwWindow *self);
void  fw_window_dims_update_reason   (FwWindow *self);
/* Sizes the banner's entries give (FALSE with a toast when one is not a positive integer), then opens the
 * model again with them. */
gboolean fw_window_dims_apply        (FwWindow *self);
/* The banner's entry for symbol, or NULL (tests type into it). */
GtkEditable *fw_window_dims_get_entry (FwWindow *self, const char *symbol);
/* symbol → gint64* of the banner's sizes, laid over bindings (the preferences'). */
void  fw_window_dims_merge_bindings  (FwWindow *self, GHashTable *bindings);

G_END_DECLS
