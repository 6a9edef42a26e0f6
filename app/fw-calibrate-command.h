/* fw-calibrate-command.h: fusion-workbench --calibrate. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Calibrates the host profile (fw-host-calibrate.h), caches it and prints each fitted number, before and
 * after. Returns the exit code: 0 calibrated and cached, 2 refused (FW_HOST_PROFILE_NO_PROBE=1) or the
 * cache could not be written, 3 an internal error. */
int fw_calibrate_command_run (void);

G_END_DECLS
