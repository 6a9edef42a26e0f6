/* fw-chart-snapshot-private.h: drawing one of core/report's charts (roofline, summary) into a widget: the
 * widget's size, the light or dark look that follows the theme, cairo through GtkSnapshot. Shared by
 * FwRooflineView and FwSummaryView. */
#pragma once

#include <gtk/gtk.h>

#include "report/fw-roofline.h"

G_BEGIN_DECLS

typedef void (*FwChartDrawFunc) (cairo_t               *cr,
                                 gdouble                width,
                                 gdouble                height,
                                 const FwRooflineData  *data,
                                 const FwChartOptions  *options);

/* Draws data with draw over widget's area, candidate highlight (G_MAXUINT: none); nothing when data is
 * NULL or the widget has no size. */
void fw_chart_snapshot (GtkWidget             *widget,
                        GtkSnapshot           *snapshot,
                        FwChartDrawFunc        draw,
                        const FwRooflineData  *data,
                        guint                  highlight);

G_END_DECLS
