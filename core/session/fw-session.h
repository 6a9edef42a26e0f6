/* fw-session.h: the `*.fwsession` file (docs/session-format.md): which model (path and fingerprint), the
 * profile, strategy and dim bindings it was planned with, and every decision in order, so reopening gives
 * the same plan.
 *
 * Decisions are replayed by node names, not candidate numbers: numbers depend on the order re-planning
 * appended candidates, names only on the model. Reading validates everything with file:line:column; writing
 * is atomic (core/io/fw-file-write.h). Nothing here knows about GObject or the window. */
#pragma once

#include <glib.h>

#include "plan/fw-decisions.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* Caps on what a session file may hold, so a hostile file cannot make the reader allocate without bound. */
#define FW_SESSION_MAX_DECISIONS  100000
#define FW_SESSION_MAX_NODES      65536   /* node names in one decision */
#define FW_SESSION_MAX_BINDINGS   1024

typedef struct
{
  FwDecisionAction  action;
  guint             candidate;   /* its number when decided, G_MAXUINT unknown: shown, never matched on */
  char             *pattern;     /* with nodes: the candidate's pattern, a label; without: pattern-level */
  GStrv             nodes;       /* node-level: the fusion's node names, else NULL */
  char             *body;        /* node-level: the control-flow body holding them, NULL for the main graph */
  char             *who;         /* may be NULL */
  char             *why;         /* may be NULL */
  guint             line;        /* in the file, 0 when built in memory */
  FwSkUserScope    *superkernel; /* SuperKernel decisions (`action: superkernel` or `superkernel_remove`): the
                                    scope made, or the name of the one removed; else NULL */
} FwSessionDecision;

typedef struct
{
  char       *filename;          /* as shown in errors and decision sources */
  char       *model_path;        /* may be NULL (a model built in memory) */
  char       *model_fingerprint; /* 64 lower-case hex digits */
  char       *profile;           /* profile name, may be NULL */
  FwStrategy  strategy;
  GStrv       bindings;          /* "name=value", sorted by name; NULL when none */
  GPtrArray  *decisions;         /* FwSessionDecision*, in the order they were made */
} FwSession;

FwSession   *fw_session_new          (void);
void         fw_session_free         (FwSession       *session);
/* Errors: FW_ERROR_IO when the file cannot be read, FW_ERROR_PARSE "FILE:LINE:COL: …" when it is not
 * YAML, FW_ERROR_INVALID "FILE:LINE:COL: …" when it is YAML but not a session (missing or unknown keys,
 * wrong types, over a cap). */
FwSession   *fw_session_load         (const char      *path,
                                      GError         **error);
FwSession   *fw_session_load_data    (const char      *display_name,
                                      const char      *data,
                                      gsize            len,
                                      GError         **error);
/* Deterministic YAML, every string double-quoted with escapes. */
char        *fw_session_to_string    (const FwSession *session);
/* Atomic and durable (temporary file, fsync, rename). */
gboolean     fw_session_save         (const FwSession *session,
                                      const char      *path,
                                      GError         **error);
/* The applied decisions of plan as a session. model_path, bindings may be NULL. */
FwSession   *fw_session_from_plan    (FwPlan          *plan,
                                      const char      *model_path,
                                      const char * const *bindings);
/* FW_ERROR_USAGE when the session was written for a model with another fingerprint than plan's. */
gboolean     fw_session_check_model  (const FwSession *session,
                                      FwPlan          *plan,
                                      GError         **error);
/* Replays every decision in order (fw_plan_decide, source "FILE:LINE"), without checking the model; a
 * decision whose nodes no candidate has any more is logged with outcome matched_nothing. Returns how many
 * decisions applied to at least one candidate. */
guint        fw_session_apply        (const FwSession *session,
                                      FwPlan          *plan);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FwSession, fw_session_free)

G_END_DECLS
