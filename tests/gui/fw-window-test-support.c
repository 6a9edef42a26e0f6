#include "config.h"

#include "fw-window-test-support.h"

/* Virtual displays in CI have no session bus; GtkApplication warns while registering and goes on
 * without one. Warnings are fatal again once it has. */
void
fw_window_test_register (FwApplication *app)
{
  g_autoptr(GError) error = NULL;
  GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_log_set_always_fatal (fatal);
}

void
fw_window_test_wait_loaded (FwWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 150 * G_USEC_PER_SEC;

  while (fw_window_get_busy (window) || fw_window_get_project (window) == NULL || fw_window_get_layout (window) == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

void
fw_window_test_iterate (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* The widget drawn now; a widget waiting for its allocation (a resize queued by the last change) draws
 * nothing, so the main loop runs until it is allocated again. */
static GskRenderNode *
snapshot_widget (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);

  for (;;)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      GskRenderNode *node;

      gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
      node = gtk_snapshot_free_to_node (snapshot);
      if (node != NULL)
        return node;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      fw_window_test_iterate (10);
    }
}

GdkTexture *
fw_window_test_render (GtkWidget *widget)
{
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);

  g_assert_cmpint (width, >, 0);
  node = snapshot_widget (widget);
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, width, height));
}

void
fw_window_test_save_png (GtkWidget *widget, const char *path)
{
  g_autoptr(GdkTexture) texture = fw_window_test_render (widget);

  g_assert_true (gdk_texture_save_to_png (texture, path));
}

gdouble
fw_window_test_ink_share (GdkTexture *texture)
{
  int w = gdk_texture_get_width (texture), h = gdk_texture_get_height (texture);
  gsize stride = (gsize) w * 4;
  g_autofree guchar *pixels = g_malloc (stride * h);
  guint64 ink = 0;

  /* Cairo's order (B, G, R, A premultiplied); a pixel counts when any channel is clearly below white. */
  gdk_texture_download (texture, pixels, stride);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        const guchar *p = pixels + y * stride + x * 4;

        ink += p[0] < 235 || p[1] < 235 || p[2] < 235;
      }
  return w > 0 && h > 0 ? (gdouble) ink / ((gdouble) w * h) : 0;
}
