/* fw-application.h: the desktop workbench's GtkApplication. Only built with -Dgui=true. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FW_TYPE_APPLICATION (fw_application_get_type ())

G_DECLARE_FINAL_TYPE (FwApplication, fw_application, FW, APPLICATION, AdwApplication)

int fw_application_run (int argc, char **argv);

G_END_DECLS
