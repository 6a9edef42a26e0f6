/* fw-decisions.h: steering the plan (docs/design.md §4.5, §5.6). Accept a candidate (it is locked: later
 * re-plans leave it as it is), veto it (it is marked vetoed, FW-NF-012 is recorded, and its nodes are
 * planned again without it, so a smaller fusion may still come up), per candidate or per pattern; a log of
 * every decision with undo and redo; whitelists (`*.fusion.yaml`, docs/whitelist-format.md) read, applied
 * and written.
 *
 * Re-planning after a veto touches only the freed nodes: backward growth from the freed sinks first, then
 * epilogue growth from the freed compute roots (so vetoing MatMul → bias → GELU leaves the elementwise tail
 * to fuse), with no group allowed to hold every node of a vetoed set. New candidates are appended; others
 * keep their index and nodes. The aggressive strategy's merge pass does not run again. */
#pragma once

#include "fw-plan.h"

G_BEGIN_DECLS

typedef enum {
  FW_DECISION_ACCEPT,
  FW_DECISION_VETO,
  /* SuperKernel scopes (docs/superkernel.md): they set no candidate's status; the scopes the applied ones
   * leave are fw_plan_get_user_scopes. */
  FW_DECISION_SUPERKERNEL,          /* makes the scope `scope_name`: the kernels under `scope` or holding `nodes` */
  FW_DECISION_SUPERKERNEL_REMOVE,   /* removes the scope `scope_name` */
} FwDecisionAction;

typedef enum {
  FW_DECISION_APPLIED,         /* it set the status of at least one candidate */
  FW_DECISION_MATCHED_NOTHING, /* no candidate matched */
  FW_DECISION_REFUSED,         /* an accept that matched only candidates the planner refused for a reason
                                  other than FW-NF-010 (no benefit): they stay refused */
  FW_DECISION_OTHER_MODEL,     /* node-level, for a model with another fingerprint: not applied */
} FwDecisionOutcome;

typedef struct
{
  FwDecisionAction   action;
  guint              candidate;    /* user decisions by index: the candidate, else G_MAXUINT */
  char              *pattern;      /* pattern-level: a candidate's pattern or kind, else NULL */
  GStrv              nodes;        /* node-level (or the nodes of `candidate`): node names, else NULL */
  char              *body;         /* node-level: the body holding the nodes ("/If_0/then_branch"), NULL
                                      for the main graph */
  char              *fingerprint;  /* node-level whitelist entries: the model they are for, else NULL */
  char              *source;       /* "user", or "FILE:LINE" of a whitelist entry */
  char              *who;          /* may be NULL */
  char              *why;          /* may be NULL */
  gboolean           whitelist;    /* came from a whitelist entry */
  char              *scope;        /* SuperKernel decisions: the name-scope prefix, else NULL */
  char              *scope_name;   /* SuperKernel decisions: the scope's name, else NULL */
  /* Filled in when applied: */
  FwDecisionOutcome  outcome;
  GArray            *matched;      /* guint: candidates whose status it set */
  GArray            *refused;      /* guint: candidates an accept matched but could not accept */
} FwDecision;

FwDecision   *fw_decision_new            (FwDecisionAction  action,
                                          const char       *source,
                                          const char       *who,
                                          const char       *why);
FwDecision   *fw_decision_copy           (const FwDecision *decision);  /* without the outcome */
void          fw_decision_free           (FwDecision       *decision);
/* "accept", "veto", "superkernel", "superkernel_remove" */
const char   *fw_decision_action_name    (FwDecisionAction  action);
const char   *fw_decision_outcome_name   (FwDecisionOutcome outcome);   /* "applied", "matched_nothing", … */

/* Applies decision and appends it to the log (taking it), dropping what could have been redone. Returns
 * FALSE with an FW_ERROR_USAGE error, and logs nothing, when it names a candidate that does not exist, or
 * accepts a vetoed one. Matching nothing is not an error: see decision->outcome. Totals are recomputed. */
gboolean      fw_plan_decide             (FwPlan           *plan,
                                          FwDecision       *decision,
                                          GError          **error);
/* Shorthands for a user decision on one candidate; who and why may be NULL. */
gboolean      fw_plan_accept             (FwPlan           *plan,
                                          guint             candidate,
                                          const char       *who,
                                          const char       *why,
                                          GError          **error);
gboolean      fw_plan_veto               (FwPlan           *plan,
                                          guint             candidate,
                                          const char       *who,
                                          const char       *why,
                                          GError          **error);
/* Pattern-level: every candidate whose pattern or kind is `pattern`, also those re-planning adds later. */
gboolean      fw_plan_decide_pattern     (FwPlan           *plan,
                                          FwDecisionAction  action,
                                          const char       *pattern,
                                          const char       *who,
                                          const char       *why,
                                          GError          **error);
gboolean      fw_plan_can_undo           (const FwPlan     *plan);
gboolean      fw_plan_can_redo           (const FwPlan     *plan);
/* Undo rebuilds the plan from the model and re-applies the decisions before the last one; redo applies the
 * next one again. Both are deterministic: the plan is what applying the same decisions in order gives. */
gboolean      fw_plan_undo               (FwPlan           *plan);
gboolean      fw_plan_redo               (FwPlan           *plan);
/* ---- SuperKernel scopes the user chose (fw-superkernel-decisions.c) ---- */

/* A scope of kernels bound into one launch: those whose nodes are all under a name-scope prefix, or those
 * holding any of a list of nodes (a range selected in the window, a whitelist's node list). */
typedef struct
{
  char   *name;     /* unique among the plan's user scopes; the prefix itself for a name scope by default */
  char   *prefix;   /* a name-scope prefix ("/encoder/layers.3"), or NULL */
  GStrv   nodes;    /* or node names of the main graph, else NULL */
  char   *source;   /* "user", "FILE:LINE" of a whitelist, "--superkernel-scope" */
  char   *who;      /* may be NULL */
  char   *why;      /* may be NULL */
  guint   line;     /* in the file it was read from, 0 when built in memory */
} FwSkUserScope;

FwSkUserScope *fw_sk_user_scope_new      (const char       *name,
                                          const char       *prefix,
                                          const char * const *nodes);
FwSkUserScope *fw_sk_user_scope_copy     (const FwSkUserScope *scope);
void          fw_sk_user_scope_free      (FwSkUserScope    *scope);
/* The index of the scope called name in scopes (FwSkUserScope*), or G_MAXUINT. */
guint         fw_sk_user_scopes_find     (GPtrArray        *scopes,
                                          const char       *name);
/* The scopes the applied decisions leave, in the order they were made (FwSkUserScope*, a new array). */
GPtrArray    *fw_plan_get_user_scopes    (const FwPlan     *plan);
/* A decision making scope (copied) a user scope; FW_ERROR_USAGE, and nothing logged, when it has neither a
 * prefix nor nodes, no name, or the name of a scope that exists. */
gboolean      fw_plan_make_superkernel   (FwPlan           *plan,
                                          const FwSkUserScope *scope,
                                          GError          **error);
/* A decision removing the user scope called name; FW_ERROR_USAGE when there is none. */
gboolean      fw_plan_remove_superkernel (FwPlan           *plan,
                                          const char       *name,
                                          GError          **error);

/* The model fingerprint (fw-fingerprint.h), computed once. */
const char   *fw_plan_get_fingerprint    (FwPlan           *plan);

/* ---- whitelists ---- */

typedef struct
{
  FwDecisionAction  action;
  char             *pattern;      /* pattern-level, or NULL */
  GStrv             nodes;        /* node-level, or NULL */
  char             *body;         /* node-level: the control-flow body of the nodes, NULL for the main graph */
  char             *fingerprint;  /* node-level: the entry's, or the file's `model.fingerprint` */
  char             *who;
  char             *why;
  guint             line;         /* in the file, 0 when built in memory */
} FwWhitelistEntry;

typedef struct
{
  char       *filename;           /* as shown in sources and errors */
  char       *model_file;         /* `model.file`, or NULL */
  char       *model_fingerprint;  /* `model.fingerprint`, or NULL */
  GPtrArray  *entries;            /* FwWhitelistEntry* */
  GPtrArray  *superkernel_scopes; /* FwSkUserScope*, `superkernel_scopes:`, applied after the entries */
} FwWhitelist;

FwWhitelist  *fw_whitelist_new           (void);
void          fw_whitelist_free          (FwWhitelist      *whitelist);
/* Errors are FW_ERROR_PARSE "FILE:LINE:COL: message" (FW_ERROR_IO when the file cannot be read). */
FwWhitelist  *fw_whitelist_load          (const char       *path,
                                          GError          **error);
FwWhitelist  *fw_whitelist_load_data     (const char       *display_name,
                                          const char       *data,
                                          gsize             len,
                                          GError          **error);
/* Deterministic YAML; every string double-quoted with escapes. */
char         *fw_whitelist_to_string     (const FwWhitelist *whitelist);
/* Atomic and durable (temporary file, fsync, rename). */
gboolean      fw_whitelist_save          (const FwWhitelist *whitelist,
                                          const char       *path,
                                          GError          **error);
/* Applies every entry in file order (fw_plan_decide with source "FILE:LINE"): pattern-level ones to any
 * model, node-level ones only when their fingerprint is the model's (else the outcome is OTHER_MODEL); then
 * each SuperKernel scope as a fw_plan_make_superkernel decision (one whose name exists already is skipped). */
void          fw_plan_apply_whitelist    (FwPlan           *plan,
                                          const FwWhitelist *whitelist);
/* The plan's final state as a whitelist: the pattern-level decisions applied, in order, then one
 * node-level entry per candidate whose status no pattern-level decision set: accept for proposed and
 * accepted ones, veto for vetoed ones (refused ones are left out), and the user's SuperKernel scopes.
 * model_file may be NULL. */
FwWhitelist  *fw_whitelist_from_plan     (FwPlan           *plan,
                                          const char       *model_file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwWhitelist, fw_whitelist_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwSkUserScope, fw_sk_user_scope_free)

G_END_DECLS
