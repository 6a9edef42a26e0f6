/* fw-chart-snapshot.c: a core/report chart drawn into a widget. */
#include "config.h"

#include "fw-chart-snapshot-private.h"

/* Light text on the theme means a dark background; the chart follows the theme rather than a setting. */
static gboolean
theme_is_dark (GtkWidget *widget)
{
  GdkRGBA fg;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  return 0.299 * fg.red + 0.587 * fg.green + 0.114 * fg.blue > 0.5;
}

void
fw_chart_snapshot (GtkWidget *widget, GtkSnapshot *snapshot, FwChartDrawFunc draw, const FwRooflineData *data,
                   guint highlight)
{
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  FwChartOptions options;
  cairo_t *cr;

  if (data == NULL || w <= 0 || h <= 0)
    return;
  fw_chart_options_init (&options);
  options.highlight = highlight;
  options.dark = theme_is_dark (widget);
  options.background = FALSE;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  draw (cr, w, h, data, &options);
  cairo_destroy (cr);
}
