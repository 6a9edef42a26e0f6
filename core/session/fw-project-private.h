/* fw-project-private.h: FwProject internals the tests look at. */
#pragma once

#include "fw-project.h"

G_BEGIN_DECLS

/* How long after the last decision the session is written. */
#define FW_PROJECT_AUTOSAVE_DELAY_MS 300

/* Session files written so far, autosaves and explicit saves. */
guint fw_project_get_n_session_writes (FwProject *self);

G_END_DECLS
