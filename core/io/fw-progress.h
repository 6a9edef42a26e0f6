/* fw-progress.h: the `fraction` and `message` properties of a long operation (load, layout, check,
 * export), reported from a worker thread and notified in the caller's main context, never in the worker.
 *
 * The owner embeds an FwProgress, installs the two properties and reads fraction/message from it; the worker
 * calls fw_progress_report. Within one run the fraction only moves forward, even when notifications
 * arrive late; fw_progress_begin starts a run at 0. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct
{
  gdouble     fraction;
  char       *message;
  GParamSpec *fraction_pspec;   /* the owner's "fraction" property */
  GParamSpec *message_pspec;    /* the owner's "message" property */
  /* A worker reporting faster than the main loop applies updates folds them into the one still queued,
   * so a model with thousands of tensors does not queue thousands of redraws ahead of its result. */
  GMutex      lock;
  GMutex      apply_lock;   /* without a context, workers apply their reports themselves, one at a time */
  gpointer    pending;
} FwProgress;

/* The owner's "fraction" (0 to 1) and "message" properties, read-only, notified explicitly; for its
 * class_init, before fw_progress_init. */
void     fw_progress_pspecs  (GParamSpec  **fraction,
                              GParamSpec  **message);
/* Fills value when pspec is one of progress's two properties (TRUE); FALSE for any other. */
gboolean fw_progress_get_property (const FwProgress *progress,
                                   GParamSpec       *pspec,
                                   GValue           *value);
void     fw_progress_init    (FwProgress   *progress,
                              GParamSpec   *fraction_pspec,
                              GParamSpec   *message_pspec);
void     fw_progress_clear   (FwProgress   *progress);
/* Reports for owner (whose FwProgress is progress) in context; NULL context: at once, in this thread.
 * message NULL keeps the current one. */
void     fw_progress_report  (GObject      *owner,
                              FwProgress   *progress,
                              GMainContext *context,
                              gdouble       fraction,
                              const char   *message);
/* Starts a run: the fraction goes back to 0. */
void     fw_progress_begin   (GObject      *owner,
                              FwProgress   *progress,
                              GMainContext *context,
                              const char   *message);

G_END_DECLS
