/* fw-window-test-support.h: what the tests of the whole window share: registering the application on a
 * display without a session bus, waiting for a model to be shown, running the main loop, and pictures of
 * widgets as the screen shows them. */
#pragma once

#include "fw-application.h"
#include "fw-window-private.h"

G_BEGIN_DECLS

void        fw_window_test_register      (FwApplication *app);
/* Runs the main loop until window shows a laid-out project and nothing is loading (fails after 150 s). */
void        fw_window_test_wait_loaded   (FwWindow      *window);
void        fw_window_test_iterate       (guint          ms);
/* The widget as it is drawn now. */
GdkTexture *fw_window_test_render        (GtkWidget     *widget);
void        fw_window_test_save_png      (GtkWidget     *widget,
                                          const char    *path);
/* The share of texture's pixels that differ from white (the canvas's background). */
gdouble     fw_window_test_ink_share     (GdkTexture    *texture);

G_END_DECLS
