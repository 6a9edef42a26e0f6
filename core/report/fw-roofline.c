/* fw-roofline.c: the roofline and summary charts (fw-roofline.h).
 *
 * Intensity and throughput follow the classic roofline (Williams, Waterman and Patterson): traffic is every
 * byte read from and written to HBM, throughput is FLOPs over the estimated time. The planner's time model
 * lets a kernel's loads and stores overlap (fw-estimate.c: the slowest of load, compute and store), so a
 * kernel whose reads and writes are balanced may be estimated up to twice above the single-bandwidth roof;
 * we draw what the estimate says rather than clamp it. Launch and sync overhead count in the time, which is
 * what pulls small unfused kernels far below the roof and what fusion wins back.
 *
 * Margins are fixed, not measured from the text, so the hit test needs no cairo context and a view and a
 * file agree on where every point is. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-picture.h"
#include "fw-render.h"
#include "fw-roofline.h"

#define MARGIN_LEFT       72.0
#define MARGIN_RIGHT      32.0
#define MARGIN_TOP        34.0
#define MARGIN_BOTTOM     72.0
#define POINT_RADIUS      4.5
#define HIGHLIGHT_RADIUS  7.0
#define HIT_RADIUS        9.0
#define FONT_SIZE         11.0
#define TITLE_SIZE        13.0
#define MAX_LABEL_CHARS   40
#define FILE_WIDTH        800.0
#define FILE_HEIGHT       560.0
#define SUMMARY_WIDTH     760.0
#define SUMMARY_HEIGHT    420.0

typedef struct
{
  gdouble r, g, b;
} Rgb;

typedef struct
{
  Rgb background;
  Rgb text;
  Rgb grid;
  Rgb axis;
  Rgb roof;
} Theme;

typedef struct
{
  gdouble x0, y0, x1, y1;
} Area;

/* Data */

void
fw_chart_options_init (FwChartOptions *options)
{
  memset (options, 0, sizeof *options);
  options->highlight = G_MAXUINT;
  options->background = TRUE;
}

static void
clear_point (gpointer data)
{
  FwRooflinePoint *p = data;

  g_free (p->pattern);
}

gdouble
fw_roofline_attainable (const FwRooflineData *data, gdouble intensity)
{
  return MIN (data->peak_flops_per_s, intensity * data->hbm_bytes_per_s);
}

static gboolean
positive (gdouble v)
{
  return isfinite (v) && v > 0;
}

static void
extend (gdouble *lo, gdouble *hi, gdouble v)
{
  if (!positive (v))
    return;
  *lo = MIN (*lo, v);
  *hi = MAX (*hi, v);
}

/* Widens [lo, hi] to whole decades, at least one; fallback when nothing was seen. */
static void
to_decades (gdouble *lo, gdouble *hi, gdouble fallback)
{
  if (*lo > *hi)
    *lo = *hi = fallback;
  *lo = pow (10, floor (log10 (*lo)));
  *hi = pow (10, ceil (log10 (*hi)));
  if (*hi < *lo * 10)
    *hi = *lo * 10;
}

static char *
label_text (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text ? text : "", -1);

  if (g_utf8_strlen (valid, -1) > MAX_LABEL_CHARS)
    {
      g_autofree char *head = g_utf8_substring (valid, 0, MAX_LABEL_CHARS - 1);
      return g_strconcat (head, "…", NULL);
    }
  return g_steal_pointer (&valid);
}

FwRooflineData *
fw_roofline_data_new (const FwPlan *plan)
{
  FwRooflineData *data = g_new0 (FwRooflineData, 1);
  const FwProfile *profile = plan->profile;
  guint n = plan->candidates ? plan->candidates->len : 0;
  gdouble x_lo = G_MAXDOUBLE, x_hi = 0, y_lo = G_MAXDOUBLE, y_hi = 0;

  /* The same floors as the planner's estimates, so a profile without a figure cannot divide by zero. */
  data->profile = g_strdup (profile->name ? profile->name : "");
  data->vector_flops_per_s = MAX (profile->vector_flops_per_s, 1.0);
  data->peak_flops_per_s = MAX (MAX (profile->cube_flops_per_s, 1.0), data->vector_flops_per_s);
  data->hbm_bytes_per_s = MAX (profile->hbm_bytes_per_s, 1.0);
  data->ridge_intensity = data->peak_flops_per_s / data->hbm_bytes_per_s;

  data->points = g_array_sized_new (FALSE, TRUE, sizeof (FwRooflinePoint), n);
  g_array_set_clear_func (data->points, clear_point);
  for (guint i = 0; i < n; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      const FwCostEstimate *k = fw_candidate_get_cost (c);
      FwRooflinePoint p = { 0 };

      p.index = c->index;
      p.pattern = label_text (c->pattern);
      p.status = c->status;
      p.n_nodes = c->nodes ? c->nodes->len : 0;
      p.flops = k->flops;
      p.bytes_before = k->bytes_read_before + k->bytes_written_before;
      p.bytes_after = k->bytes_read_after + k->bytes_written_after;
      p.time_before_s = k->time_before_s;
      p.time_after_s = k->time_after_s;
      p.intensity_before = p.bytes_before > 0 ? p.flops / p.bytes_before : 0;
      p.intensity_after = p.bytes_after > 0 ? p.flops / p.bytes_after : 0;
      p.achieved_before = p.time_before_s > 0 ? p.flops / p.time_before_s : 0;
      p.achieved_after = p.time_after_s > 0 ? p.flops / p.time_after_s : 0;
      p.attainable_before = fw_roofline_attainable (data, p.intensity_before);
      p.attainable_after = fw_roofline_attainable (data, p.intensity_after);
      p.plotted = positive (p.intensity_before) && positive (p.intensity_after) &&
                  positive (p.achieved_before) && positive (p.achieved_after);
      if (p.plotted)
        {
          extend (&x_lo, &x_hi, p.intensity_before);
          extend (&x_lo, &x_hi, p.intensity_after);
          extend (&y_lo, &y_hi, p.achieved_before);
          extend (&y_lo, &y_hi, p.achieved_after);
        }
      else
        data->n_unplotted++;
      g_array_append_val (data->points, p);
    }

  /* A decade either side of the ridge, and room above the roof, so the roof's shape always shows. */
  extend (&x_lo, &x_hi, data->ridge_intensity / 10);
  extend (&x_lo, &x_hi, data->ridge_intensity * 10);
  to_decades (&x_lo, &x_hi, data->ridge_intensity);
  if (y_lo > y_hi)
    extend (&y_lo, &y_hi, fw_roofline_attainable (data, x_lo));
  extend (&y_lo, &y_hi, data->peak_flops_per_s * 2);
  to_decades (&y_lo, &y_hi, data->peak_flops_per_s);
  data->x_min = x_lo;
  data->x_max = x_hi;
  data->y_min = y_lo;
  data->y_max = y_hi;

  /* FwPlan.proposed is recorded whenever the planner plans from scratch, before any decision, so the
   * proposal needs no re-planning here; before and after are the report's own totals. */
  data->columns[FW_SUMMARY_ORIGINAL] = plan->before;
  data->columns[FW_SUMMARY_PROPOSED] = plan->proposed;
  data->columns[FW_SUMMARY_DECISIONS] = plan->after;
  return data;
}

void
fw_roofline_data_free (FwRooflineData *data)
{
  if (data == NULL)
    return;
  g_free (data->profile);
  g_clear_pointer (&data->points, g_array_unref);
  g_free (data);
}

const FwRooflinePoint *
fw_roofline_data_find (const FwRooflineData *data, guint candidate)
{
  g_return_val_if_fail (data != NULL, NULL);

  /* Points are stored by index; the search only guards against a plan whose indices have gaps. */
  if (candidate < data->points->len &&
      g_array_index (data->points, FwRooflinePoint, candidate).index == candidate)
    return &g_array_index (data->points, FwRooflinePoint, candidate);
  for (guint i = 0; i < data->points->len; i++)
    if (g_array_index (data->points, FwRooflinePoint, i).index == candidate)
      return &g_array_index (data->points, FwRooflinePoint, i);
  return NULL;
}

/* Text */

/* value with an SI prefix: "354 T", "1.6 G", "0.5". */
static char *
format_si (gdouble value, const char *unit)
{
  static const struct { gdouble scale; const char *prefix; } prefixes[] = {
    { 1e18, "E" }, { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (fabs (value) >= prefixes[i].scale)
      return g_strdup_printf ("%.3g %s%s", value / prefixes[i].scale, prefixes[i].prefix, unit);
  return g_strdup_printf ("%.3g %s", value, unit);
}

static char *
format_bytes (gdouble bytes)
{
  if (bytes >= 1024.0 * 1024 * 1024)
    return g_strdup_printf ("%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024)
    return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  return g_strdup_printf ("%.0f B", bytes);
}

static char *
format_time (gdouble seconds)
{
  if (seconds >= 1)
    return g_strdup_printf ("%.2f s", seconds);
  if (seconds >= 1e-3)
    return g_strdup_printf ("%.2f ms", seconds * 1e3);
  return g_strdup_printf ("%.1f µs", seconds * 1e6);
}

static const char *
status_label (FwCandidateStatus status)
{
  switch (status)
    {
    case FW_CANDIDATE_ACCEPTED: return _("accepted");
    case FW_CANDIDATE_VETOED: return _("vetoed");
    case FW_CANDIDATE_REFUSED: return _("refused");
    case FW_CANDIDATE_PROPOSED:
    default: return _("proposed");
    }
}

char *
fw_roofline_point_describe (const FwRooflinePoint *point)
{
  g_autoptr(GString) s = g_string_new (NULL);
  g_autofree char *flops = format_si (point->flops, "FLOP");
  g_autofree char *rate_before = format_si (point->achieved_before, "FLOP/s");
  g_autofree char *rate_after = format_si (point->achieved_after, "FLOP/s");
  g_autofree char *bytes_before = format_bytes (point->bytes_before);
  g_autofree char *bytes_after = format_bytes (point->bytes_after);
  g_autofree char *time_before = format_time (point->time_before_s);
  g_autofree char *time_after = format_time (point->time_after_s);

  /* Translators: a fusion candidate: its number, pattern and status (proposed, accepted…). */
  g_string_append_printf (s, _("#%u %s (%s)"), point->index, point->pattern, status_label (point->status));
  g_string_append_c (s, '\n');
  /* Translators: the size of a fusion candidate and its arithmetic, e.g. "3 nodes, 12.3 kFLOP". */
  g_string_append_printf (s, _("%u nodes, %s"), point->n_nodes, flops);
  g_string_append_c (s, '\n');
  /* Translators: intensity (FLOP per byte), throughput, HBM traffic and time of the unfused kernels. */
  g_string_append_printf (s, _("unfused: %.3g FLOP/byte, %s, %s, %s"), point->intensity_before, rate_before,
                          bytes_before, time_before);
  g_string_append_c (s, '\n');
  /* Translators: the same for the fused kernel. */
  g_string_append_printf (s, _("fused: %.3g FLOP/byte, %s, %s, %s"), point->intensity_after, rate_after,
                          bytes_after, time_after);
  if (!point->plotted)
    {
      g_string_append_c (s, '\n');
      g_string_append (s, _("not on the roofline: no arithmetic or no HBM traffic"));
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* Drawing helpers */

static Theme
theme_for (const FwChartOptions *options)
{
  if (options->dark)
    return (Theme) { { 0.14, 0.14, 0.15 }, { 0.92, 0.92, 0.92 }, { 0.28, 0.28, 0.30 }, { 0.70, 0.70, 0.72 },
                     { 0.95, 0.95, 0.95 } };
  return (Theme) { { 1, 1, 1 }, { 0.10, 0.10, 0.10 }, { 0.88, 0.88, 0.90 }, { 0.35, 0.35, 0.38 },
                   { 0.12, 0.12, 0.14 } };
}

/* The graph's hull colours (fw-render.c), lifted towards white on a dark background. */
static Rgb
status_color (FwCandidateStatus status, const FwChartOptions *options)
{
  Rgb c;

  fw_render_hull_color (status, &c.r, &c.g, &c.b);
  if (options->dark)
    {
      c.r += (1 - c.r) * 0.35;
      c.g += (1 - c.g) * 0.35;
      c.b += (1 - c.b) * 0.35;
    }
  return c;
}

static void
set_rgb (cairo_t *cr, Rgb c)
{
  cairo_set_source_rgb (cr, c.r, c.g, c.b);
}

/* Draws text with its baseline at y; align 0 puts its left edge at x, 0.5 its centre, 1 its right edge. */
static gdouble
draw_text (cairo_t *cr, gdouble x, gdouble y, const char *text, gdouble align)
{
  cairo_text_extents_t ext;

  cairo_text_extents (cr, text, &ext);
  cairo_move_to (cr, x - align * ext.x_advance, y);
  cairo_show_text (cr, text);
  return ext.x_advance;
}

/* Text over the chart's lines and markers: a halo in the background colour keeps it readable. */
static void
draw_label (cairo_t *cr, gdouble x, gdouble y, const char *text, gdouble align, const Theme *t)
{
  cairo_text_extents_t ext;

  cairo_text_extents (cr, text, &ext);
  cairo_new_path (cr);
  cairo_move_to (cr, x - align * ext.x_advance, y);
  cairo_text_path (cr, text);
  set_rgb (cr, t->background);
  cairo_set_line_width (cr, 3);
  cairo_stroke_preserve (cr);
  set_rgb (cr, t->text);
  cairo_fill (cr);
}

static void
plot_area (gdouble width, gdouble height, Area *a)
{
  a->x0 = MARGIN_LEFT;
  a->y0 = MARGIN_TOP;
  a->x1 = MAX (a->x0 + 1, width - MARGIN_RIGHT);
  a->y1 = MAX (a->y0 + 1, height - MARGIN_BOTTOM);
}

static gdouble
map_x (const FwRooflineData *d, const Area *a, gdouble v)
{
  return a->x0 + (log10 (v) - log10 (d->x_min)) / (log10 (d->x_max) - log10 (d->x_min)) * (a->x1 - a->x0);
}

static gdouble
map_y (const FwRooflineData *d, const Area *a, gdouble v)
{
  return a->y1 - (log10 (v) - log10 (d->y_min)) / (log10 (d->y_max) - log10 (d->y_min)) * (a->y1 - a->y0);
}

static void
arrow_head (cairo_t *cr, gdouble x0, gdouble y0, gdouble x1, gdouble y1, gdouble back)
{
  gdouble dx = x1 - x0, dy = y1 - y0, len = sqrt (dx * dx + dy * dy);
  gdouble ux, uy, tx, ty;

  if (len <= back + 1)
    return;
  ux = dx / len;
  uy = dy / len;
  tx = x1 - back * ux;
  ty = y1 - back * uy;
  cairo_move_to (cr, tx, ty);
  cairo_line_to (cr, tx - 7 * ux + 3.5 * uy, ty - 7 * uy - 3.5 * ux);
  cairo_line_to (cr, tx - 7 * ux - 3.5 * uy, ty - 7 * uy + 3.5 * ux);
  cairo_close_path (cr);
  cairo_fill (cr);
}

static void
draw_point (cairo_t *cr, const FwRooflineData *d, const Area *a, const FwRooflinePoint *p,
            const FwChartOptions *options, const Theme *t)
{
  gboolean highlight = p->index == options->highlight;
  gdouble radius = highlight ? HIGHLIGHT_RADIUS : POINT_RADIUS;
  gdouble bx = map_x (d, a, p->intensity_before), by = map_y (d, a, p->achieved_before);
  gdouble ax = map_x (d, a, p->intensity_after), ay = map_y (d, a, p->achieved_after);
  Rgb c = status_color (p->status, options);

  cairo_set_source_rgba (cr, c.r, c.g, c.b, highlight ? 1.0 : 0.55);
  cairo_set_line_width (cr, highlight ? 2.0 : 1.2);
  {
    gdouble dx = ax - bx, dy = ay - by, len = sqrt (dx * dx + dy * dy);
    if (len > 2 * radius)
      {
        cairo_move_to (cr, bx + dx / len * radius, by + dy / len * radius);
        cairo_line_to (cr, ax - dx / len * radius, ay - dy / len * radius);
        cairo_stroke (cr);
        arrow_head (cr, bx, by, ax, ay, radius);
      }
  }

  /* Unfused hollow, fused filled: the arrow reads from ring to dot. */
  cairo_new_sub_path (cr);
  cairo_arc (cr, bx, by, radius, 0, 2 * G_PI);
  set_rgb (cr, t->background);
  cairo_fill_preserve (cr);
  set_rgb (cr, c);
  cairo_set_line_width (cr, highlight ? 2.5 : 1.5);
  cairo_stroke (cr);

  cairo_new_sub_path (cr);
  cairo_arc (cr, ax, ay, radius, 0, 2 * G_PI);
  set_rgb (cr, c);
  cairo_fill (cr);
  if (highlight)
    {
      g_autofree char *label = g_strdup_printf ("#%u %s", p->index, p->pattern);

      cairo_new_sub_path (cr);
      cairo_arc (cr, ax, ay, radius + 3, 0, 2 * G_PI);
      set_rgb (cr, t->text);
      cairo_set_line_width (cr, 1.5);
      cairo_stroke (cr);
      cairo_set_font_size (cr, FONT_SIZE);
      draw_label (cr, ax + radius + 6, ay - radius - 4, label, ax > (a->x0 + a->x1) / 2 ? 1.0 : 0.0, t);
    }
}

/* A legend entry: a marker (hollow when ring) and its text; returns the x after it. */
static gdouble
legend_entry (cairo_t *cr, gdouble x, gdouble y, Rgb c, gboolean ring, const char *text, const Theme *t)
{
  cairo_new_sub_path (cr);
  cairo_arc (cr, x + POINT_RADIUS, y - 4, POINT_RADIUS, 0, 2 * G_PI);
  set_rgb (cr, ring ? t->background : c);
  cairo_fill_preserve (cr);
  set_rgb (cr, c);
  cairo_set_line_width (cr, 1.5);
  cairo_stroke (cr);
  set_rgb (cr, t->text);
  return x + 2 * POINT_RADIUS + 5 + draw_text (cr, x + 2 * POINT_RADIUS + 5, y, text, 0) + 14;
}

static void
begin_chart (cairo_t *cr, gdouble width, gdouble height, const FwChartOptions *options, const Theme *t)
{
  cairo_save (cr);
  if (options->background)
    {
      set_rgb (cr, t->background);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_fill (cr);
    }
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
}

static void
draw_title (cairo_t *cr, gdouble x, const char *title, const Theme *t)
{
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, TITLE_SIZE);
  set_rgb (cr, t->text);
  draw_text (cr, x, 21, title, 0);
  cairo_select_font_face (cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, FONT_SIZE);
}

/* The roofline */

/* The grid, ticks and labels, one per decade, the frame and the axis titles. */
static void
draw_axes (cairo_t *cr, const FwRooflineData *data, const Area *a, const Theme *t)
{
  cairo_set_line_width (cr, 1);
  for (gdouble e = round (log10 (data->x_min)); e <= round (log10 (data->x_max)) + 0.5; e++)
    {
      gdouble v = pow (10, e), x = round (map_x (data, a, v)) + 0.5;
      g_autofree char *label = format_si (v, "");

      set_rgb (cr, t->grid);
      cairo_move_to (cr, x, a->y0);
      cairo_line_to (cr, x, a->y1);
      cairo_stroke (cr);
      set_rgb (cr, t->text);
      draw_text (cr, x, a->y1 + 15, g_strstrip (label), 0.5);
    }
  for (gdouble e = round (log10 (data->y_min)); e <= round (log10 (data->y_max)) + 0.5; e++)
    {
      gdouble v = pow (10, e), y = round (map_y (data, a, v)) + 0.5;
      g_autofree char *label = format_si (v, "");

      set_rgb (cr, t->grid);
      cairo_move_to (cr, a->x0, y);
      cairo_line_to (cr, a->x1, y);
      cairo_stroke (cr);
      set_rgb (cr, t->text);
      draw_text (cr, a->x0 - 6, y + 4, g_strstrip (label), 1.0);
    }
  set_rgb (cr, t->axis);
  cairo_rectangle (cr, a->x0 + 0.5, a->y0 + 0.5, a->x1 - a->x0 - 1, a->y1 - a->y0 - 1);
  cairo_stroke (cr);

  set_rgb (cr, t->text);
  draw_text (cr, (a->x0 + a->x1) / 2, a->y1 + 34, _("arithmetic intensity (FLOP per byte of HBM traffic)"), 0.5);
  cairo_save (cr);
  cairo_translate (cr, 16, (a->y0 + a->y1) / 2);
  cairo_rotate (cr, -G_PI / 2);
  draw_text (cr, 0, 0, _("throughput (FLOP/s)"), 0.5);
  cairo_restore (cr);
}

/* The roof, the vector ceiling when lower than the peak, the ridge, with their labels. */
static void
draw_roof (cairo_t *cr, const FwRooflineData *data, const Area *a, const Theme *t)
{
  gdouble rx = map_x (data, a, data->ridge_intensity), ry = map_y (data, a, data->peak_flops_per_s);
  g_autofree char *peak = format_si (data->peak_flops_per_s, "FLOP/s");
  g_autofree char *bw = format_si (data->hbm_bytes_per_s, "B/s");
  g_autofree char *peak_label = NULL, *bw_label = NULL, *ridge_label = NULL;

  if (data->vector_flops_per_s < data->peak_flops_per_s * 0.999)
    {
      static const double dash[] = { 6, 4 };
      gdouble vy = map_y (data, a, data->vector_flops_per_s);
      gdouble vx = map_x (data, a, data->vector_flops_per_s / data->hbm_bytes_per_s);
      g_autofree char *vector = format_si (data->vector_flops_per_s, "FLOP/s");
      g_autofree char *vector_label = NULL;

      set_rgb (cr, t->axis);
      cairo_set_line_width (cr, 1.2);
      cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0);
      cairo_move_to (cr, vx, vy);
      cairo_line_to (cr, a->x1, vy);
      cairo_stroke (cr);
      cairo_set_dash (cr, NULL, 0, 0);
      /* Translators: the ceiling of the vector units on the roofline, e.g. "vector units 11.4 TFLOP/s". */
      vector_label = g_strdup_printf (_("vector units %s"), vector);
      draw_text (cr, a->x1 - 6, vy - 5, vector_label, 1.0);
    }

  set_rgb (cr, t->roof);
  cairo_set_line_width (cr, 2.2);
  cairo_move_to (cr, map_x (data, a, data->x_min), map_y (data, a, fw_roofline_attainable (data, data->x_min)));
  cairo_line_to (cr, rx, ry);
  cairo_line_to (cr, map_x (data, a, data->x_max), ry);
  cairo_stroke (cr);
  /* Translators: the flat part of the roof, the chip's peak compute, e.g. "peak 354 TFLOP/s". */
  peak_label = g_strdup_printf (_("peak %s"), peak);
  draw_text (cr, a->x1 - 6, ry - 5, peak_label, 1.0);
  /* Translators: the sloped part of the roof, HBM bandwidth, e.g. "HBM 1.6 TB/s". */
  bw_label = g_strdup_printf (_("HBM %s"), bw);
  {
    /* Halfway (on the log scale) along the part of the slope inside the plot, under the line. */
    gdouble lo = MAX (data->x_min, data->y_min / data->hbm_bytes_per_s);
    gdouble mid = sqrt (lo * MIN (data->ridge_intensity, data->x_max));

    draw_text (cr, map_x (data, a, mid) + 8, map_y (data, a, fw_roofline_attainable (data, mid)) + 16,
               bw_label, 0);
  }

  {
    static const double dots[] = { 2, 3 };
    cairo_set_line_width (cr, 1);
    cairo_set_dash (cr, dots, G_N_ELEMENTS (dots), 0);
    cairo_move_to (cr, rx, ry);
    cairo_line_to (cr, rx, a->y1);
    cairo_stroke (cr);
    cairo_set_dash (cr, NULL, 0, 0);
  }
  cairo_new_sub_path (cr);
  cairo_arc (cr, rx, ry, 4, 0, 2 * G_PI);
  cairo_fill (cr);
  /* Translators: where the roof turns flat, in FLOP per byte. */
  ridge_label = g_strdup_printf (_("ridge %.3g FLOP/byte"), data->ridge_intensity);
  draw_text (cr, rx + 6, a->y1 - 6, ridge_label, 0);
}

/* The candidates, the highlighted one last so it is drawn on top. */
static void
draw_points (cairo_t *cr, const FwRooflineData *data, const Area *a, const FwChartOptions *options,
             const Theme *t)
{
  for (guint i = 0; i < data->points->len; i++)
    {
      const FwRooflinePoint *p = &g_array_index (data->points, FwRooflinePoint, i);
      if (p->plotted && p->index != options->highlight)
        draw_point (cr, data, a, p, options, t);
    }
  {
    const FwRooflinePoint *p = options->highlight != G_MAXUINT ? fw_roofline_data_find (data, options->highlight)
                                                                 : NULL;
    if (p != NULL && p->plotted)
      draw_point (cr, data, a, p, options, t);
  }
}

/* The legend: the two markers, then one colour per status. */
static void
draw_legend (cairo_t *cr, const FwRooflineData *data, const Area *a, gdouble height,
             const FwChartOptions *options, const Theme *t)
{
  static const FwCandidateStatus statuses[] = { FW_CANDIDATE_PROPOSED, FW_CANDIDATE_ACCEPTED,
                                                 FW_CANDIDATE_VETOED, FW_CANDIDATE_REFUSED };
  gdouble x = a->x0, y = height - 12;

  cairo_set_font_size (cr, FONT_SIZE);
  /* In the text colour: grey would read as the refused status. */
  x = legend_entry (cr, x, y, t->text, TRUE, _("unfused"), t);
  x = legend_entry (cr, x, y, t->text, FALSE, _("fused"), t);
  x += 10;
  for (guint i = 0; i < G_N_ELEMENTS (statuses); i++)
    x = legend_entry (cr, x, y, status_color (statuses[i], options), FALSE, status_label (statuses[i]), t);
  if (data->n_unplotted > 0)
    {
      g_autofree char *note = NULL;
      /* Translators: candidates that cannot sit on log axes, e.g. pure reshapes. */
      note = g_strdup_printf (_("not shown (no arithmetic): %u"), data->n_unplotted);
      set_rgb (cr, t->text);
      draw_text (cr, x, y, note, 0);
    }
}

void
fw_roofline_draw (cairo_t *cr, gdouble width, gdouble height, const FwRooflineData *data,
                  const FwChartOptions *options)
{
  FwChartOptions defaults;
  Theme t;
  Area a;
  g_autofree char *title = NULL;

  g_return_if_fail (cr != NULL && data != NULL);

  if (options == NULL)
    {
      fw_chart_options_init (&defaults);
      options = &defaults;
    }
  t = theme_for (options);
  plot_area (width, height, &a);
  begin_chart (cr, width, height, options, &t);
  {
    g_autofree char *profile = label_text (data->profile);
    /* Translators: the title of the roofline chart; %s is a hardware profile such as ascend-910b. */
    title = g_strdup_printf (_("Roofline of the fusion candidates on %s"), profile);
  }
  draw_title (cr, a.x0, title, &t);

  draw_axes (cr, data, &a, &t);

  /* Inside the plot: the roof, the vector ceiling, the ridge, then the candidates. */
  cairo_save (cr);
  cairo_rectangle (cr, a.x0, a.y0, a.x1 - a.x0, a.y1 - a.y0);
  cairo_clip (cr);
  draw_roof (cr, data, &a, &t);
  draw_points (cr, data, &a, options, &t);
  cairo_restore (cr);

  draw_legend (cr, data, &a, height, options, &t);
  cairo_restore (cr);
}

static gboolean
locate (const FwRooflineData *data, const Area *a, const FwRooflinePoint *p, gboolean after, gdouble *x, gdouble *y)
{
  if (!p->plotted)
    return FALSE;
  *x = map_x (data, a, after ? p->intensity_after : p->intensity_before);
  *y = map_y (data, a, after ? p->achieved_after : p->achieved_before);
  return TRUE;
}

gboolean
fw_roofline_locate (const FwRooflineData *data, gdouble width, gdouble height, guint candidate, gboolean after,
                    gdouble *x, gdouble *y)
{
  const FwRooflinePoint *p;
  Area a;

  g_return_val_if_fail (data != NULL && x != NULL && y != NULL, FALSE);

  p = fw_roofline_data_find (data, candidate);
  if (p == NULL)
    return FALSE;
  plot_area (width, height, &a);
  return locate (data, &a, p, after, x, y);
}

guint
fw_roofline_hit (const FwRooflineData *data, gdouble width, gdouble height, gdouble x, gdouble y)
{
  guint best = G_MAXUINT;
  gdouble best_d2 = HIT_RADIUS * HIT_RADIUS;
  Area a;

  g_return_val_if_fail (data != NULL, G_MAXUINT);

  plot_area (width, height, &a);
  if (x < a.x0 - HIT_RADIUS || x > a.x1 + HIT_RADIUS || y < a.y0 - HIT_RADIUS || y > a.y1 + HIT_RADIUS)
    return G_MAXUINT;
  for (guint i = 0; i < data->points->len; i++)
    {
      const FwRooflinePoint *p = &g_array_index (data->points, FwRooflinePoint, i);

      for (guint k = 0; k < 2; k++)
        {
          gdouble px, py, d2;

          if (!locate (data, &a, p, k == 1, &px, &py))
            continue;
          d2 = (px - x) * (px - x) + (py - y) * (py - y);
          /* Strictly nearer: of markers on one spot, the lowest index wins, as it is drawn first. */
          if (d2 <= best_d2 && (best == G_MAXUINT || d2 < best_d2))
            {
              best = p->index;
              best_d2 = d2;
            }
        }
    }
  return best;
}

/* The summary */

typedef struct
{
  const char *title;
  gdouble     values[FW_SUMMARY_N_COLUMNS];
  char     *(*format) (gdouble value);
} Figure;

static char *
format_count (gdouble value)
{
  return g_strdup_printf ("%.0f", value);
}

/* The original in a neutral grey, the proposal and the decisions in the looks of proposed and accepted
 * candidates. */
static Rgb
column_color (FwSummaryColumn column, const FwChartOptions *options)
{
  switch (column)
    {
    case FW_SUMMARY_PROPOSED:
      return status_color (FW_CANDIDATE_PROPOSED, options);
    case FW_SUMMARY_DECISIONS:
      return status_color (FW_CANDIDATE_ACCEPTED, options);
    case FW_SUMMARY_ORIGINAL:
    case FW_SUMMARY_N_COLUMNS:
    default:
      return options->dark ? (Rgb) { 0.62, 0.62, 0.66 } : (Rgb) { 0.58, 0.58, 0.62 };
    }
}

static const char *
column_label (FwSummaryColumn column)
{
  switch (column)
    {
    case FW_SUMMARY_ORIGINAL: return _("original graph");
    case FW_SUMMARY_PROPOSED: return _("proposed plan");
    case FW_SUMMARY_DECISIONS:
    case FW_SUMMARY_N_COLUMNS:
    default: return _("your decisions");
    }
}

void
fw_summary_draw (cairo_t *cr, gdouble width, gdouble height, const FwRooflineData *data,
                 const FwChartOptions *options)
{
  FwChartOptions defaults;
  Figure figures[3];
  Theme t;
  Area a;
  gdouble group_w;
  g_autofree char *title = NULL;

  g_return_if_fail (cr != NULL && data != NULL);

  if (options == NULL)
    {
      fw_chart_options_init (&defaults);
      options = &defaults;
    }
  figures[0] = (Figure) { _("kernels"), { 0 }, format_count };
  figures[1] = (Figure) { _("HBM traffic"), { 0 }, format_bytes };
  figures[2] = (Figure) { _("estimated time"), { 0 }, format_time };
  for (guint c = 0; c < FW_SUMMARY_N_COLUMNS; c++)
    {
      figures[0].values[c] = data->columns[c].launches;
      figures[1].values[c] = data->columns[c].bytes_read + data->columns[c].bytes_written;
      figures[2].values[c] = data->columns[c].time_s;
    }

  t = theme_for (options);
  a.x0 = 24;
  a.x1 = MAX (a.x0 + 1, width - 24);
  a.y0 = MARGIN_TOP + 34;     /* room for two lines of value labels over the tallest bar */
  a.y1 = MAX (a.y0 + 1, height - 56);
  begin_chart (cr, width, height, options, &t);
  {
    g_autofree char *profile = label_text (data->profile);
    /* Translators: the title of the summary chart; %s is a hardware profile such as ascend-910b. */
    title = g_strdup_printf (_("Kernels, HBM traffic and estimated time on %s"), profile);
  }
  draw_title (cr, a.x0, title, &t);

  set_rgb (cr, t.axis);
  cairo_set_line_width (cr, 1);
  cairo_move_to (cr, a.x0, round (a.y1) + 0.5);
  cairo_line_to (cr, a.x1, round (a.y1) + 0.5);
  cairo_stroke (cr);

  /* Each figure its own scale (they share no unit), its tallest column full height; the labels give the
   * values and each plan's share of the original. */
  group_w = (a.x1 - a.x0) / G_N_ELEMENTS (figures);
  for (guint f = 0; f < G_N_ELEMENTS (figures); f++)
    {
      const Figure *fig = &figures[f];
      gdouble gx = a.x0 + f * group_w, max = 0;
      gdouble bar_w = MIN (56.0, (group_w - 24) / FW_SUMMARY_N_COLUMNS);
      gdouble bx = gx + (group_w - bar_w * FW_SUMMARY_N_COLUMNS) / 2;

      for (guint c = 0; c < FW_SUMMARY_N_COLUMNS; c++)
        max = MAX (max, fig->values[c]);
      for (guint c = 0; c < FW_SUMMARY_N_COLUMNS; c++)
        {
          gdouble v = fig->values[c], original = fig->values[FW_SUMMARY_ORIGINAL];
          gdouble bh = max > 0 ? (a.y1 - a.y0) * v / max : 0;
          gdouble x = bx + c * bar_w;
          Rgb color = column_color (c, options);
          g_autofree char *value = fig->format (v);

          set_rgb (cr, color);
          cairo_rectangle (cr, x + 3, a.y1 - bh, bar_w - 6, bh);
          cairo_fill (cr);
          set_rgb (cr, t.text);
          cairo_set_font_size (cr, FONT_SIZE - 1);
          draw_text (cr, x + bar_w / 2, a.y1 - bh - (c == FW_SUMMARY_ORIGINAL ? 5 : 18), value, 0.5);
          if (c != FW_SUMMARY_ORIGINAL && original > 0)
            {
              g_autofree char *share = g_strdup_printf ("%.0f%%", 100 * v / original);
              draw_text (cr, x + bar_w / 2, a.y1 - bh - 5, share, 0.5);
            }
        }
      cairo_set_font_size (cr, FONT_SIZE);
      set_rgb (cr, t.text);
      draw_text (cr, gx + group_w / 2, a.y1 + 18, fig->title, 0.5);
    }

  {
    gdouble x = a.x0, y = height - 12;

    cairo_set_font_size (cr, FONT_SIZE);
    for (guint c = 0; c < FW_SUMMARY_N_COLUMNS; c++)
      {
        set_rgb (cr, column_color (c, options));
        cairo_rectangle (cr, x, y - 9, 12, 10);
        cairo_fill (cr);
        set_rgb (cr, t.text);
        x += 18 + draw_text (cr, x + 18, y, column_label (c), 0) + 16;
      }
  }
  cairo_restore (cr);
}

/* Files */

typedef struct
{
  FwRooflineData *data;
  gboolean        roofline;
} ChartPicture;

static void
draw_chart_picture (cairo_t *cr, gdouble width, gdouble height, gpointer user_data)
{
  ChartPicture *picture = user_data;
  FwChartOptions options;

  fw_chart_options_init (&options);
  if (picture->roofline)
    fw_roofline_draw (cr, width, height, picture->data, &options);
  else
    fw_summary_draw (cr, width, height, picture->data, &options);
}

static gboolean
render_chart (const FwPlan *plan, const char *path, gboolean roofline, GError **error)
{
  g_autoptr(FwRooflineData) data = NULL;
  ChartPicture picture;
  gboolean svg;

  g_return_val_if_fail (plan != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!fw_picture_format_for_path (path, &svg, error))
    return FALSE;
  data = fw_roofline_data_new (plan);
  picture = (ChartPicture) { data, roofline };
  return fw_picture_write (path, roofline ? FILE_WIDTH : SUMMARY_WIDTH, roofline ? FILE_HEIGHT : SUMMARY_HEIGHT,
                           draw_chart_picture, &picture, error);
}

gboolean
fw_render_roofline (const FwPlan *plan, const char *path, GError **error)
{
  return render_chart (plan, path, TRUE, error);
}

gboolean
fw_render_summary (const FwPlan *plan, const char *path, GError **error)
{
  return render_chart (plan, path, FALSE, error);
}
