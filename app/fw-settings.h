/* fw-settings.h: the application's GSettings, wherever its schema is: installed (or GSETTINGS_SCHEMA_DIR),
 * compiled in the build folder the program was started from, or, when neither has it, the copy compiled
 * into the program, kept in memory with a warning. A missing schema never aborts the program. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  FW_SETTINGS_INSTALLED,    /* the default schema source: installed, or GSETTINGS_SCHEMA_DIR */
  FW_SETTINGS_BUILD_TREE,   /* data/gschemas.compiled beside the build folder's app/ */
  FW_SETTINGS_MEMORY,       /* the built-in copy; nothing is kept after the program ends */
} FwSettingsSource;

/* A new GSettings for APP_ID; every call shares one schema and one backend, so a change made through one
 * reaches the others. */
GSettings        *fw_settings_new          (void);
/* Where fw_settings_new's schema came from (found at its first call). */
FwSettingsSource  fw_settings_get_source   (void);

G_END_DECLS
