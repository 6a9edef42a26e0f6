/* fw-autosave.h: writes a project's session file from a worker thread, one write at a time, the latest text
 * winning over any older one not yet written (core/session only; FwProject decides when to snapshot).
 *
 * Every write goes through fw_file_write, so a crash or a failed write leaves the previous file whole. A
 * failed background write is reported to the owner in the main context it was queued from, unless the owner
 * is gone by then. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _FwAutosave FwAutosave;

/* Called in the queuing thread's main context after a background write failed. */
typedef void (*FwAutosaveFailed) (GObject *owner, const GError *error);

/* owner is held weakly. */
FwAutosave *fw_autosave_new       (GObject          *owner,
                                   FwAutosaveFailed  failed);
/* Waits for the write in flight, then frees; text still queued is written first. */
void        fw_autosave_free      (FwAutosave       *self);
/* Writes text (taken) to path soon, in the worker; replaces a queued text not yet being written. */
void        fw_autosave_queue     (FwAutosave       *self,
                                   const char       *path,
                                   char             *text);
/* Returns once nothing is queued or being written. */
void        fw_autosave_wait      (FwAutosave       *self);
/* Drops what is queued, waits for the write in flight, then writes text (taken) here, in this thread, so
 * the file ends with it whatever was queued before. */
gboolean    fw_autosave_write_now (FwAutosave       *self,
                                   const char       *path,
                                   char             *text,
                                   GError          **error);
/* Files written so far, in the worker and by write_now (for tests). */
guint       fw_autosave_get_n_writes (FwAutosave    *self);

G_END_DECLS
