/* fw-project.h: one open model as the desktop workbench sees it: the model, its plan, the user's
 * decisions with undo and redo, the candidates as a GListModel, and the session file that records it all.
 *
 * This is the core object the views observe (docs/design.md §3): widgets never touch FwPlan directly for
 * changes; they call the project, which changes the plan, updates the candidate list model in place and
 * emits "plan-changed". Decisions autosave the session (when it has a path): a burst of them is written once,
 * a moment after the last, from a worker thread, and whatever is pending is written when the project is
 * disposed or saved explicitly. No GTK. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "graph/fw-model.h"
#include "hw/fw-profile.h"
#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"
#include "plan/fw-superkernel-plan.h"
#include "rules/fw-rules.h"

G_BEGIN_DECLS

/* One row of the candidate list: a snapshot of an FwCandidate's figures, refreshed when the plan changes. */
#define FW_TYPE_CANDIDATE_ITEM (fw_candidate_item_get_type ())
G_DECLARE_FINAL_TYPE (FwCandidateItem, fw_candidate_item, FW, CANDIDATE_ITEM, GObject)

guint        fw_candidate_item_get_index          (FwCandidateItem *self);   /* "index" */
const char  *fw_candidate_item_get_pattern        (FwCandidateItem *self);   /* "pattern" */
guint        fw_candidate_item_get_n_nodes        (FwCandidateItem *self);   /* "n-nodes" */
gdouble      fw_candidate_item_get_ub_percent     (FwCandidateItem *self);   /* "ub-percent" */
gdouble      fw_candidate_item_get_bytes_saved    (FwCandidateItem *self);   /* "bytes-saved" */
guint        fw_candidate_item_get_launches_saved (FwCandidateItem *self);   /* "launches-saved" */
gdouble      fw_candidate_item_get_time_saved_us  (FwCandidateItem *self);   /* "time-saved-us" (estimate) */
gdouble      fw_candidate_item_get_measured_saved_us (FwCandidateItem *self); /* "measured-saved-us", NaN unknown */
const char  *fw_candidate_item_get_verification   (FwCandidateItem *self);   /* "verification": "", "pass", "fail", "unverified" */
/* "twin": the Ascend kernel on the Ascend C twin: "", "pass", "fail" (wrong numbers or a diagnostic), "not-run" */
const char  *fw_candidate_item_get_twin           (FwCandidateItem *self);
const char  *fw_candidate_item_get_status         (FwCandidateItem *self);   /* "status": proposed, accepted… */
/* The text the list's filter matches: pattern, kind, status, the body and node names. */
const char  *fw_candidate_item_get_search_text    (FwCandidateItem *self);
/* "body": the control-flow body holding the candidate ("/If_0/then_branch"), NULL in the main graph. */
const char  *fw_candidate_item_get_body           (FwCandidateItem *self);
/* "location": the name scope the candidate's nodes share ("encoder/layer.3/attention"), else its first node's
 * name; "" for a candidate without nodes. */
const char  *fw_candidate_item_get_location       (FwCandidateItem *self);

#define FW_TYPE_PROJECT (fw_project_get_type ())
G_DECLARE_FINAL_TYPE (FwProject, fw_project, FW, PROJECT, GObject)

/* Plans model (shapes inferred) on profile with rules (not owned; must outlive the project). */
FwProject   *fw_project_new                (FwModel             *model,
                                            FwProfile           *profile,
                                            FwRuleSet           *rules,
                                            const FwPlanOptions *options,
                                            GError             **error);
/* The same, owning rules: they are freed after the plan (and on failure). */
FwProject   *fw_project_new_owning_rules   (FwModel             *model,
                                            FwProfile           *profile,
                                            FwRuleSet           *rules,
                                            const FwPlanOptions *options,
                                            GError             **error);
FwModel     *fw_project_get_model          (FwProject *self);
FwPlan      *fw_project_get_plan           (FwProject *self);
FwProfile   *fw_project_get_profile        (FwProject *self);
/* FwCandidateItem per candidate, in plan order; items change in place and rows are added after a veto
 * (items-changed). */
GListModel  *fw_project_get_candidates     (FwProject *self);

/* Decisions; each emits "plan-changed" and autosaves. FALSE with error for a bad index. */
gboolean     fw_project_accept             (FwProject *self, guint candidate, GError **error);
gboolean     fw_project_veto               (FwProject *self, guint candidate, GError **error);
/* Pattern-level (fw_plan_decide_pattern): every candidate whose pattern or kind is pattern, also those
 * re-planning adds later; undone and redone like the others. */
gboolean     fw_project_decide_pattern     (FwProject *self, FwDecisionAction action, const char *pattern,
                                            GError **error);
/* Applies a whitelist's entries in order (fw_plan_apply_whitelist), each a decision of its own. */
gboolean     fw_project_apply_whitelist    (FwProject *self, const FwWhitelist *whitelist, GError **error);
/* SuperKernel scopes the user chooses (fw_plan_make_superkernel, fw_plan_remove_superkernel): decisions
 * like the others, undone, redone and saved in the session; fw_project_get_superkernel_plan follows. */
gboolean     fw_project_make_superkernel   (FwProject *self, const FwSkUserScope *scope, GError **error);
gboolean     fw_project_remove_superkernel (FwProject *self, const char *name, GError **error);
gboolean     fw_project_can_undo           (FwProject *self);   /* "can-undo" */
gboolean     fw_project_can_redo           (FwProject *self);   /* "can-redo" */
gboolean     fw_project_undo               (FwProject *self);
gboolean     fw_project_redo               (FwProject *self);

/* Verification and timing results to show in the list (from core/exec); NaN / NULL clear them. */
void         fw_project_set_measured       (FwProject *self, guint candidate, gdouble saved_us);
void         fw_project_set_verification   (FwProject *self, guint candidate, const char *result);
void         fw_project_set_twin           (FwProject *self, guint candidate, const char *result);
/* The plan's SuperKernel scopes as it stands (fw-superkernel-plan.h): the user's when the decisions made
 * some, else automatic ones; computed when first asked after a change, owned by the project. NULL only if
 * the plan cannot be scheduled. Main thread. */
const FwSkPlan *fw_project_get_superkernel_plan (FwProject *self);
/* What the check found for a candidate, for the inspector: compile errors, measured errors against their
 * tolerance, timings; NULL clears. Emits "check-changed" (guint candidate). */
void         fw_project_set_check_detail   (FwProject *self, guint candidate, const char *detail);
const char  *fw_project_get_check_detail   (FwProject *self, guint candidate);

/* Generated kernel sources per candidate (fw-kernel-sources.h), kept for the revision they were made at:
 * the last check's, or what was generated for the inspector. NULL when there are none for the plan as it
 * is now. set takes a reference. */
typedef struct _FwKernelSources FwKernelSources;
void         fw_project_set_kernel_sources (FwProject *self, guint candidate, FwKernelSources *sources);
FwKernelSources *fw_project_get_kernel_sources (FwProject *self, guint candidate);

/* A short read of the plan from a worker without making the project busy (generating one candidate's
 * sources): while any hold is on, a decision, undo, redo or restore on the main thread waits for the last
 * release instead of failing. Either may be called from any thread; long tasks set "busy" instead. */
void         fw_project_hold_plan          (FwProject *self);
void         fw_project_release_plan       (FwProject *self);

/* Counts changes of the plan (decisions, undo, redo, restores): results computed at one revision (a check,
 * a verification) describe the plan only while the revision is the same. */
guint64      fw_project_get_revision       (FwProject *self);

/* The model part of the report (fw_model_report_build, made when the model was loaded), for exports;
 * referenced. */
void         fw_project_set_model_report   (FwProject *self, JsonNode *report);
JsonNode    *fw_project_get_model_report   (FwProject *self);

/* "busy": a background task (compile, verify, measure, export) reads the plan. While busy, decisions, undo,
 * redo and session restores are refused with FW_ERROR_USAGE, so the task never sees the plan change. */
void         fw_project_set_busy           (FwProject *self, gboolean busy);
gboolean     fw_project_get_busy           (FwProject *self);

/* Dim bindings the model was inferred with ("batch=8"), recorded in the session; NULL for none. */
void         fw_project_set_bindings       (FwProject *self, const char * const *bindings);
const char * const *fw_project_get_bindings (FwProject *self);

/* Sessions (*.fwsession, docs/design.md §4.6): model path and fingerprint, profile, strategy, bindings and
 * every decision in order. Saving writes a temp file, fsyncs and renames. */
void         fw_project_set_session_path   (FwProject *self, const char *path);   /* "session-path"; NULL: none */
const char  *fw_project_get_session_path   (FwProject *self);
/* Writes now, in this thread; an autosave pending or in flight is superseded and never lands after it. */
gboolean     fw_project_save_session       (FwProject *self, GError **error);
/* Writes a pending autosave now and waits until every queued write has reached the disk. */
void         fw_project_flush_session      (FwProject *self);
/* Replays a session's decisions onto this project's plan. FW_ERROR_PARSE or FW_ERROR_INVALID (with file,
 * line and column) when the file is not a session; FW_ERROR_USAGE when it is for another model (fingerprint differs). */
gboolean     fw_project_restore_session    (FwProject *self, const char *path, GError **error);
/* The default session path for a model: MODEL.onnx → MODEL.fwsession beside it. */
char        *fw_project_session_path_for   (const char *model_path);

G_END_DECLS
