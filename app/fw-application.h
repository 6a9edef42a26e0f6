/* fw-application.h: the desktop workbench's application: app actions (about, preferences, shortcuts, open,
 * quit) and their accelerators, the colour scheme from GSettings, one FwWindow per model opened. Only built
 * with -Dgui=true; batch mode never creates it. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FW_TYPE_APPLICATION (fw_application_get_type ())

G_DECLARE_FINAL_TYPE (FwApplication, fw_application, FW, APPLICATION, AdwApplication)

FwApplication *fw_application_new (void);
/* rules and whitelists (--rules, --whitelist; may be NULL) are loaded by every model the windows open, after
 * those of the preferences; so are the operator registries ops (--ops). */
int            fw_application_run (int                  argc,
                                   char               **argv,
                                   const char * const  *rules,
                                   const char * const  *whitelists,
                                   const char * const  *ops);
/* The --ops paths, absolute (NULL when none). */
const char * const *fw_application_get_ops (FwApplication *self);

G_END_DECLS
