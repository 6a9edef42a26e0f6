/* fw-preferences.h: the preferences window: planner settings (profile, strategy, limits, bindings of
 * symbolic dimensions) and the colour scheme, all stored in GSettings. It only edits settings; the window
 * reads them when it opens a model. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define FW_TYPE_PREFERENCES (fw_preferences_get_type ())

G_DECLARE_FINAL_TYPE (FwPreferences, fw_preferences, FW, PREFERENCES, AdwPreferencesWindow)

GtkWidget *fw_preferences_new (GtkWindow *parent, GSettings *settings);

G_END_DECLS
